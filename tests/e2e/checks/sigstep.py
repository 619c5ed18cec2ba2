"""sigstep.py - a signal handler's call through the interceptor at every
instruction of a timed call's path: gdb (tests/e2e/sigstep/step.py) steps
sc_sigstep's timed calls of lib_work and queues SIGUSR1 at each address;
the handler, on a sigaltstack, calls lib_work too. The program must print
what it prints unprofiled. Catches a shadow frame that a handler could
see reserved but not yet filled (taken for one a longjmp abandoned,
dropped, and the call returning into the wrong place). Check: sigstep
(every variant)."""
import os
import shutil
import tempfile

from harness import HERE, guarded, run, skip

MODE = "e2e"
MIN_SIGNALS = 100       # the path of 3 timed calls is longer than that


def check(t):
    gdb = shutil.which("gdb")
    if not gdb:
        return skip("sigstep", "gdb not installed")
    exe = t.exe("sigstep")
    _, want, _ = run([exe])
    lib = os.path.join(os.path.dirname(os.path.dirname(t.scaler)), "lib", "libscaler.so")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    try:
        # every call timed; no re-measuring nor kernel ring reading, whose
        # loops would make the stepping long (vDSO clock reads retry
        # forever when stepped)
        rc, out, err = run([gdb, "-nx", "-batch",
                            "-ex", "set startup-with-shell off",
                            "-ex", "set env LD_PRELOAD=" + lib,
                            "-ex", "set env SCALER_DIR=" + tmp,
                            "-ex", "set env SCALER_TIMING=all",
                            "-ex", "set env SCALER_RECAL=0",
                            "-ex", "set env SCALER_PERF=off",
                            "-x", os.path.join(HERE, "sigstep", "step.py"), exe])
        text = out.decode(errors="replace")
        lines = text.splitlines()
        said = [l for l in lines if l.startswith("sigstep:")]
        if not said and "ptrace" in err.decode(errors="replace"):
            return skip("sigstep", "gdb cannot trace here: %s" % err.decode(errors="replace")[-100:])
        bad = []
        n = int(said[0].split()[1]) if said and said[0].split()[1].isdigit() else 0
        if n < MIN_SIGNALS:
            bad.append("gdb did not step the calls to their end: %r" % (said or err[-200:],))
        if want.decode().strip() not in lines:
            bad.append("program output %r not in gdb's: %r" % (want.decode().strip(), lines[-4:]))
        return bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("sigstep", t.variant, lambda: check(t))
