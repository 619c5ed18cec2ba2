"""record_unprofiled.py - a program the runtime cannot be loaded into is
told at record time ("scaler: not profiled: ..."), and still runs with its
own output and exit status: a statically linked one (/sbin/ldconfig -p, a
program built with -static) and a setuid one run by another user (the
loader drops LD_PRELOAD in secure-execution mode). The same setuid program
run by its owner is profiled, without the message. Checks:
record-unprofiled-static, record-unprofiled-setuid (SKIP when not root or
without setpriv)."""
import json
import os
import shutil
import stat

from harness import guarded, run, skip

MODE = "real"

PROG = b'#include <stdio.h>\nint main(void) { puts("ran"); return 3; }\n'
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]


def build(tmp, name, *flags):
    src = os.path.join(tmp, name + ".c")
    with open(src, "wb") as f:
        f.write(PROG)
    exe = os.path.join(tmp, name)
    rc, _, err = run(["gcc", "-O2", "-o", exe, src] + list(flags))
    if rc != 0:
        raise RuntimeError("gcc %s: %s" % (" ".join(flags), err.decode(errors="replace")[-200:]))
    return exe


def told(scaler, tmp, argv, why, prefix=()):
    """Records argv (run as prefix + scaler ...) and compares it with argv
    alone; problems."""
    rc0, out0, _ = run(list(prefix) + argv)
    out = os.path.join(tmp, "p%d" % len(os.listdir(tmp)))
    rc, out1, err = run(list(prefix) + [scaler, "record", "-o", out, "--"] + argv)
    bad = []
    if (rc, out1) != (rc0, out0):
        bad.append("status/output %d/%r under scaler, %d/%r alone" % (rc, out1[:60], rc0, out0[:60]))
    want = "scaler: not profiled: %s (%s" % (argv[0], why)
    if want not in err.decode(errors="replace"):
        bad.append("stderr lacks %r: %r" % (want, err[-300:]))
    return bad


def static(scaler, tmp):
    bad = told(scaler, tmp, [build(tmp, "static", "-static")], "statically linked")
    if os.path.exists("/sbin/ldconfig"):
        bad += told(scaler, tmp, ["/sbin/ldconfig", "-p"], "statically linked")
    return bad


def setuid(scaler, top, tmp):
    if os.geteuid() != 0:
        return skip("record-unprofiled-setuid", "not root")
    if not shutil.which("setpriv"):
        return skip("record-unprofiled-setuid", "no setpriv")
    exe = build(tmp, "suid")
    os.chown(exe, 0, 0)
    os.chmod(exe, 0o4755)
    if os.statvfs(exe).f_flag & os.ST_NOSUID:
        return skip("record-unprofiled-setuid", "%s is on a nosuid mount" % tmp)
    # mkdtemp's 0700 would shut nobody out (the run's directory and ours)
    os.chmod(top, 0o755)
    os.chmod(tmp, 0o777)
    bad = told(scaler, tmp, [exe], "setuid", NOBODY)
    # its owner runs it as it is: profiled, and not told otherwise
    own = os.path.join(tmp, "own")
    rc, _, err = run([scaler, "record", "-o", own, "--", exe])
    if b"not profiled" in err:
        bad.append("its owner is told it is not profiled: %r" % err[-200:])
    rc, rep, err = run([scaler, "report", "-i", own, "--format", "json"])
    if rc != 0 or not any(c["api"] == "puts" for c in json.loads(rep)["calls"]):
        bad.append("its owner's run has no puts row (report %d: %r)" % (rc, err[-200:]))
    return bad

def checks(t):
    guarded("record-unprofiled-static", None, lambda: static(t.scaler, t.tmp))
    guarded("record-unprofiled-setuid", None, lambda: setuid(t.scaler, t.top, t.tmp))
