"""harness.py - what every e2e check shares: the PASS/FAIL/SKIP lines,
running a command (and scaler record / report) with a time limit, reading
the JSON report, comparing its call counts with expected rows, and the
Run handed to each check module (tests/e2e/checks/*.py; check.py is the
runner). Only the standard library.

Expectation files (tests/e2e/<prog>/expect) hold rows "caller callee api
count"; '#' starts a comment. count is N (exact), 0 (the row must not
appear), ">0" or ">=N". Names may be fnmatch patterns (counts of all
matching rows are summed).
"""
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))     # tests/e2e
ROOT = os.path.dirname(os.path.dirname(HERE))         # the repository
TIMEOUT = 60

failures = 0


def report_line(ok, name, variant=None, reason=""):
    """Prints "PASS name [variant]" or "FAIL name [variant]: reason" (one
    line, reason cut to 600 characters) and counts the failures."""
    global failures
    tag = "%s [%s]" % (name, variant) if variant else name
    if ok:
        print("PASS %s" % tag, flush=True)
    else:
        failures += 1
        reason = " ".join(reason.split())
        if len(reason) > 600:
            reason = reason[:600] + "..."
        print("FAIL %s: %s" % (tag, reason), flush=True)


def skip(name, reason):
    """Prints "SKIP name: reason"; returns None, which guarded() takes as
    "already reported"."""
    print("SKIP %s: %s" % (name, reason), flush=True)


def guarded(name, variant, fn):
    """Runs one check: fn returns a list of problems (empty: PASS) or None
    (it reported itself, e.g. skip()); exceptions (timeouts, a missing
    file, a fixture that could not be recorded) become a FAIL line."""
    try:
        bad = fn()
    except (RuntimeError, OSError, ValueError) as e:
        bad = [str(e)]
    if bad is None:
        return
    report_line(not bad, name, variant, "; ".join(bad))


def run(argv, cwd=None, stdin=None, env=None, timeout=TIMEOUT):
    """Runs argv in its own session; returns (rc, stdout, stderr) with rc
    like a shell's wait status (-N when killed by signal N), or raises
    RuntimeError on timeout after killing the whole process group. The
    timeout is a hang detector: on a machine whose load is over its CPUs
    it grows in proportion (longjmp [all+recal], 7.5 s of CPU, took 75-98
    s at load 14 on 2 CPUs), so that only a run that does not end fails."""
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    timeout = int(timeout * max(1.0, load))
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE,
                         stdin=open(stdin, "rb") if stdin else subprocess.DEVNULL,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.communicate()
        raise RuntimeError("timed out after %ds: %s" % (timeout, " ".join(argv)))
    return p.returncode, out, err


# ---- expected rows ----------------------------------------------------------

def parse_expect(path):
    rows = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 4:
                raise ValueError("%s:%d: want 'caller callee api count'" % (path, ln))
            rows.append(tuple(line))
    return rows


def match(pat, name):
    if any(c in pat for c in "*?["):
        return fnmatch.fnmatchcase(name, pat)
    return pat == name


def check_rows(report, rows):
    """Returns a list of mismatch descriptions for the expected rows (an api
    names a call by its demangled name or its linked symbol)."""
    bad = []
    for caller, callee, api, want in rows:
        got = 0
        seen = False
        for c in report.get("calls", []):
            if match(caller, c["caller"]) and match(callee, c["callee"]) and \
                    (match(api, c["api"]) or match(api, c.get("symbol", c["api"]))):
                got += c["count"]
                seen = True
        if want.startswith(">="):
            ok = got >= int(want[2:])
        elif want.startswith(">"):
            ok = got > int(want[1:])
        elif want == "0":
            ok = not seen
        else:
            ok = got == int(want)
        if not ok:
            bad.append("%s->%s %s: want %s, got %s" %
                       (caller, callee, api, want, got if seen else "no row"))
    return bad


# ---- the JSON report ----------------------------------------------------------

def check_shape(report, timing):
    """The report's format, version, timing and keys, and its top-level
    call rows equal to the per-process rows summed."""
    bad = []
    if report.get("format") != "scaler-report" or report.get("version") != 1:
        bad.append("format/version is %r/%r" % (report.get("format"), report.get("version")))
    if timing and report.get("timing") != timing:
        bad.append("timing is %r, want %r" % (report.get("timing"), timing))
    for key in ("components", "calls", "processes"):
        if not isinstance(report.get(key), list):
            bad.append("no %s list" % key)
    if bad:
        return bad
    for c in report["calls"]:
        for k in ("caller", "callee", "api", "count", "total_ns", "self_ns"):
            if k not in c:
                return ["call row without %s: %r" % (k, c)]
    for c in report["components"]:
        for k in ("name", "path", "total_ns", "self_ns"):
            if k not in c:
                return ["component without %s: %r" % (k, c)]
    if not report["processes"]:
        bad.append("no processes")
        return bad
    total = {}
    for p in report["processes"]:
        for c in p.get("calls", []):
            k = (c["caller"], c["callee"], c["api"])
            total[k] = total.get(k, 0) + c["count"]
    top = {}
    for c in report["calls"]:
        k = (c["caller"], c["callee"], c["api"])
        top[k] = top.get(k, 0) + c["count"]
    diff = [k for k in set(top) | set(total) if top.get(k, 0) != total.get(k, 0)]
    if diff:
        k = sorted(diff)[0]
        bad.append("%d rows differ between calls and the sum over processes, e.g. %s: %s vs %s"
                   % (len(diff), " ".join(k), top.get(k), total.get(k)))
    return bad


def root_process(rep):
    """The process scaler record started, as the report finds it: the one
    whose parent is not in the profile (pids wrap around, so not the lowest
    pid), its first image; {} for an empty profile."""
    procs = rep["processes"]
    pids = {p["pid"] for p in procs}
    roots = [p for p in procs if p["ppid"] not in pids] or procs
    return min(roots, key=lambda p: p.get("gen", 0)) if roots else {}


def call_key(c):
    return (c["caller"], c["callee"], c["api"])


def report_cmd(scaler, prof, *args, env=None):
    """scaler report -i prof ARGS; returns (rc, stdout text, stderr text)."""
    rc, out, err = run([scaler, "report", "-i", prof] + list(args), env=env)
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def report_json_of(scaler, prof, *args):
    """The JSON report of prof with ARGS; raises ValueError if it fails."""
    rc, out, err = report_cmd(scaler, prof, "--format", "json", *args)
    if rc != 0:
        raise ValueError("report %s exited %d: %s" % (" ".join(args), rc, err[:200]))
    return json.loads(out)


def diff_findings(scaler, base, new):
    """The findings of `scaler diff --format json BASE NEW`; raises
    ValueError if it fails."""
    rc, out, err = run([scaler, "diff", "--format", "json", base, new])
    if rc != 0:
        raise ValueError("diff %s %s exited %d: %s" % (base, new, rc, err[-200:]))
    return json.loads(out)["findings"]


def significant(findings):
    """(caller, api, pattern) of the significant findings."""
    return [(x["caller"], x["api"], x["pattern"]) for x in findings if x["significant"]]


# ---- recording ------------------------------------------------------------------

def timing_env(timing):
    """A timing of the form "MODE+recal" is MODE with the cost of timing
    re-measured on nearly every timed return (SCALER_RECAL=1 us) instead of
    every 10 ms: it runs the re-measuring from the return trampoline in every
    situation a test program makes. Returns (mode, environment)."""
    if timing and timing.endswith("+recal"):
        return timing[:-len("+recal")], dict(os.environ, SCALER_RECAL="1")
    return timing, None


def check_recal(rep):
    """Under "+recal": the re-measuring ran (more measurements than the
    threads' start-up figures) and its figures are sane."""
    root = root_process(rep)
    cost = root.get("timing_cost", {})
    calls = sum(c["count"] for c in root.get("calls", []))
    n = cost.get("measurements", 0)
    if calls >= 20 and n <= len(root.get("threads", [])):
        return ["%d calls but only %d cost measurements" % (calls, n)]
    if n and not 0 <= cost["min_ns"] <= cost["mean_ns"] <= cost["max_ns"] < 10000:
        return ["cost of timing figures %r" % (cost,)]
    return []


def record(scaler, argv, outdir, cwd=None, stdin=None, timing=None):
    """scaler record + report; returns (rc, stdout, stderr, report-or-None,
    problems)."""
    cmd = [scaler, "record", "-o", outdir]
    timing, env = timing_env(timing)
    if timing:
        cmd.append("--timing=" + timing)
    rc, out, err = run(cmd + ["--"] + argv, cwd=cwd, stdin=stdin, env=env)
    rrc, rout, rerr = run([scaler, "report", "-i", outdir, "--format", "json"])
    if rrc != 0:
        return rc, out, err, None, ["report exited %d: %s" % (rrc, rerr.decode(errors="replace")[:300])]
    try:
        rep = json.loads(rout)
    except ValueError as e:
        return rc, out, err, None, ["report is not JSON: %s" % e]
    return rc, out, err, rep, check_shape(rep, timing or "adaptive")


def record_json(scaler, out, cmd):
    """Records cmd into out and returns (problems, report as JSON)."""
    rc, _, err = run([scaler, "record", "-o", out, "--"] + cmd)
    rc2, rep, err2 = run([scaler, "report", "-i", out, "--format", "json"])
    if rc != 0 or rc2 != 0:
        return ["record %d / report %d: %s" % (rc, rc2, (err + err2)[-200:])], None
    return [], json.loads(rep)


def first_diff(a, b):
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<eof>"
        y = lb[i] if i < len(lb) else "<eof>"
        if x != y:
            return "line %d: without %r, with %r" % (i + 1, x[:120], y[:120])
    return "?"


def compare_run(scaler, argv, rows, tmp, cwd_factory=None, stdin=None, timing=None,
                extra=None):
    """Runs argv natively and under scaler: the same exit status and stdout,
    a well-formed report holding the expected rows, and extra(report)'s
    problems if given; returns a list of problems."""
    cwd = cwd_factory() if cwd_factory else None
    nrc, nout, nerr = run(argv, cwd=cwd, stdin=stdin)
    cwd = cwd_factory() if cwd_factory else None
    prof = os.path.join(tempfile.mkdtemp(dir=tmp), "prof")
    rc, out, err, rep, bad = record(scaler, argv, prof, cwd=cwd,
                                    stdin=stdin, timing=timing)
    if rep is not None and timing and timing.endswith("+recal"):
        bad += check_recal(rep)
    want_rc = nrc if nrc >= 0 else 128 - nrc
    if rc != want_rc:
        bad.append("exit status %d under scaler, %d without (stderr: %s)" %
                   (rc, want_rc, err.decode(errors="replace")[-300:]))
    if out != nout:
        bad.append("stdout differs: " + first_diff(nout, out))
    if rep is not None:
        bad += check_rows(rep, rows)
        root = root_process(rep)
        if "exit_status" in root and root["exit_status"] != want_rc:
            bad.append("root process exit_status %r, want %d" % (root["exit_status"], want_rc))
        if extra:
            bad += extra(rep)
    return bad


def fresh_dirs(tmp, prefix):
    """A cwd_factory: a new empty directory under tmp for each run."""
    n = [0]

    def fresh():
        n[0] += 1
        d = os.path.join(tmp, "%s%d" % (prefix, n[0]))
        os.mkdir(d)
        return d
    return fresh


# ---- what a check module gets ------------------------------------------------------

class Run:
    """One run of check.py, handed to every check module's checks(t):
    t.scaler (absolute path), t.mode ("e2e" or "real"), t.variant and
    t.bindir (e2e: the linking variant and the directory of its programs,
    sc_<prog>), t.tmp (an empty directory of the module's own, removed when
    the run ends), t.only (check.py --only NAMES, or None)."""

    def __init__(self, mode, scaler, top, bindir=None, variant=None, only=None):
        self.mode, self.scaler, self.top = mode, scaler, top
        self.bindir, self.variant, self.only = bindir, variant, only
        self.tmp = None
        self._profiles = {}

    def exe(self, prog):
        """The e2e program sc_<prog> of this variant."""
        return os.path.join(self.bindir, "sc_" + prog)

    def record_program(self, prog, timing=None):
        """Records sc_<prog> into a temporary directory (gone when this
        returns) and reads its report: (problems, report JSON, the
        program's stderr)."""
        tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
        timing, env = timing_env(timing)
        try:
            out = os.path.join(tmp, "d")
            rc, _, err = run([self.scaler, "record", "-o", out] +
                             (["--timing=" + timing] if timing else []) +
                             ["--", self.exe(prog)], env=env)
            rc2, rep, err2 = run([self.scaler, "report", "-i", out, "--format", "json"])
            if rc != 0 or rc2 != 0:
                return ["record %d / report %d: %s" % (rc, rc2, (err + err2)[-300:])], None, err
            return [], json.loads(rep), err
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def profile(self, prog):
        """A profile of sc_<prog> (default timing) recorded once per run and
        shared by the checks that only read it (the report views); raises
        RuntimeError, which fails the asking check, if it cannot be made."""
        if prog not in self._profiles:
            prof = os.path.join(self.top, "profile-" + prog)
            bad, _ = record_json(self.scaler, prof, [self.exe(prog)])
            self._profiles[prog] = (prof, bad)
        prof, bad = self._profiles[prog]
        if bad:
            raise RuntimeError("recording sc_%s: %s" % (prog, "; ".join(bad)))
        return prof
