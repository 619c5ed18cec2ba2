"""shadow_reserve.py - what the shadow tables reserve (shadow.c, mem.c): a
program that calls 5000 functions of a library through dlsym pointers
(5000 import stubs and 5000 entries: 20 and 80 pages of code, several
steps of each family) has every call counted once and, read from its own
/proc/self/smaps, its room for code not yet made without access: private
writable memory that reserves no swap (MAP_NORESERVE) under 64 MB, where
the 85 MB of room for code were writable too (130 MB: charged whole to
the commit limit where the kernel never overcommits, at the start and at
every fork), at least 80 MB without access, and no page both writable
and executable.
Check: shadow-reserve."""
import os
import re

from harness import guarded, report_json_of, run

MODE = "real"
N = 5000
PROG = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	long sum = 0;
	char name[16], line[512];
	if (!h)
		return 8;
	for (int i = 0; i < atoi(argv[2]); i++) {
		snprintf(name, sizeof(name), "f%d", i);
		int (*f)(void) = (int (*)(void))dlsym(h, name);
		if (!f)
			return 8;
		sum += f();
	}
	printf("sum %ld\n", sum);
	FILE *s = fopen("/proc/self/smaps", "r");
	while (s && fgets(line, sizeof(line), s))
		fputs(line, stdout);
	return 0;
}
"""


def mappings(text):
    """(bytes, perms, VmFlags) of each mapping in smaps text."""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ", line)
        if m:
            cur = [int(m.group(2), 16) - int(m.group(1), 16), m.group(3)]
        elif line.startswith("VmFlags:") and cur:
            out.append((cur[0], cur[1], line.split()[1:]))
            cur = None
    return out


def check(t):
    lib_c, prog_c = os.path.join(t.tmp, "many.c"), os.path.join(t.tmp, "prog.c")
    lib, prog = os.path.join(t.tmp, "libmany.so"), os.path.join(t.tmp, "prog")
    with open(lib_c, "w") as f:
        f.write("".join("int f%d(void) { return %d; }\n" % (i, i % 7) for i in range(N)))
    with open(prog_c, "w") as f:
        f.write(PROG)
    for argv in (["gcc", "-shared", "-fPIC", "-o", lib, lib_c],
                 ["gcc", "-O1", "-o", prog, prog_c, "-ldl"]):
        rc, _, err = run(argv)
        if rc != 0:
            return ["%s: %s" % (" ".join(argv[:2]), err[-300:])]
    prof = os.path.join(t.tmp, "p")
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", prog, lib, str(N)])
    out = out.decode(errors="replace")
    want = "sum %d\n" % sum(i % 7 for i in range(N))
    if rc != 0 or not out.startswith(want) or err:
        return ["exit %d, output %r, stderr %r" % (rc, out[:40], err[-300:])]
    bad = []
    maps = mappings(out[len(want):])
    rw_nr = sum(n for n, p, fl in maps if p == "rw-p" and "nr" in fl)
    none_nr = sum(n for n, p, fl in maps if p == "---p" and "nr" in fl)
    wx = [p for n, p, fl in maps if "w" in p and "x" in p]
    if rw_nr >= 64 << 20:
        bad.append("%.1f MB of private writable MAP_NORESERVE memory, want under 64"
                   % (rw_nr / 1e6))
    if none_nr < 80 << 20:
        bad.append("%.1f MB reserved without access, want the room for code (80 at least)"
                   % (none_nr / 1e6))
    if wx:
        bad.append("mappings both writable and executable: %r" % wx)
    rep = report_json_of(t.scaler, prof)
    got = sum(1 for c in rep["calls"] if c["callee"] == "libmany.so" and c["count"] == 1)
    if got != N:
        bad.append("%d of the %d calls into libmany.so counted once" % (got, N))
    return bad


def checks(t):
    guarded("shadow-reserve", None, lambda: check(t))
