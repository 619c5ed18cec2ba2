"""gdbbt.py - gdb, with scripts/scaler-gdb.py, stopped inside a timed call
of sc_gdbbt: the backtrace passes the trampoline (a libscaler.so frame)
and reaches main. Check: gdb-backtrace (every variant)."""
import os
import shutil
import tempfile

from harness import ROOT, guarded, run, skip

MODE = "e2e"


def check(t):
    gdb = shutil.which("gdb")
    if not gdb:
        return skip("gdb-backtrace", "gdb not installed")
    lib = os.path.join(os.path.dirname(os.path.dirname(t.scaler)), "lib", "libscaler.so")
    script = os.path.join(ROOT, "scripts", "scaler-gdb.py")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    try:
        rc, out, err = run([gdb, "-nx", "-batch", "-x", script,
                                "-ex", "set startup-with-shell off",
                                "-ex", "set env LD_PRELOAD=" + lib,
                                "-ex", "set env SCALER_DIR=" + tmp,
                                "-ex", "break stop_here", "-ex", "run", "-ex", "bt",
                                "-ex", "kill", t.exe("gdbbt")])
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


def checks(t):
    guarded("gdb-backtrace", t.variant, lambda: check(t))
