"""ctl.py - `scaler ctl` and record's --paused and --control-signal on a
running program (sc_ctl: two threads making known b_mul calls per phase,
waiting for a line on stdin between phases; one more thread ended before;
each b_mul call comes with one of d_step through a dlsym pointer, of
own_step, patched by --functions own_*, and of ext_step, in a library named
as a Python extension, through a pointer: all four have the same counts).

ctl-reset-pause: snapshots of the running program hold exactly the b_mul
calls made so far (1600 after phase 1) and grow; a reset drops them to 0
on every thread (the worker blocked in read, the thread that ended), then
the 550 calls of phase 2 are counted exactly; calls made while paused are
not counted, those after resume are; the final report agrees; the output
is that of a native run; each snapshot reads as a profile.
ctl-paused-signal: record --paused --control-signal SIGUSR2: nothing is
counted until the first SIGUSR2, each delivery toggles, and ctl takes
its requests on that signal too.
ctl-exec-paused, ctl-exec-ctl: sc_ctlexec's three images, each exec'ing the
next with an empty environment, go on as the one before was: paused by
--paused or ctl, resumed, listening on --control-signal's SIGUSR2.
ctl-owner: as nobody, ctl on root's process is refused in one line, a
raw signal is refused by the kernel, and the program's counts are whole.
Checks: ctl-reset-pause, ctl-paused-signal (lazy, now: a read-only GOT, noplt:
GLOB_DAT slots), ctl-owner, ctl-exec-paused, ctl-exec-ctl (lazy)."""
import json
import os
import shutil
import signal
import struct
import tempfile
import time

from harness import TIMEOUT, guarded, run, skip
from running import Running, as_nobody

MODE = "e2e"
VARIANTS = ("lazy", "now", "noplt")
SC_M_CONTROL = 11
CTL_NAMES = {1: "listen", 2: "pause", 3: "resume"}
# what sc_ctl calls, as many times each; what pausing must stop
APIS = ("b_mul", "d_step", "own_step", "ext_step")
FUNCTIONS = ["--functions", "own_*"]


def ctl(t, r, *args):
    rc, out, err = run([t.scaler, "ctl", str(r.prog())] + list(args))
    if rc != 0:
        raise RuntimeError("ctl %s exited %d: %s" % (" ".join(args), rc, err[-300:]))
    return out


def report(t, prof):
    rc, out, err = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report -i %s exited %d: %s" % (prof, rc, err[-300:]))
    return json.loads(out)


def api_counts(calls):
    """{api: calls} of APIS in a report's (or process's) calls."""
    return {a: sum(c["count"] for c in calls if c["api"] == a) for a in APIS}


def b_mul(t, prof):
    """The calls of each of APIS in profile prof, by `scaler report`."""
    return api_counts(report(t, prof)["calls"])


def snap(t, r, tmp, name, walls):
    """A snapshot's calls of APIS; its threads' time into walls[name]."""
    d = os.path.join(tmp, name)
    ctl(t, r, "snapshot", "-o", d)
    rep = report(t, d)
    walls[name] = sum(th["wall_ns"] for p in rep["processes"] for th in p["threads"])
    return api_counts(rep["calls"])


def controls(d, pid, gen=0):
    """The SC_M_CONTROL records of process pid's metadata (image gen), by
    name (format.h: header_size at offset 12, records of type, len, payload
    padded to 8)."""
    with open(os.path.join(d, "p%d-%d.meta" % (pid, gen)), "rb") as f:
        buf = f.read()
    off, seen = struct.unpack_from("<I", buf, 12)[0], []
    while off + 8 <= len(buf):
        typ, n = struct.unpack_from("<II", buf, off)
        if typ == SC_M_CONTROL:
            seen.append(CTL_NAMES.get(struct.unpack_from("<I", buf, off + 8)[0], "?"))
        off += 8 + (n + 7) // 8 * 8
    return seen


def want(bad, what, got, n):
    """got: {api: calls}; each of APIS must have n."""
    for a in APIS:
        if got[a] != n:
            bad.append("%s: %d %s calls, want %d" % (what, got[a], a, n))


def plan(t, opts, steps, final, still=()):
    """Runs sc_ctl under scaler record with opts through its four phases:
    at phase k of steps (k, want, act, want_after) a snapshot must hold
    want b_mul calls, then act(r, d) runs and a second one must hold
    want_after (None: not taken); at the end the report must too, and
    the metadata's control records be final. The snapshots of still, a
    pair of names (sK, or sK+ after the act), are taken while paused: the
    threads' time must be the same in both (paused time is nobody's)."""
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl", opts)
    bad, walls = [], {}
    try:
        for k, n, act, after in steps:
            if k > 1:
                r.go()
            r.wait_phase(k)
            want(bad, "phase %d" % k, snap(t, r, tmp, "s%d" % k, walls), n)
            if act:
                act(r, d)
            if after is not None:
                want(bad, "phase %d, then" % k, snap(t, r, tmp, "s%d+" % k, walls), after)
        if still and walls[still[0]] != walls[still[1]]:
            bad.append("threads' time grew while paused: %r" % walls)
        pid = r.prog()
        bad += r.end(tmp, 4)
        want(bad, "the report", b_mul(t, d), steps[-1][1])
        seen = controls(d, pid)
        if seen != final:
            bad.append("control records %r, want %r" % (seen, final))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def check_reset_pause(t):
    def do(action):
        return lambda r, d: ctl(t, r, action)
    return plan(t, FUNCTIONS, [(1, 1600, do("reset"), 0), (2, 550, do("pause"), 550),
                        (3, 550, do("resume"), None), (4, 800, None, None)],
                ["listen", "pause", "resume"], ("s2+", "s3"))


def wait_controls(d, pid, n, gen=0):
    """Until pid's metadata holds n control records (a signal's toggle is
    carried out by whichever thread it reached, a moment later)."""
    end = time.time() + TIMEOUT
    while time.time() < end:
        seen = controls(d, pid, gen)
        if len(seen) >= n:
            return seen
        time.sleep(0.01)
    raise RuntimeError("control records %r, want %d" % (controls(d, pid, gen), n))


def check_paused_signal(t):
    def usr2(to_record, n):
        """SIGUSR2 to the program, or to scaler record, which passes it on"""
        def act(r, d):
            os.kill(r.p.pid if to_record else r.prog(), signal.SIGUSR2)
            wait_controls(d, r.prog(), n)
        return act
    return plan(t, ["--paused", "--control-signal", "SIGUSR2"] + FUNCTIONS,
                [(1, 0, usr2(False, 3), None), (2, 550, usr2(True, 4), None),
                 (3, 550, lambda r, d: ctl(t, r, "resume"), None), (4, 800, None, None)],
                ["listen", "pause", "resume", "pause", "resume"])


def check_owner(t):
    if os.geteuid() != 0:
        return skip("ctl-owner", "not root")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl", FUNCTIONS)
    bad = []
    try:
        r.wait_phase(1)
        for action in ("pause", "reset", "snapshot"):
            try:
                p = as_nobody([t.scaler, "ctl", str(r.prog()), action, "-o",
                               os.path.join(tmp, "s")])
            except PermissionError:
                return skip("ctl-owner", "scaler is not executable by nobody")
            err = p.stderr.decode()
            if p.returncode != 1 or "belongs to user root" not in err or \
                    len(err.splitlines()) != 1:
                bad.append("ctl %s as nobody: exit %d, %r" % (action, p.returncode, err))
        p = as_nobody(["python3", "-c", "import os, signal; os.kill(%d, signal.SIGRTMAX - 1)"
                       % r.prog()])
        if b"PermissionError" not in p.stderr:
            bad.append("nobody's signal was not refused: %r" % p.stderr[-200:])
        for k in (2, 3, 4):
            r.go()
            r.wait_phase(k)
        bad += r.end(tmp, 4)
        want(bad, "after nobody's attempts, the report", b_mul(t, d), 1600 + 550 + 1100 + 250)
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def check_exec(t, opts, acts, counts, final):
    """sc_ctlexec under scaler record with opts: at phase k (image k-1),
    acts[k-1](r, d) runs; then image gen's b_mul calls must be counts[gen]
    and its control records final[gen]."""
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctlexec", opts)
    bad = []
    try:
        for k, act in enumerate(acts, 1):
            if k > 1:
                r.go()
                r.out += r.p.stdout.readline()      # "image k-1 ..."
            r.wait_phase(k)
            if act:
                act(r, d, k - 1)
        pid = r.prog()
        bad += r.end(tmp, len(acts))
        by_gen = {p["gen"]: p for p in report(t, d)["processes"] if p["pid"] == pid}
        for gen, n in enumerate(counts):
            p = by_gen.get(gen)
            got = sum(c["count"] for c in p["calls"] if c["api"] == "b_mul") if p else None
            if got != n:
                bad.append("image %d: %r b_mul calls, want %d" % (gen, got, n))
            seen = controls(d, pid, gen)
            if seen != final[gen]:
                bad.append("image %d: control records %r, want %r" % (gen, seen, final[gen]))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def check_exec_paused(t):
    """--paused, SIGUSR2 resumes image 1 after its 200 calls, ctl pauses
    image 2 after its 300: images count 0, 20 and 300 calls."""
    def usr2(r, d, gen):
        os.kill(r.prog(), signal.SIGUSR2)
        wait_controls(d, r.prog(), 3, gen)
    return check_exec(t, ["--paused", "--control-signal", "SIGUSR2"],
                      [None, usr2, lambda r, d, gen: ctl(t, r, "pause")], [0, 20, 300],
                      [["listen", "pause"], ["listen", "pause", "resume"],
                       ["listen", "pause"]])


def check_exec_ctl(t):
    """ctl pauses image 0 after its 100 calls and resumes image 1 after
    its 200: images count 100, 20 and 330 calls."""
    def do(action):
        return lambda r, d, gen: ctl(t, r, action)
    return check_exec(t, [], [do("pause"), do("resume"), None], [100, 20, 330],
                      [["listen", "pause"], ["listen", "pause", "resume"], ["listen"]])


def checks(t):
    guarded("ctl-reset-pause", t.variant, lambda: check_reset_pause(t))
    guarded("ctl-paused-signal", t.variant, lambda: check_paused_signal(t))
    if t.variant == "lazy":
        guarded("ctl-owner", t.variant, lambda: check_owner(t))
        guarded("ctl-exec-paused", t.variant, lambda: check_exec_paused(t))
        guarded("ctl-exec-ctl", t.variant, lambda: check_exec_ctl(t))
