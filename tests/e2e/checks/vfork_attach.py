"""vfork_attach.py - `scaler record -p PID` on sc_vfork (tests/e2e/vfork,
started without scaler, with phases): attached after phase 1, detached
after phase 2. In between, a worker's vfork child sleeps and _exits, and
another's execs, while main makes 600 timed usleep calls; before the fix
the child's _exit ended the attached image and main's usleep in flight
aborted the program. Check: vfork-attach (lazy, now): the program's exit
status and output are a native run's, nothing on its stderr, and the
profile has exactly the calls made while attached (b_mul: the children's
22, counted as the vforking thread's; usleep 600; vfork 3; _exit 2).
"""
import json
import os
import signal
import subprocess

from harness import TIMEOUT, guarded, run, skip
from running import Unprofiled

MODE = "e2e"
VARIANTS = ("lazy", "now")
WANT = {"b_mul": 22, "usleep": 600, "nanosleep": 2, "vfork": 3, "_exit": 2}


def ptrace_blocked():
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            scope = int(f.read())
    except (OSError, ValueError):
        return None
    return scope >= 3 or (scope >= 1 and os.geteuid() != 0)


def check(t):
    if ptrace_blocked():
        return skip("vfork-attach", "kernel.yama.ptrace_scope forbids attaching")
    prog = Unprofiled(t, "vfork", ["phases"])
    d = os.path.join(prog.tmp, "d")
    bad = []
    try:
        prog.wait_phase(1)
        rec = subprocess.Popen([t.scaler, "record", "-p", str(prog.pid), "-o", d],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = rec.stderr.readline()
        if b"attached to %d" % prog.pid not in line:
            rec.kill()
            return ["scaler record -p: %r" % (line + rec.communicate()[1])]
        prog.go()
        line = prog.p.stdout.readline()     # the exec'd echo's
        prog.out += line
        if line != b"vfork-exec\n":
            bad.append("the exec'd child said %r" % line)
        prog.wait_phase(2)
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=TIMEOUT)
        if rec.returncode != 0:
            bad.append("scaler exited %d: %r" % (rec.returncode, err[-300:]))
        prog.go()
        rc, perr = prog.finish()
        feed = os.path.join(prog.tmp, "feed")
        with open(feed, "w") as f:
            f.write("go\n" * 2)
        nrc, nout, _ = run([t.exe("vfork"), "phases"], stdin=feed)
        if rc != nrc or prog.out != nout or perr:
            bad.append("program: exit %d, output %r, stderr %r; natively exit %d, output %r"
                       % (rc, prog.out, perr[-200:], nrc, nout))
        rc, out, err = run([t.scaler, "report", "-i", d, "--format", "json"])
        if rc != 0:
            return bad + ["report exited %d: %s" % (rc, err[-300:])]
        got = {}
        for c in json.loads(out)["calls"]:
            if c["api"] in WANT and c.get("caller", "sc_vfork") == "sc_vfork":
                got[c["api"]] = got.get(c["api"], 0) + c["count"]
        if got != WANT:
            bad.append("calls while attached %r, want %r" % (got, WANT))
        return bad
    finally:
        prog.close()


def checks(t):
    guarded("vfork-attach", t.variant, lambda: check(t))
