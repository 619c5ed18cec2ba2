"""amx_tiles.py - AMX tile data a program loaded survives its first calls
through the runtime (sc_amx: each an import's bind on the slow path, whose
xsave and xrstor leave the tile state out, offsets.h XS_SKIP): the same
output with and without scaler, every call counted. SKIP where the CPU or
the kernel offers no AMX (the program exits 77).
Check: amx-tiles-kept (lazy)."""

from harness import compare_run, guarded, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)

ROWS = [("sc_amx", "libc.so.6", "strnlen", "1001"),
        ("sc_amx", "libc.so.6", "getpid", "1"),
        ("sc_amx", "libc.so.6", "getppid", "1")]


def check_amx(t):
    exe = t.exe("amx")
    rc, out, _ = run([exe])
    if rc == 77:
        return skip("amx-tiles-kept", "no AMX on this CPU or kernel")
    if rc != 0 or not out.startswith(b"tile data kept"):
        return ["without scaler: exit %d, %r" % (rc, out[:80])]
    return compare_run(t.scaler, [exe], ROWS, t.tmp)


def checks(t):
    guarded("amx-tiles-kept", t.variant, lambda: check_amx(t))
