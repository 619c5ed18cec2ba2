"""runtime_imports.py - the runtime's own system calls go straight to the
kernel: the Makefile links libscaler.so with -Wl,--wrap for each name of
RT_SYSCALLS (src/runtime/sys.c), so it imports none of them, nor their
fortified forms (__pread_chk, __openat_2, ...), which the wrap would not
catch: with -D_FORTIFY_SOURCE=2 (Ubuntu's gcc default) objects.c's pread
became an import of __pread_chk.

runtime-imports: `nm -D --undefined-only` of the build's libscaler.so
names none of them.
runtime-imports-fortify: the same of a libscaler.so built (under
build/fortify/) by a compiler that defines _FORTIFY_SOURCE=2 itself, as
Ubuntu's does.
"""
import os
import re

from harness import ROOT, guarded, run

MODE = "real"


def rt_syscalls():
    """The names of the Makefile's RT_SYSCALLS."""
    text = open(os.path.join(ROOT, "Makefile")).read().replace("\\\n", " ")
    m = re.search(r"^RT_SYSCALLS\s*:=(.*)$", text, re.M)
    if not m or not m.group(1).split():
        raise ValueError("no RT_SYSCALLS in the Makefile")
    return m.group(1).split()


def imports_of(lib):
    """The names (without version) libscaler.so imports."""
    rc, out, err = run(["nm", "-D", "--undefined-only", lib])
    if rc != 0:
        raise ValueError("nm %s exited %d: %s" % (lib, rc, err[-200:]))
    return {line.split()[-1].split("@")[0] for line in out.decode().splitlines() if line.strip()}


def wrapped_imports(lib):
    names = set()
    for n in rt_syscalls():
        for b in (n, n + "64"):
            names |= {b, "__%s_chk" % b, "__%s_2" % b}
    got = sorted(imports_of(lib) & names)
    return ["%s imports %s, which the runtime calls through the kernel "
            "(RT_SYSCALLS, -Wl,--wrap)" % (os.path.relpath(lib, ROOT), " ".join(got))] if got else []


def fortified(build):
    out = os.path.join(build, "fortify")
    cc = os.environ.get("CC", "gcc") + " -D_FORTIFY_SOURCE=2"
    # -B: the objects depend on their sources, not on the Makefile
    rc, o, err = run(["make", "--no-print-directory", "-B", "-j2", "-C", ROOT,
                      "BUILD=" + os.path.relpath(out, ROOT), "CC=" + cc,
                      os.path.join(os.path.relpath(out, ROOT), "lib/libscaler.so")], timeout=600)
    if rc != 0:
        return ["make with CC=%r exited %d: %s" % (cc, rc, (err or o)[-300:])]
    return wrapped_imports(os.path.join(out, "lib/libscaler.so"))


def checks(t):
    build = os.path.dirname(os.path.dirname(os.path.abspath(t.scaler)))
    guarded("runtime-imports", None,
            lambda: wrapped_imports(os.path.join(build, "lib/libscaler.so")))
    guarded("runtime-imports-fortify", None, lambda: fortified(build))
