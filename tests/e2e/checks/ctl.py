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
import subprocess
import tempfile
import time

from harness import TIMEOUT, guarded, run, skip
from running import Running

MODE = "e2e"
VARIANTS = ("lazy", "now", "noplt")
SC_M_CONTROL = 11
CTL_NAMES = {1: "listen", 2: "pause", 3: "resume"}


def ctl(t, r, *args):
    rc, out, err = run([t.scaler, "ctl", str(r.prog())] + list(args))
    if rc != 0:
        raise RuntimeError("ctl %s exited %d: %s" % (" ".join(args), rc, err[-300:]))
    return out


def b_mul(t, prof):
    """The b_mul calls in profile prof, by `scaler report`."""
    rc, out, err = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report -i %s exited %d: %s" % (prof, rc, err[-300:]))
    return sum(c["count"] for c in json.loads(out)["calls"] if c["api"] == "b_mul")


def snap(t, r, tmp, name):
    d = os.path.join(tmp, name)
    ctl(t, r, "snapshot", "-o", d)
    return b_mul(t, d)


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


def native(t, tmp):
    feed = os.path.join(tmp, "feed")
    with open(feed, "w") as f:
        f.write("go\n" * 4)
    return run([t.exe("ctl")], stdin=feed)


def check_reset_pause(t):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl")
    bad = []

    def want(what, got, n):
        if got != n:
            bad.append("%s: %d b_mul calls, want %d" % (what, got, n))
    try:
        r.wait_phase(1)
        want("phase 1 snapshot", snap(t, r, tmp, "s1"), 1600)
        ctl(t, r, "reset")
        want("after reset", snap(t, r, tmp, "s1r"), 0)
        r.go()
        r.wait_phase(2)
        want("phase 2 snapshot", snap(t, r, tmp, "s2"), 550)
        ctl(t, r, "pause")
        r.go()
        r.wait_phase(3)
        want("phase 3 (paused) snapshot", snap(t, r, tmp, "s3"), 550)
        ctl(t, r, "resume")
        r.go()
        r.wait_phase(4)
        want("phase 4 snapshot", snap(t, r, tmp, "s4"), 800)
        r.go()
        rc, err = r.finish()
        if rc != 0:
            bad.append("scaler record exited %d: %s" % (rc, err[-200:]))
        want("final report", b_mul(t, d), 800)
        seen = controls(d, pid_of(d))
        if seen != ["listen", "pause", "resume"]:
            bad.append("control records %r" % seen)
        nrc, nout, _ = native(t, tmp)
        if nout != r.out or nrc != 0:
            bad.append("output under scaler %r, without %r" % (r.out, nout))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def pid_of(d):
    """The pid of the one process of profile d."""
    return [int(f[1:f.index("-")]) for f in os.listdir(d) if f.endswith("-0.meta")][0]


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
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl", ["--paused", "--control-signal", "SIGUSR2"])
    bad = []

    def want(what, got, n):
        if got != n:
            bad.append("%s: %d b_mul calls, want %d" % (what, got, n))
    try:
        r.wait_phase(1)
        pid = r.prog()
        want("phase 1 (started paused)", snap(t, r, tmp, "s1"), 0)
        os.kill(pid, signal.SIGUSR2)            # resume
        wait_controls(d, pid, 3)
        r.go()
        r.wait_phase(2)
        want("phase 2 (resumed by SIGUSR2)", snap(t, r, tmp, "s2"), 550)
        os.kill(r.p.pid, signal.SIGUSR2)        # pause: scaler record passes it on
        wait_controls(d, pid, 4)
        r.go()
        r.wait_phase(3)
        want("phase 3 (paused by SIGUSR2)", snap(t, r, tmp, "s3"), 550)
        ctl(t, r, "resume")
        r.go()
        r.wait_phase(4)
        want("phase 4 (resumed by ctl)", snap(t, r, tmp, "s4"), 800)
        r.go()
        rc, err = r.finish()
        if rc != 0:
            bad.append("scaler record exited %d: %s" % (rc, err[-200:]))
        seen = controls(d, pid)
        if seen != ["listen", "pause", "resume", "pause", "resume"]:
            bad.append("control records %r" % seen)
        nrc, nout, _ = native(t, tmp)
        if nout != r.out or nrc != 0:
            bad.append("output under scaler %r, without %r" % (r.out, nout))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def check_owner(t):
    if os.geteuid() != 0:
        return skip("ctl-owner", "not root")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctl")
    bad = []
    try:
        r.wait_phase(1)

        def nobody():
            os.setgid(65534)
            os.setuid(65534)
        for action in ("pause", "reset", "snapshot"):
            try:
                p = subprocess.run([t.scaler, "ctl", str(r.prog()), action, "-o",
                                    os.path.join(tmp, "s")], preexec_fn=nobody,
                                   capture_output=True, timeout=TIMEOUT)
            except PermissionError:
                return skip("ctl-owner", "scaler is not executable by nobody")
            err = p.stderr.decode()
            if p.returncode != 1 or "belongs to user root" not in err or \
                    len(err.splitlines()) != 1:
                bad.append("ctl %s as nobody: exit %d, %r" % (action, p.returncode, err))
        p = subprocess.run(["python3", "-c", "import os, signal; os.kill(%d, signal.SIGRTMAX - 1)"
                            % r.prog()], preexec_fn=nobody, capture_output=True,
                           timeout=TIMEOUT)
        if b"PermissionError" not in p.stderr:
            bad.append("nobody's signal was not refused: %r" % p.stderr[-200:])
        for k in (2, 3, 4):
            r.go()
            r.wait_phase(k)
        r.go()
        rc, err = r.finish()
        got = b_mul(t, d)
        if rc != 0 or got != 1600 + 550 + 1100 + 250:
            bad.append("after nobody's attempts: exit %d, %d b_mul calls, want 3500" % (rc, got))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("ctl-reset-pause", t.variant, lambda: check_reset_pause(t))
    guarded("ctl-paused-signal", t.variant, lambda: check_paused_signal(t))
    if t.variant == "lazy":
        guarded("ctl-owner", t.variant, lambda: check_owner(t))
