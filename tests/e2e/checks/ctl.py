"""ctl.py - `scaler ctl` and record's --paused and --control-signal on a
running program (sc_ctl: two threads making known b_mul calls per phase,
waiting for a line on stdin between phases; one more thread ended before).

ctl-reset-pause: snapshots of the running program hold exactly the b_mul
calls made so far (1600 after phase 1) and grow; a reset drops them to 0
on every thread (the worker blocked in read, the thread that ended), then
the 550 calls of phase 2 are counted exactly; calls made while paused are
not counted, those after resume are; the final report agrees; the output
is that of a native run; each snapshot reads as a profile.
ctl-paused-signal: record --paused --control-signal SIGUSR2: nothing is
counted until the first SIGUSR2, each delivery toggles, and ctl takes
its requests on that signal too.
ctl-owner: as nobody, ctl on root's process is refused in one line, a
raw signal is refused by the kernel, and the program's counts are whole.
Checks: ctl-reset-pause, ctl-paused-signal (lazy, now: a read-only GOT, noplt:
GLOB_DAT slots), ctl-owner (lazy)."""
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


def b_mul(t, prof):
    """The b_mul calls in profile prof, by `scaler report`."""
    return sum(c["count"] for c in report(t, prof)["calls"] if c["api"] == "b_mul")


def snap(t, r, tmp, name, walls):
    """A snapshot's b_mul calls; its threads' time into walls[name]."""
    d = os.path.join(tmp, name)
    ctl(t, r, "snapshot", "-o", d)
    rep = report(t, d)
    walls[name] = sum(th["wall_ns"] for p in rep["processes"] for th in p["threads"])
    return sum(c["count"] for c in rep["calls"] if c["api"] == "b_mul")


def controls(d, pid):
    """The SC_M_CONTROL records of process pid's metadata, by name
    (format.h: header_size at offset 12, records of type, len, payload
    padded to 8)."""
    with open(os.path.join(d, "p%d-0.meta" % pid), "rb") as f:
        buf = f.read()
    off, seen = struct.unpack_from("<I", buf, 12)[0], []
    while off + 8 <= len(buf):
        typ, n = struct.unpack_from("<II", buf, off)
        if typ == SC_M_CONTROL:
            seen.append(CTL_NAMES.get(struct.unpack_from("<I", buf, off + 8)[0], "?"))
        off += 8 + (n + 7) // 8 * 8
    return seen


def want(bad, what, got, n):
    if got != n:
        bad.append("%s: %d b_mul calls, want %d" % (what, got, n))


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
    return plan(t, [], [(1, 1600, do("reset"), 0), (2, 550, do("pause"), 550),
                        (3, 550, do("resume"), None), (4, 800, None, None)],
                ["listen", "pause", "resume"], ("s2+", "s3"))


def wait_controls(d, pid, n):
    """Until pid's metadata holds n control records (a signal's toggle is
    carried out by whichever thread it reached, a moment later)."""
    end = time.time() + TIMEOUT
    while time.time() < end:
        seen = controls(d, pid)
        if len(seen) >= n:
            return seen
        time.sleep(0.01)
    raise RuntimeError("control records %r, want %d" % (controls(d, pid), n))


def check_paused_signal(t):
    def usr2(to_record, n):
        """SIGUSR2 to the program, or to scaler record, which passes it on"""
        def act(r, d):
            os.kill(r.p.pid if to_record else r.prog(), signal.SIGUSR2)
            wait_controls(d, r.prog(), n)
        return act
    return plan(t, ["--paused", "--control-signal", "SIGUSR2"],
                [(1, 0, usr2(False, 3), None), (2, 550, usr2(True, 4), None),
                 (3, 550, lambda r, d: ctl(t, r, "resume"), None), (4, 800, None, None)],
                ["listen", "pause", "resume", "pause", "resume"])


def check_owner(t):
    if os.geteuid() != 0:
        return skip("ctl-owner", "not root")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl")
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


def checks(t):
    guarded("ctl-reset-pause", t.variant, lambda: check_reset_pause(t))
    guarded("ctl-paused-signal", t.variant, lambda: check_paused_signal(t))
    if t.variant == "lazy":
        guarded("ctl-owner", t.variant, lambda: check_owner(t))
