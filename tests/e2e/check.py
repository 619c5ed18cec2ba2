#!/usr/bin/env python3
"""check.py - end-to-end checks of scaler: runs programs with and without
`scaler record`, reads `scaler report --format json` and compares.

    check.py e2e  --scaler BIN --bin DIR --variant V   the test programs of
                  one linking variant (built by build.sh into DIR/V)
    check.py real --scaler BIN                         real programs (python3,
                  sqlite3, git) and the CLI's exit-status / error behaviour

Prints one line per check: "PASS name [variant]", "FAIL name [variant]:
reason" or "SKIP name: reason". Exits 1 if any check failed. Only stdlib.

Expectation files (tests/e2e/<prog>/expect) hold rows "caller callee api
count"; '#' starts a comment. count is N (exact), 0 (the row must not
appear), ">0" or ">=N". Names may be fnmatch patterns (counts of all
matching rows are summed).
"""
import argparse
import csv
import fnmatch
import html.parser
import io
import json
import os
import pty
import re
import struct
import zlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 60
PROGRAMS = ["analysis", "nest", "sample", "inflight", "basic", "dl", "reload", "dlrace", "longjmp", "cppcb", "interpose", "coro", "spawn", "daemon", "sigdef", "bt", "imbalance", "abi", "threads", "cpp", "fork", "thrlife", "exec", "sighand", "tail", "gdbbt", "repoint"]

failures = 0


def report_line(ok, name, variant=None, reason=""):
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
    print("SKIP %s: %s" % (name, reason), flush=True)


def run(argv, cwd=None, stdin=None, env=None, timeout=TIMEOUT):
    """Runs argv in its own session; returns (rc, stdout, stderr) with rc
    like a shell's wait status (-N when killed by signal N), or raises
    RuntimeError on timeout after killing the whole process group."""
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
    """Returns a list of mismatch descriptions for the expected rows."""
    bad = []
    for caller, callee, api, want in rows:
        got = 0
        seen = False
        for c in report.get("calls", []):
            if match(caller, c["caller"]) and match(callee, c["callee"]) and match(api, c["api"]):
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


def check_shape(report, timing):
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
    # the top-level rows are the per-process rows summed
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


def first_diff(a, b):
    la, lb = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<eof>"
        y = lb[i] if i < len(lb) else "<eof>"
        if x != y:
            return "line %d: without %r, with %r" % (i + 1, x[:120], y[:120])
    return "?"


def root_process(rep):
    """The process scaler record started, as the report finds it: the one
    whose parent is not in the profile (pids wrap around, so not the lowest
    pid), its first image; {} for an empty profile."""
    procs = rep["processes"]
    pids = {p["pid"] for p in procs}
    roots = [p for p in procs if p["ppid"] not in pids] or procs
    return min(roots, key=lambda p: p.get("gen", 0)) if roots else {}


def compare_run(scaler, argv, rows, tmp, cwd_factory=None, stdin=None, timing=None,
                extra=None):
    """Runs argv natively and under scaler; returns a list of problems."""
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


def guarded(name, variant, fn):
    """Runs one check, turning exceptions (timeouts) into a FAIL line."""
    try:
        bad = fn()
    except (RuntimeError, OSError, ValueError) as e:
        bad = [str(e)]
    if bad is None:
        return
    report_line(not bad, name, variant, "; ".join(bad))


# ---- e2e test programs ---------------------------------------------------

def thread_records(want):
    """An `extra` check: exactly `want` thread records, unique by (pid, gen,
    seq) however the kernel reused tids."""
    def check(rep):
        keys = [(t["pid"], t.get("gen"), t.get("seq")) for t in rep.get("threads", [])]
        if len(keys) != want or len(set(keys)) != want:
            return ["%d thread records (%d unique), want %d" % (len(keys), len(set(keys)), want)]
        return []
    return check


# per-program checks beyond the expect rows
EXTRA = {"thrlife": thread_records(1008)}


def cmd_e2e(a):
    bindir = os.path.join(a.bin, a.variant)
    progs = [p for p in (a.only or PROGRAMS) if p in PROGRAMS]
    for prog in progs:
        exe = os.path.join(bindir, "sc_" + prog)
        rows = parse_expect(os.path.join(HERE, prog, "expect"))
        # every call timed stresses the full interceptor path (x87 results,
        # unwinding through timed frames), and re-measuring the cost of
        # timing on nearly every return its slowest part; "none" the
        # counting-only path
        timings = [None]
        if a.variant == "lazy":
            timings += ["all", "all+recal"] + (["none"] if prog == "basic" else [])
        for timing in timings:
            variant = a.variant + (",timing=" + timing if timing else "")

            def one():
                if not os.access(exe, os.X_OK):
                    return ["not built: %s" % exe]
                tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
                try:
                    return compare_run(a.scaler, [exe], rows, tmp, timing=timing,
                                       extra=EXTRA.get(prog))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            guarded(prog, variant, one)
    if not a.only or "gdbbt" in a.only:
        guarded("gdb-backtrace", a.variant, lambda: check_gdb(a, bindir))
    if not a.only or "killtree" in a.only:
        guarded("killtree", a.variant, lambda: check_killtree(a, bindir))
    if a.variant == "lazy" and (not a.only or "imbalance" in a.only):
        guarded("imbalance-flag", a.variant, lambda: check_imbalance(a, bindir))
    if a.variant == "lazy" and (not a.only or "report" in a.only):
        report_views(a, bindir)
    if a.variant == "lazy" and (not a.only or "analysis" in a.only):
        for timing in ("adaptive", "all", "all+recal"):
            guarded("analysis-figures", a.variant + ",timing=" + timing,
                    lambda: check_analysis(a, bindir, timing))
    if a.variant == "lazy" and (not a.only or "inflight" in a.only):
        guarded("inflight-figures", a.variant, lambda: check_inflight(a, bindir))
    if a.variant == "lazy" and (not a.only or "sample" in a.only):
        for timing in ("adaptive", "all", "none"):
            guarded("sample-timed", a.variant + ",timing=" + timing,
                    lambda: check_sample(a, bindir, timing))
    if a.variant == "lazy" and (not a.only or "nest" in a.only):
        for timing in ("adaptive", "all", "all+recal"):
            guarded("nest-figures", a.variant + ",timing=" + timing,
                    lambda: check_nest(a, bindir, timing))


def record_program(a, bindir, prog, timing=None):
    """Records the e2e program sc_<prog> into a temporary directory (gone
    when this returns) and reads its report: (problems, report JSON, the
    program's stderr)."""
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    timing, env = timing_env(timing)
    try:
        out = os.path.join(tmp, "d")
        rc, _, err = run([a.scaler, "record", "-o", out] +
                         (["--timing=" + timing] if timing else []) +
                         ["--", os.path.join(bindir, "sc_" + prog)], env=env)
        rc2, rep, err2 = run([a.scaler, "report", "-i", out, "--format", "json"])
        if rc != 0 or rc2 != 0:
            return ["record %d / report %d: %s" % (rc, rc2, (err + err2)[-300:])], None, err
        return [], json.loads(rep), err
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_inflight(a, bindir):
    """Calls still in flight when the process ends are booked to the end:
    ev_loop (never returns) spans the calls made inside it, pause (blocked
    at the end) is Wait of ~250 ms, and the worker thread is mostly Wait."""
    bad, d, _ = record_program(a, bindir, "inflight")
    if bad:
        return bad
    calls = {(c["caller"], c["api"]): c for c in d["calls"]}
    loop = calls.get(("sc_inflight", "ev_loop"))
    pause = calls.get(("libsc_ev.so", "pause"))
    inner = sum(c["total_ns"] for c in d["calls"] if c["caller"] == "libsc_ev.so")
    bad = []
    if not loop or loop["total_ns"] < 0.95 * inner or loop["total_ns"] < 250e6:
        bad.append("ev_loop %r, calls inside it %d ns" % (loop, inner))
    if not pause or not pause["wait"] or not 150e6 <= pause["wait_ns"] <= 400e6:
        bad.append("pause %r" % (pause,))
    workers = [t for t in d["threads"] if t["start_routine"] != "main"]
    if len(workers) != 1 or workers[0]["wait_ns"] < 0.8 * workers[0]["wall_ns"]:
        bad.append("worker thread %r" % (workers,))
    return bad


def check_nest(a, bindir, timing):
    """libstdc++-heavy loop: the program's calls into libstdc++ lose from
    their exclusive time exactly what libstdc++ spends calling out (within
    10 %), and _M_insert<double>, the only caller of vsnprintf, has at
    least vsnprintf's time nested in it (80 %: vsnprintf is its bulk; 70 %
    under adaptive timing, where the two are separate estimates from ~400
    sampled calls each, and a sample that meets a preemption of this
    shared machine stands for up to 127 calls: a run came out at 79 %)."""
    bad, d, _ = record_program(a, bindir, "nest", timing)
    if bad:
        return bad
    std = [c for c in d["calls"] if c["callee"].startswith("libstdc++")
           and c["caller"] == "sc_nest"]
    out = sum(c["total_ns"] for c in d["calls"] if c["caller"].startswith("libstdc++"))
    nested = sum(c["total_ns"] - c["self_ns"] for c in std)
    bad = []
    if any(c["self_ns"] > c["total_ns"] or c["self_ns"] < 0 for c in d["calls"]):
        bad.append("a call with exclusive time outside [0, inclusive]")
    if not out or abs(nested - out) > 0.10 * out:
        bad.append("nested in libstdc++ calls %.1f ms, libstdc++ calls out %.1f ms" %
                   (nested / 1e6, out / 1e6))
    ins = [c for c in std if c["api"] == "_ZNSo9_M_insertIdEERSoT_"]
    vs = [c for c in d["calls"] if c["api"] == "vsnprintf"
          and c["caller"].startswith("libstdc++")]
    least = 0.7 if timing in (None, "adaptive") else 0.8
    if not ins or not vs or ins[0]["total_ns"] - ins[0]["self_ns"] < least * vs[0]["total_ns"]:
        bad.append("_M_insert<double> %r vs vsnprintf %r" % (ins[:1], vs[:1]))
    return bad


def check_sample(a, bindir, timing):
    """The calls each timing mode measured (the report's `timed`): all of
    them in `all`, none in `none`. Under adaptive timing the empty
    smp_cheap's period grows to 127 (a mean span of 127 calls: at most
    1 in 50 timed, which leaves room for periods reset by preempted calls),
    while smp_mid (0.3-1 us a call) stops at 3 or 7, where period x mean
    reaches the 1.25 us budget: at least 1 in 12 of its calls timed
    (without the budget it was 1 in ~127, the sampling error of its
    estimate ~3x larger)."""
    bad, d, _ = record_program(a, bindir, "sample", timing)
    if bad:
        return bad
    calls = {c["api"]: c for c in d["calls"] if c["caller"] == "sc_sample"}
    cheap, mid = calls.get("smp_cheap"), calls.get("smp_mid")
    if not cheap or not mid or cheap["count"] != 1000000 or mid["count"] != 100000:
        return ["rows %r %r" % (cheap, mid)]
    if timing == "all":
        want = {"smp_cheap": (1000000, 1000000), "smp_mid": (100000, 100000)}
    elif timing == "none":
        want = {"smp_cheap": (0, 0), "smp_mid": (0, 0)}
    else:
        want = {"smp_cheap": (1, 1000000 // 50), "smp_mid": (100000 // 12, 100000)}
    bad = []
    for api, (lo, hi) in want.items():
        if not lo <= calls[api]["timed"] <= hi:
            bad.append("%s: %d of %d calls timed, want %d..%d" %
                       (api, calls[api]["timed"], calls[api]["count"], lo, hi))
    # per call, smp_mid is ~150x smp_cheap (400 vs 2.6 ns measured, the
    # latter off by the few ns timing an empty function can be off by);
    # 5x leaves room for one preempted sample of smp_cheap weighted by
    # its span (under 1 ms, the outlier rule keeps its weight)
    if timing != "none" and not mid["total_ns"] / 1e5 > 5 * cheap["total_ns"] / 1e6:
        bad.append("smp_mid %d ns a call vs smp_cheap %.1f ns" %
                   (mid["total_ns"] / 1e5, cheap["total_ns"] / 1e6))
    return bad


def check_analysis(a, bindir, timing):
    """The report's Wait, nesting and serial/parallel figures against the
    truth the program measures itself (stderr name=us lines), within 10 %:
    usleep Wait, pthread_mutex_lock Wait (blocked), an_outer inclusive and
    exclusive, an_many inclusive (2000 timed calls nested in it: none of
    their timing's cost, nor of re-measuring it), an_serial attributed =
    raw, an_parallel attributed = the span of the parallel phase (its raw
    time is the sum of the calls); p50 of usleep within the 5 ms sleeps'
    reach; Wait calls add no critical time."""
    bad, d, err = record_program(a, bindir, "analysis", timing)
    if bad:
        return bad
    truth = {}
    for line in err.decode(errors="replace").splitlines():
        k, eq, v = line.partition("=")
        if eq and k.endswith("_us"):
            truth[k] = int(v) * 1000
    calls = {(c["caller"], c["callee"], c["api"]): c for c in d["calls"]}
    exe, lib = "sc_analysis", "libsc_an.so"
    bad = []

    def near(what, got, want, tol=0.10):
        if not want or abs(got - want) > tol * want:
            bad.append("%s: %.1f ms, truth %.1f ms" % (what, got / 1e6, (want or 0) / 1e6))
    try:
        us = calls[(exe, "libc.so.6", "usleep")]
        lock = calls[(exe, "libc.so.6", "pthread_mutex_lock")]
        outer = calls[(exe, lib, "an_outer")]
        many = calls[(exe, lib, "an_many")]
        ser = calls[(exe, lib, "an_serial")]
        par = calls[(exe, lib, "an_parallel")]
        join = calls[(exe, "libc.so.6", "pthread_join")]
    except KeyError as e:
        return ["no call row %s" % (e,)]
    near("usleep Wait", us["wait_ns"], truth.get("sleep_us"))
    if not us["wait"]:
        bad.append("usleep not flagged as Wait")
    near("pthread_mutex_lock Wait", lock["wait_ns"], truth.get("lock_wait_us"))
    near("an_outer inclusive", outer["total_ns"], truth.get("outer_incl_us"))
    near("an_outer exclusive", outer["self_ns"], truth.get("outer_self_us"))
    near("an_many inclusive", many["total_ns"], truth.get("many_us"))
    near("an_serial attributed", ser["attr_ns"], truth.get("serial_us"))
    near("an_parallel attributed", par["attr_ns"], truth.get("parallel_span_us"))
    # raw is the sum of the four calls, attributed their union: the
    # first is always larger (4x when they overlap fully)
    if par["total_ns"] <= par["attr_ns"]:
        bad.append("an_parallel raw %d ns not above its attributed %d ns" %
                   (par["total_ns"], par["attr_ns"]))
    if not 4e6 <= us["p50_ns"] <= 8.4e6 or us["p99_ns"] < us["p50_ns"] or \
            us["max_ns"] < us["p99_ns"]:
        bad.append("usleep p50 %d p99 %d max %d" % (us["p50_ns"], us["p99_ns"], us["max_ns"]))
    if sum(n for b in us["hist"] for n in b[2:]) != 20:
        bad.append("usleep histogram does not hold 20 calls: %r" % us["hist"])
    if join["attr_ns"] != 0 or us["attr_ns"] != 0:
        bad.append("a Wait has attributed time")
    return bad


def check_gdb(a, bindir):
    """gdb, with scripts/scaler-gdb.py, stopped inside a timed call: the
    backtrace passes the trampoline (a libscaler.so frame) and reaches
    main."""
    gdb = shutil.which("gdb")
    if not gdb:
        return skip("gdb-backtrace", "gdb not installed")
    lib = os.path.join(os.path.dirname(os.path.dirname(a.scaler)), "lib", "libscaler.so")
    script = os.path.join(os.path.dirname(os.path.dirname(HERE)), "scripts", "scaler-gdb.py")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    try:
        rc, out, err = run([gdb, "-nx", "-batch", "-x", script,
                            "-ex", "set startup-with-shell off",
                            "-ex", "set env LD_PRELOAD=" + lib,
                            "-ex", "set env SCALER_DIR=" + tmp,
                            "-ex", "break stop_here", "-ex", "run", "-ex", "bt",
                            "-ex", "kill", os.path.join(bindir, "sc_gdbbt")])
        text = out.decode(errors="replace")
        frames = [l for l in text.splitlines() if l.startswith("#")]
        if not frames and "ptrace" in err.decode(errors="replace"):
            return skip("gdb-backtrace", "gdb cannot trace here: %s" % err.decode(errors="replace")[-100:])
        # the runtime's frame: named by its symbol (debug info) or library
        tramp = [i for i, l in enumerate(frames)
                 if "sc_return_trampoline" in l or "libscaler.so" in l]
        main = [i for i, l in enumerate(frames) if " main (" in l]
        if not tramp or not main or main[0] < tramp[0] or "stop_here" not in frames[0]:
            return ["backtrace does not pass the trampoline to main: %r (stderr %r)"
                    % (frames, err[-200:])]
        return []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_killtree(a, bindir):
    """SIGKILL of a parent and its two fork children, each blocked after
    exactly 1000 b_mul calls: every process is in the report with its 1000
    calls, and scaler record exits 137."""
    rows = parse_expect(os.path.join(HERE, "killtree", "expect"))
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    out = os.path.join(tmp, "d")
    p = subprocess.Popen([a.scaler, "record", "-o", out, "--",
                          os.path.join(bindir, "sc_killtree")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    watchdog = threading.Timer(TIMEOUT, lambda: os.killpg(p.pid, signal.SIGKILL))
    watchdog.start()
    try:
        line = p.stdout.readline().decode(errors="replace").split()
        if len(line) != 4 or line[0] != "ready":
            return ["no ready line: %r" % line]
        pids = [int(x) for x in line[1:]]
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        rc = p.wait()
        _, err = p.communicate()
        bad = [] if rc == 137 else ["scaler record exited %d, want 137 (%s)" % (rc, err[-200:])]
        rrc, rout, rerr = run([a.scaler, "report", "-i", out, "--format", "json"])
        if rrc != 0:
            return bad + ["report exited %d: %s" % (rrc, rerr[-200:])]
        rep = json.loads(rout)
        bad += check_rows(rep, rows)
        got = {}
        for pr in rep["processes"]:
            got[pr["pid"]] = sum(c["count"] for c in pr.get("calls", []) if c["api"] == "b_mul")
        if sorted(got) != sorted(pids) or any(got[pid] != 1000 for pid in pids):
            bad.append("b_mul per process %r, want 1000 in each of %r" % (got, pids))
        return bad
    finally:
        watchdog.cancel()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def check_imbalance(a, bindir):
    """The fast stage (waiting at the barrier) is flagged, the slow one and
    main are not; effective time per slow thread is well above a fast one's."""
    bad, d, _ = record_program(a, bindir, "imbalance")
    if bad:
        return bad
    groups = d["thread_groups"]
    flagged = sorted((g["effective_ns"] // g["threads"], g["imbalance"]) for g in groups
                     if g["start_routine"] != "main" and g["threads"] == 2)
    mains = [g for g in groups if g["start_routine"] == "main"]
    if len(flagged) != 2 or flagged[0][1] is not True or flagged[1][1] is not False \
            or flagged[1][0] < 2 * flagged[0][0] or not mains or mains[0]["imbalance"]:
        return ["thread groups %r" % groups]
    return []


def report_cmd(scaler, prof, *args, env=None):
    """scaler report -i prof ARGS; returns (rc, stdout text, stderr text)."""
    rc, out, err = run([scaler, "report", "-i", prof] + list(args), env=env)
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def report_json_of(scaler, prof, *args):
    rc, out, err = report_cmd(scaler, prof, "--format", "json", *args)
    if rc != 0:
        raise ValueError("report %s exited %d: %s" % (" ".join(args), rc, err[:200]))
    return json.loads(out)


def call_key(c):
    return (c["caller"], c["callee"], c["api"])


CSV_INT = ("count", "timed", "total_ns", "self_ns", "wait_ns", "attr_ns", "p50_ns", "p99_ns", "max_ns")


def check_report_errors(scaler, prof):
    """Bad options: one 'scaler:' line on stderr, nothing on stdout, exit 2."""
    bad = []
    cases = [
        (["--format", "xml"], "unknown format"),
        (["--sort", "bogus"], "sort"),
        (["--sort"], "needs an argument"),
        (["--min-percent", "abc"], "min-percent"),
        (["--min-percent", "101"], "min-percent"),
        (["--color=sometimes"], "color"),
        (["--pid", "4294967295"], "no process"),
        (["--pid", "12x"], "process id"),
        (["--component", "no-such.so"], "components:"),
        (["--bogus"], "unknown option"),
        (["extra-arg"], "unexpected argument"),
    ]
    for args, want in cases:
        rc, out, err = report_cmd(scaler, prof, *args)
        lines = err.splitlines()
        if rc != 2 or out or len(lines) != 1 or not lines[0].startswith("scaler:") \
                or want not in lines[0]:
            bad.append("%s: exit %d, stdout %r, stderr %r" % (" ".join(args), rc, out[:80], err[:200]))
    # the component error lists the components there are
    rc, _, err = report_cmd(scaler, prof, "--component", "no-such.so")
    if "libc.so.6" not in err:
        bad.append("--component error does not list the components: %r" % err[:200])
    return bad


def check_report_csv(scaler, prof):
    """CSV parses with the csv module; its rows are the JSON calls."""
    rc, out, err = report_cmd(scaler, prof, "--format", "csv")
    if rc != 0:
        return ["csv exited %d: %s" % (rc, err[:200])]
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    calls = report_json_of(scaler, prof)["calls"]
    if len(rows) != len(calls) or not rows:
        return ["%d CSV rows, %d JSON calls" % (len(rows), len(calls))]
    for row, c in zip(rows, calls):
        got = dict(row)
        got.update({k: int(row[k]) for k in CSV_INT})
        got["wait"] = {"true": True, "false": False}.get(row["wait"], row["wait"])
        want = {k: v for k, v in c.items() if k != "hist"}
        if got != want:
            return ["CSV row %r != JSON call %r" % (got, want)]
    return []


def check_report_filters(scaler, prof, mp_prof):
    bad = []
    full = report_json_of(scaler, prof)
    # --component: its rows only, in both directions
    comp = "libc.so.6"
    d = report_json_of(scaler, prof, "--component", comp)
    want = sorted(call_key(c) for c in full["calls"] if comp in (c["caller"], c["callee"]))
    got = sorted(call_key(c) for c in d["calls"])
    if got != want or [c["name"] for c in d["components"]] != [comp]:
        bad.append("--component %s: calls %r, components %r" % (comp, got[:5], d["components"]))
    rc, text, _ = report_cmd(scaler, prof, "--component", comp)
    if rc != 0 or ("CALLS FROM %s" % comp) not in text or "\n  %s:" % comp not in text:
        bad.append("--component text: %r" % text[-400:])
    others = [c["name"] for c in full["components"] if c["name"] != comp]
    if any("\n  %s:" % o in text for o in others):
        bad.append("--component text shows other components' API views")
    # --min-percent: rows under P % of all threads' time go
    total = sum(t["wall_ns"] for t in full["threads"])
    d = report_json_of(scaler, prof, "--min-percent", "10")
    want = sorted(call_key(c) for c in full["calls"] if c["total_ns"] * 100 >= 10 * total)
    got = sorted(call_key(c) for c in d["calls"])
    if got != want or not got:
        bad.append("--min-percent 10: %r, want %r" % (got, want))
    # --sort
    for key, order in (("count", lambda c: -c["count"]), ("name", lambda c: c["api"]),
                       ("self", lambda c: -c["self_ns"])):
        d = report_json_of(scaler, prof, "--sort", key)
        vals = [order(c) for c in d["calls"]]
        if vals != sorted(vals) or len(d["calls"]) != len(full["calls"]):
            bad.append("--sort %s: not in order: %r" % (key, vals[:8]))
    # --pid: one process's numbers
    mp = report_json_of(scaler, mp_prof)
    if len(mp["processes"]) < 2:
        bad.append("want several processes, got %d" % len(mp["processes"]))
    for p in mp["processes"]:
        sel = "%d.%d" % (p["pid"], p["gen"]) if p["gen"] else str(p["pid"])
        d = report_json_of(scaler, mp_prof, "--pid", sel)
        if [q["pid"] for q in d["processes"]] != [p["pid"]] or \
                sorted((call_key(c), c["count"]) for c in d["calls"]) != \
                sorted((call_key(c), c["count"]) for c in p["calls"]) or \
                any(t["pid"] != p["pid"] for t in d["threads"]):
            bad.append("--pid %s: processes %r" % (sel, [q["pid"] for q in d["processes"]]))
    rc, text, _ = report_cmd(scaler, mp_prof)
    for p in mp["processes"]:
        line = [ln for ln in text.splitlines() if ln.split()[:2] == [str(p["pid"]), str(p["ppid"])]]
        if not line:
            bad.append("process list has no line for pid %d ppid %d" % (p["pid"], p["ppid"]))
    return bad


def check_report_text(scaler, prof, routine_fast, routine_slow):
    """--threads, colour, -o, 120 columns."""
    bad = []
    rc, text, err = report_cmd(scaler, prof, "--threads")
    if rc != 0:
        return ["--threads exited %d: %s" % (rc, err[:200])]
    flat = " ".join(text.split())
    for want in ("THREADS (effective", "THREAD GROUPS", "threads of %s finish their work in half "
                 "the time of %s's" % (routine_fast, routine_slow), "rebalance the stages"):
        if want not in flat:
            bad.append("--threads text lacks %r" % want)
    wide = [ln for ln in text.splitlines() if len(ln) > 130]
    if wide:
        bad.append("%d lines over 130 columns, e.g. %r" % (len(wide), wide[0]))
    if "\x1b[" in text:
        bad.append("colour escapes in output to a pipe")
    env = dict(os.environ, NO_COLOR="1")
    if "\x1b[" not in report_cmd(scaler, prof, "--color=always", env=env)[1]:
        bad.append("--color=always has no colour")
    if "\x1b[" in report_cmd(scaler, prof, "--color=never")[1]:
        bad.append("--color=never has colour")
    # auto: colour on a terminal, unless NO_COLOR is set
    for no_color, want in ((None, True), ("1", False)):
        e = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        if no_color:
            e["NO_COLOR"] = no_color
        master, slave = pty.openpty()
        p = subprocess.Popen([scaler, "report", "-i", prof], stdout=slave,
                             stderr=subprocess.DEVNULL, env=e)
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:
                break
            if not b:
                break
            chunks.append(b)
        p.wait(timeout=TIMEOUT)
        os.close(master)
        got = b"\x1b[" in b"".join(chunks)
        if got != want:
            bad.append("on a terminal with NO_COLOR=%r: colour %s" % (no_color, got))
    # -o FILE: the same bytes, nothing on stdout
    out = os.path.join(os.path.dirname(prof), "out.txt")
    rc, sout, _ = report_cmd(scaler, prof, "--threads", "-o", out)
    if rc != 0 or sout or open(out, encoding="utf-8").read() != text:
        bad.append("-o FILE: exit %d, stdout %r, file differs" % (rc, sout[:80]))
    return bad


class HtmlCheck(html.parser.HTMLParser):
    """Well-formedness (every element closed in order), text, titles,
    attributes of interest."""
    VOID = {"meta", "br", "img", "hr", "input", "link", "rect", "circle", "line", "path"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.titles = [], [], [], []
        self.rect_fills, self.scripts, self.ids = [], 0, set()
        self.in_chart = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if a.get("title"):
            self.titles.append(a["title"])
        for k, v in attrs:
            if k in ("src", "href") or (v and ("http:" in v or "https:" in v) and k != "xmlns"):
                self.errors.append("external reference %s=%r" % (k, v))
        if tag == "svg" and a.get("id") == "component-chart":
            self.in_chart = 1
        if tag == "rect" and self.in_chart and float(a.get("width", "0")) >= 4:
            self.rect_fills.append(a.get("fill"))
        if tag == "script":
            self.scripts += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in self.VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if tag == "svg":
            self.in_chart = 0
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse_html(text):
    h = HtmlCheck()
    h.feed(text)
    h.close()
    if h.stack:
        h.errors.append("unclosed %r" % h.stack)
    h.alltext = "".join(h.text)
    return h


def check_report_html(scaler, prof, tmp):
    """Well-formed, offline, every component and API of the JSON in it."""
    out = os.path.join(tmp, "report.html")
    rc, sout, err = report_cmd(scaler, prof, "--format", "html", "-o", out)
    if rc != 0:
        return ["html exited %d: %s" % (rc, err[:200])], None
    page = open(out, encoding="utf-8").read()
    h = parse_html(page)
    bad = list(h.errors[:5])
    d = report_json_of(scaler, prof)
    for c in d["components"]:
        if c["name"] not in h.alltext:
            bad.append("component %r not in the page" % c["name"])
    for c in d["calls"]:
        if c["api"] not in h.titles:
            bad.append("api %r not in the page" % c["api"])
    for i in ("component-chart", "component-table", "group-chart", "thread-table", "process-table"):
        if i not in h.ids:
            bad.append("no #%s" % i)
    if h.scripts != 1 or not page.lstrip().startswith("<!DOCTYPE html>"):
        bad.append("%d scripts / no doctype" % h.scripts)
    if not h.rect_fills:
        bad.append("component chart has no bars")
    if "rebalance the stages" not in h.alltext:
        bad.append("no imbalance explanation")
    return bad, (out, h)


def check_report_escaping(scaler, tmp):
    """A component whose name has markup characters: escaped in HTML,
    quoted in CSV, listed by name in JSON."""
    d = os.path.join(tmp, "esc")
    os.mkdir(d)
    name = 'lib<b>&"q,x.so'
    with open(os.path.join(d, "l.c"), "w") as f:
        f.write("int esc_fn(int x) { return x + 1; }\n")
    with open(os.path.join(d, "m.c"), "w") as f:
        f.write("int esc_fn(int);\nint main(void) { int s = 0;"
                " for (int i = 0; i < 100; i++) s = esc_fn(s); return s == 100 ? 0 : 1; }\n")
    cc = os.environ.get("CC", "gcc")
    lib = os.path.join(d, name)
    for argv in ([cc, "-shared", "-fPIC", "-o", lib, os.path.join(d, "l.c"),
                  "-Xlinker", "-soname", "-Xlinker", name],
                 [cc, "-o", os.path.join(d, "m"), os.path.join(d, "m.c"), lib,
                  "-Wl,-rpath," + d]):
        rc, _, err = run(argv)
        if rc != 0:
            return ["%s: %s" % (" ".join(argv[:2]), err.decode(errors="replace")[-200:])]
    prof = os.path.join(d, "prof")
    bad, rep = record_json(scaler, prof, [os.path.join(d, "m")])
    if bad:
        return bad
    if name not in [c["name"] for c in rep["components"]]:
        return ["no component %r in %r" % (name, [c["name"] for c in rep["components"]])]
    rc, page, _ = report_cmd(scaler, prof, "--format", "html")
    h = parse_html(page)
    if h.errors or name not in h.alltext or "<b>" in page:
        bad.append("html: errors %r, name shown %s, raw '<b>' %s" % (h.errors[:3], name in h.alltext, "<b>" in page))
    rc, out, _ = report_cmd(scaler, prof, "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out, newline="")) if r["api"] == "esc_fn"]
    if len(rows) != 1 or rows[0]["callee"] != name or rows[0]["count"] != "100":
        bad.append("csv rows for esc_fn: %r" % rows)
    rc, _, err = report_cmd(scaler, prof, "--component", name)
    if rc != 0:
        bad.append("--component %r exited %d: %s" % (name, rc, err))
    return bad


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG (what chromium writes):
    returns (width, height, channels, bytes of all rows, unfiltered)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG depth %d type %d interlace %d not handled" % (depth, ctype, interlace))
    ch = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * ch
    out = bytearray(h * stride)
    prev = bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(ch, stride):
                line[i] = (line[i] + line[i - ch]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - ch] if i >= ch else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - ch] if i >= ch else 0
                b = prev[i]
                c = prev[i - ch] if i >= ch else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return w, h, ch, bytes(out)


def check_report_browser(html_path, h, tmp):
    """Renders the page in headless chromium: the script ran (dump-dom) and
    the screenshot has the chart's colours."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return skip("report-html-browser", "chromium not installed")

    def one():
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,2000"]
        url = "file://" + html_path
        # a copy of the page that clicks the thread table's "wall" header:
        # the rows must come back sorted by wall time, longest first
        clicked = os.path.join(tmp, "clicked.html")
        page = open(html_path, encoding="utf-8").read()
        with open(clicked, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", "<script>document.querySelector("
                                 "'#thread-table thead th:nth-child(5)').click();</script></body>"))
        rc, dom, err = run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                                   "--dump-dom", "file://" + clicked], timeout=120)
        bad = []
        dom = dom.decode(errors="replace")
        if rc != 0 or 'data-sortable="ready"' not in dom:
            bad.append("dump-dom: exit %d, no data-sortable marker (%s)" % (rc, err[-200:]))
        table = re.search(r'<table[^>]*id="thread-table".*?</table>', dom, re.S)
        walls = [float(re.findall(r'data-v="([^"]*)"', row)[2])
                 for row in re.findall(r"<tr>(.*?)</tr>", table.group(0) if table else "", re.S)
                 if row.count("data-v") >= 3]
        if len(walls) < 2 or walls != sorted(walls, reverse=True) or \
                'aria-sort="descending"' not in dom:
            bad.append("clicking 'wall' did not sort the threads: %r" % walls)
        png = os.path.join(tmp, "report.png")
        rc, _, err = run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                                 "--screenshot=" + png, url], timeout=120)
        if rc != 0 or not os.path.exists(png):
            return bad + ["screenshot: exit %d: %s" % (rc, err[-200:])]
        w, hh, ch, px = png_pixels(png)
        counts = {}
        for i in range(0, len(px), ch * 2):   # every other pixel is plenty
            k = px[i:i + 3]
            counts[k] = counts.get(k, 0) + 1
        for fill in sorted(set(h.rect_fills)):
            rgb = bytes.fromhex(fill.lstrip("#"))
            if counts.get(rgb, 0) < 20:
                bad.append("chart colour %s: %d pixels in the %dx%d screenshot" %
                           (fill, counts.get(rgb, 0), w, hh))
        white = counts.get(b"\xff\xff\xff", 0) * 2
        if white > 0.995 * w * hh:
            bad.append("screenshot is blank")
        return bad
    guarded("report-html-browser", None, one)


def report_views(a, bindir):
    tmp = tempfile.mkdtemp(prefix="scaler-report-")
    try:
        prof = os.path.join(tmp, "imb")
        bad, _ = record_json(a.scaler, prof, [os.path.join(bindir, "sc_imbalance")])
        mp = os.path.join(tmp, "fork")
        bad2, _ = record_json(a.scaler, mp, [os.path.join(bindir, "sc_fork")])
        if bad or bad2:
            return report_line(False, "report-views", a.variant, "; ".join(bad + bad2))
        full = report_json_of(a.scaler, prof)
        groups = sorted((g["effective_ns"] / g["threads"], g["start_routine"])
                        for g in full["thread_groups"] if g["start_routine"] != "main")
        guarded("report-options-errors", a.variant, lambda: check_report_errors(a.scaler, prof))
        guarded("report-csv", a.variant, lambda: check_report_csv(a.scaler, prof))
        guarded("report-filters", a.variant, lambda: check_report_filters(a.scaler, prof, mp))
        guarded("report-text", a.variant, lambda: check_report_text(
            a.scaler, prof, groups[0][1], groups[-1][1]))
        res = []

        def html():
            bad, r = check_report_html(a.scaler, prof, tmp)
            res.append(r)
            return bad
        guarded("report-html", a.variant, html)
        guarded("report-html-escaping", a.variant, lambda: check_report_escaping(a.scaler, tmp))
        if res and res[0]:
            check_report_browser(res[0][0], res[0][1], tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---- real programs and CLI behaviour --------------------------------------

def real_python(scaler, tmp):
    py = shutil.which("python3")
    if not py:
        return skip("python3", "python3 not installed")
    # a pyenv-style shim is a script: profile the interpreter itself
    rc, out, _ = run([py, "-c", "import sys; print(sys.executable)"])
    exe = out.decode().strip() or py
    name = os.path.basename(os.path.realpath(exe))
    rows = [
        ("*", "libc.so.6", "malloc", ">0"),
        ("*", "libm.so.6", "sin", ">=1000"),       # math.sin from math.fsum(...)
        ("*", "libz.so.1", "deflate", ">0"),        # zlib.compress
        ("*", "libffi.so*", "ffi_call", ">=3001"),  # ctypes calls
        ("_ctypes*", "libc.so.6", "strlen", ">=3001"),  # dlsym'd by _ctypes
    ]

    def extra(rep):
        names = [c["name"] for c in rep["components"]]
        return [] if name in names else ["no component %s in %s" % (name, names[:8])]
    guarded("python3", None, lambda: compare_run(
        scaler, [exe, os.path.join(HERE, "real", "py_workload.py")], rows, tmp, extra=extra))


def real_sqlite(scaler, tmp):
    sq = shutil.which("sqlite3")
    if not sq:
        return skip("sqlite3", "sqlite3 not installed")
    name = os.path.basename(os.path.realpath(sq))
    rows = [
        (name, "libsqlite3.so*", "sqlite3_step", ">0"),
        (name, "libsqlite3.so*", "sqlite3_prepare_v2", ">0"),
        (name, "libsqlite3.so*", "sqlite3_column_text", ">0"),
        ("libsqlite3.so*", "libc.so.6", "malloc", ">0"),
    ]
    linked = "libsqlite3" in run(["ldd", sq])[1].decode(errors="replace") \
        if shutil.which("ldd") else True
    if not linked:       # a sqlite3 with the library built in
        rows = [(name, "libc.so.6", "malloc", ">0")]
    guarded("sqlite3", None, lambda: compare_run(
        scaler, [sq, "w.db"], rows, tmp, cwd_factory=fresh_dirs(tmp, "sq"),
        stdin=os.path.join(HERE, "real", "sqlite_workload.sql")))


def fresh_dirs(tmp, prefix):
    """A cwd_factory: a new empty directory under tmp for each run."""
    n = [0]

    def fresh():
        n[0] += 1
        d = os.path.join(tmp, "%s%d" % (prefix, n[0]))
        os.mkdir(d)
        return d
    return fresh


def record_json(scaler, out, cmd):
    """Records cmd into out and returns (problems, report as JSON)."""
    rc, _, err = run([scaler, "record", "-o", out, "--"] + cmd)
    rc2, rep, err2 = run([scaler, "report", "-i", out, "--format", "json"])
    if rc != 0 or rc2 != 0:
        return ["record %d / report %d: %s" % (rc, rc2, (err + err2)[-200:])], None
    return [], json.loads(rep)


def real_git(scaler, tmp):
    git = shutil.which("git")
    if not git:
        return skip("git", "git not installed")
    rows = [
        ("git", "libz.so.1", "deflate", ">0"),
        ("git", "libz.so.1", "inflate", ">0"),
        ("git", "libc.so.6", "malloc", ">0"),
    ]
    def extra(rep):
        cmds = [p.get("command") or [] for p in rep["processes"]]
        gits = [c for c in cmds if c and os.path.basename(c[0]) == "git"]
        return [] if len(gits) >= 8 else ["only %d git processes recorded" % len(gits)]
    guarded("git", None, lambda: compare_run(
        scaler, ["sh", os.path.join(HERE, "real", "git_workload.sh")], rows, tmp,
        cwd_factory=fresh_dirs(tmp, "git"), extra=extra))


def cli_checks(scaler, tmp):
    def exit3():
        rc, _, err = run([scaler, "record", "-o", os.path.join(tmp, "e3"), "--",
                          "sh", "-c", "exit 3"])
        return [] if rc == 3 else ["scaler record exited %d, want 3 (%s)" % (rc, err[-200:])]
    guarded("record-exit-status", None, exit3)

    def statuses(name, script, want):
        # the exit status of every process recorded under `sh -c script`
        bad, d = record_json(scaler, os.path.join(tmp, name), ["sh", "-c", script])
        if bad:
            return bad
        got = sorted(p["exit_status"] for p in d["processes"])
        # a set: these must be among them (python3 may run through shims)
        ok = want <= set(got) if isinstance(want, set) else got == want
        return [] if ok else ["exit statuses %r, want %r" % (got, want)]

    # a grandchild's exit() status and an _exit() status reach the report
    guarded("report-child-exit-status", None, lambda: statuses(
        "cs", "sh -c 'exit 5'; python3 -c 'import os; os._exit(7)'; exit 0", {0, 5, 7}))
    # children ended by SIGTERM / SIGSEGV: the runtime records the end (its
    # handler then lets the default action happen unchanged)
    def wait_slice():
        # /bin/sleep 0.1 blocks in nanosleep: a Wait call, and its time is
        # the component's wait_ns (within 10 % of 100 ms, plus start-up)
        bad, d = record_json(scaler, os.path.join(tmp, "wt"), ["sleep", "0.1"])
        if bad:
            return bad
        waits = [c for c in d["calls"] if c["wait"]]
        comp = [c for c in d["components"] if c["name"] == "sleep"]
        if not waits or not any("sleep" in c["api"] for c in waits):
            bad.append("no wait call: %r" % [(c["api"], c["wait"]) for c in d["calls"]][:10])
        if not comp or not (90e6 <= comp[0]["wait_ns"] <= 130e6):
            bad.append("sleep wait_ns %r, want 100 ms (90..130)" % (comp[0]["wait_ns"] if comp else None))
        thr = d["processes"][0].get("threads", [])
        if len(thr) != 1 or thr[0]["start_routine"] != "main":
            bad.append("threads %r, want the main thread only" % thr)
        elif not (90e6 <= thr[0]["wait_ns"] <= 130e6) or \
                thr[0]["effective_ns"] != thr[0]["wall_ns"] - thr[0]["wait_ns"]:
            bad.append("main thread %r: want wait 100 ms and effective = wall - wait" % thr[0])
        return bad
    guarded("report-wait", None, wait_slice)
    def setuid_threads():
        # a server started as root that drops privileges and then starts
        # threads (memcached -u nobody): the threads' files are still made
        if os.geteuid() != 0:
            return skip("record-setuid-threads", "not root")
        prog = ("import os, threading, zlib\nos.setgid(65534)\nos.setuid(65534)\n"
                "t = threading.Thread(target=lambda: zlib.compress(b'x' * 1000))\n"
                "t.start()\nt.join()\n")
        os.chmod(tmp, 0o755)        # mkdtemp's 0700 would shut nobody out
        bad, d = record_json(scaler, os.path.join(tmp, "su"), [sys.executable, "-c", prog])
        if bad:
            return bad
        thr = d["processes"][0].get("threads", [])
        if len(thr) != 2:
            return ["%d threads recorded, want 2" % len(thr)]
        return []
    guarded("record-setuid-threads", None, setuid_threads)

    def fork_wall():
        # a child forked 0.3 s into its parent's life and exiting at once
        # is young: its wall time is its own, not counted from the parent's start
        prog = ("import os, time\ntime.sleep(0.3)\npid = os.fork()\n"
                "if pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\n")
        bad, d = record_json(scaler, os.path.join(tmp, "fw0"), [sys.executable, "-c", prog])
        if bad:
            return bad
        procs = d["processes"]
        root = root_process(d)
        kids = [p for p in procs if p["ppid"] == root["pid"]]
        if len(kids) != 1 or not (0 < kids[0]["wall_ns"] < 150e6) or root["wall_ns"] < 300e6:
            return ["walls %r, want the parent's >= 300 ms, the child's < 150 ms" %
                    [(p["pid"], p["ppid"], p["wall_ns"]) for p in procs]]
        return []
    guarded("report-fork-child-wall", None, fork_wall)

    def fork_child_stack():
        # the runtime's work in a forked child must not grow its stack:
        # a copy of the thread state there (0.44 MB, the shadow stack)
        # stayed in the RSS of every nginx worker and postgres backend
        prog = ("import os\npid = os.fork()\nif pid == 0:\n"
                "    rss, on = 0, False\n"
                "    for l in open('/proc/self/smaps'):\n"
                "        if '-' in l.split(' ')[0]:\n"
                "            on = l.rstrip().endswith('[stack]')\n"
                "        elif on and l.startswith('Rss:'):\n"
                "            rss = int(l.split()[1])\n"
                "    print(rss, flush=True)\n"
                "    os._exit(0)\n"
                "os.waitpid(pid, 0)\n")
        rc, out, err = run([sys.executable, "-c", prog])
        base = int(out.split()[0])
        rc2, out2, err2 = run([scaler, "record", "-o", os.path.join(tmp, "fst"), "--",
                               sys.executable, "-c", prog])
        if rc2 != 0:
            return ["record exited %d: %s" % (rc2, err2[-200:])]
        got = int(out2.split()[0])
        if got > base + 96:
            return ["a forked child's stack is %d KB under scaler, %d KB without" % (got, base)]
        return []
    guarded("fork-child-stack-rss", None, fork_child_stack)

    def pg_mcount():
        # A -pg program calls mcount from every function's prologue with
        # the function's arguments still live in registers: mcount keeps
        # them, and the program relies on it. Timed calls' return path
        # clobbers what the ABI lets a callee clobber, so mcount must stay
        # untimed (it reads its return address: peek.c), counted exactly,
        # and the program's output unchanged under --timing=all.
        d = os.path.join(tmp, "pg")
        os.mkdir(d)
        with open(os.path.join(d, "m.c"), "w") as f:
            f.write("#include <stdio.h>\n#include <stdlib.h>\n"
                    "__attribute__((noinline)) long mix(long a, long b, long c,"
                    " long d, long e, long f)\n"
                    "{ return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17; }\n"
                    "int main(int argc, char **argv) { long s = 0, n = atol(argv[1]);\n"
                    " for (long i = 0; i < n; i++) s += mix(i, i + 1, i + 2, i + 3,"
                    " i + 4, i + 5) % 1000003;\n printf(\"%ld\\n\", s); return 0; }\n")
        cc = os.environ.get("CC", "gcc")
        rc, _, err = run([cc, "-O1", "-pg", "-o", os.path.join(d, "m"), os.path.join(d, "m.c")])
        if rc != 0:
            return ["cc -pg: %s" % err.decode(errors="replace")[-200:]]
        prog = [os.path.join(d, "m"), "5000"]
        rc, want, _ = run(prog, cwd=d)
        out = os.path.join(d, "prof")
        rc2, got, err = run([scaler, "record", "-o", out, "--timing=all", "--"] + prog, cwd=d)
        if rc != 0 or rc2 != 0 or got != want:
            return ["output %r (exit %d) under scaler, %r (exit %d) without: %s"
                    % (got, rc2, want, rc, err[-200:])]
        rc, rep, err = run([scaler, "report", "-i", out, "--format", "json"])
        rows = [c for c in json.loads(rep)["calls"] if c["api"] in ("mcount", "_mcount")]
        if len(rows) != 1 or rows[0]["count"] != 5001 or rows[0]["total_ns"] != 0:
            return ["mcount rows: %r (want one, 5001 calls, untimed)" % rows]
        return []
    guarded("pg-mcount", None, pg_mcount)

    def exec_end():
        # an image replaced by exec ends there: it has its wall time, no
        # exit status, and its text status says so
        out = os.path.join(tmp, "xe")
        bad, d = record_json(scaler, out, ["sh", "-c", "sleep 0.05; exec true"])
        if bad:
            return bad
        sh = root_process(d).get("pid")
        imgs = sorted((p for p in d["processes"] if p["pid"] == sh),
                      key=lambda p: p.get("gen", 0))
        if len(imgs) != 2:
            return ["want two images of one pid: %r" % imgs]
        if imgs[0]["exit_status"] != -1 or not 40e6 <= imgs[0]["wall_ns"] <= 2e9:
            return ["the shell's image: exit %r wall %r" % (imgs[0]["exit_status"],
                                                             imgs[0]["wall_ns"])]
        rc, txt, _ = run([scaler, "report", "-i", out])
        return [] if b"exec'd" in txt else ["text report does not say exec'd"]
    guarded("report-exec-end", None, exec_end)

    guarded("report-signal-status", None, lambda: statuses(
        "ss", "perl -e 'kill q(TERM), $$; sleep 2'; perl -e 'kill q(SEGV), $$; sleep 2'; exit 0",
        [0, 128 + 11, 128 + 15]))

    def sigterm():
        rc, _, err = run([scaler, "record", "-o", os.path.join(tmp, "st"), "--",
                          "sh", "-c", "kill -TERM $$; sleep 5"])
        return [] if rc == 143 else ["scaler record exited %d, want 143 (%s)" % (rc, err[-200:])]
    guarded("record-sigterm", None, sigterm)

    def forward():
        # a signal sent to `scaler record` reaches the command (servers are
        # stopped that way), whose own handler decides the exit status
        out = os.path.join(tmp, "fw")
        prog = ("import signal, sys, time\n"
                "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
                "print('ready', flush=True)\n"
                "time.sleep(30)\n")
        p = subprocess.Popen([scaler, "record", "-o", out, "--", sys.executable, "-c", prog],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            line = p.stdout.readline()
            p.send_signal(signal.SIGTERM)
            rc = p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            return ["scaler record did not end within 15 s of SIGTERM"]
        finally:
            try:        # whatever is left of the group (the command, if
                os.killpg(p.pid, signal.SIGKILL)   # the signal was lost)
            except OSError:
                pass
        bad = [] if line == b"ready\n" else ["program printed %r" % line]
        if rc != 7:
            bad.append("scaler record exited %d, want the program's 7" % rc)
        rc2, rep, _ = run([scaler, "report", "-i", out, "--format", "json"])
        st = [q["exit_status"] for q in json.loads(rep)["processes"]] if rc2 == 0 else None
        if not st or st[0] != 7:
            bad.append("report exit statuses %r, want 7 first" % st)
        return bad
    guarded("record-forwards-sigterm", None, forward)

    def nosuch():
        d = os.path.join(tmp, "nosuch")
        os.mkdir(d)
        out = os.path.join(d, "prof")
        rc, sout, err = run([scaler, "record", "-o", out, "--", "scaler-no-such-command-xyz"])
        bad = []
        lines = err.decode(errors="replace").splitlines()
        if rc <= 0:
            bad.append("exit status %d" % rc)
        if len(lines) != 1 or not lines[0].startswith("scaler:"):
            bad.append("stderr is not one 'scaler:' line: %r" % lines[:3])
        if os.listdir(d):
            bad.append("wrote %s" % os.listdir(d))
        if sout:
            bad.append("wrote to stdout: %r" % sout[:100])
        return bad
    guarded("record-nosuchcmd", None, nosuch)

    def bad_report():
        bad = []
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        junk = os.path.join(tmp, "junk")
        os.mkdir(junk)
        with open(os.path.join(junk, "p1-0.meta"), "wb") as f:
            f.write(b"this is not a profile\n" * 10)
        with open(os.path.join(junk, "notes.txt"), "w") as f:
            f.write("hello\n")
        for d in (empty, junk, os.path.join(tmp, "does-not-exist")):
            for fmt in ("json", "text"):
                rc, sout, err = run([scaler, "report", "-i", d, "--format", fmt])
                e = err.decode(errors="replace")
                what = "%s (%s)" % (os.path.basename(d), fmt)
                if rc == 0 or rc >= 126 or rc < 0:
                    bad.append("%s: exit status %d" % (what, rc))
                if not e.startswith("scaler:"):
                    bad.append("%s: stderr %r" % (what, e[:120]))
        return bad
    guarded("report-not-a-profile", None, bad_report)

    def keep_others():
        """-o names a directory that is not a profile (sources, say): the
        record is refused and nothing in it is touched; a profile already
        there is kept as DIR.old, and a DIR.old that is not a profile is
        not removed to make room."""
        bad = []
        src = os.path.join(tmp, "src")
        os.mkdir(src)
        with open(os.path.join(src, "main.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        for _ in range(2):
            rc, _, err = run([scaler, "record", "-o", src, "--", "/bin/true"])
            if rc == 0 or not err.decode(errors="replace").startswith("scaler:"):
                bad.append("record into a source directory: exit %d, %r" % (rc, err[:120]))
        if os.listdir(src) != ["main.c"] or os.path.exists(src + ".old"):
            bad.append("source directory touched: %r" % (os.listdir(src),))
        prof = os.path.join(tmp, "prof")
        pids = []
        for _ in range(3):
            rc, _, err = run([scaler, "record", "-o", prof, "--", "/bin/true"])
            if rc != 0:
                bad.append("record into a profile directory: exit %d %r" % (rc, err[:120]))
            pids.append(sorted(os.listdir(prof)))
        if sorted(os.listdir(prof + ".old")) != pids[1]:
            bad.append("DIR.old is not the run before: %r vs %r" % (os.listdir(prof + ".old"), pids))
        with open(os.path.join(prof + ".old", "notes.txt"), "w") as f:
            f.write("mine\n")
        rc, _, _ = run([scaler, "record", "-o", prof, "--", "/bin/true"])
        if rc == 0 or not os.path.exists(os.path.join(prof + ".old", "notes.txt")) or \
                sorted(os.listdir(prof)) != pids[2]:
            bad.append("a DIR.old holding other files was replaced (exit %d)" % rc)
        return bad
    guarded("record-keeps-other-dirs", None, keep_others)


def cmd_real(a):
    tmp = tempfile.mkdtemp(prefix="scaler-real-")
    try:
        real_python(a.scaler, tmp)
        real_sqlite(a.scaler, tmp)
        real_git(a.scaler, tmp)
        cli_checks(a.scaler, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("e2e")
    e.add_argument("--scaler", required=True)
    e.add_argument("--bin", required=True)
    e.add_argument("--variant", required=True)
    e.add_argument("--only", nargs="*")
    r = sub.add_parser("real")
    r.add_argument("--scaler", required=True)
    a = ap.parse_args()
    a.scaler = os.path.abspath(a.scaler)
    if a.mode == "e2e":
        cmd_e2e(a)
    else:
        cmd_real(a)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
