"""real_python.py - python3 running tests/e2e/real/py_workload.py (math, zlib,
ctypes through libffi) with and without scaler. Check: python3."""
import os
import shutil

from harness import HERE, compare_run, guarded, run, skip

MODE = "real"


def real_python(scaler, tmp):
    py = shutil.which("python3")
    if not py:
        return skip("python3", "python3 not installed")
    # a pyenv-style shim is a script: profile the interpreter itself
    rc, out, _ = run([py, "-c", "import sys; print(sys.executable)"])
    exe = out.decode().strip() or py
    name = os.path.basename(exe)      # named as invoked, not its symlink's target
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


def checks(t):
    real_python(t.scaler, t.tmp)
