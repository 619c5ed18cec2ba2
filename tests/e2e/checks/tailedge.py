"""tailedge.py - a cross-library call that ends in a tail jump across
libraries again: sc_tailedge (tests/e2e/tailedge) calls tt_outer in
libsc_tt_b, which calls tt_mid in libsc_tt_c, which ends with `jmp
tt_inner@plt` (or through the GOT, -fno-plt) back into libsc_tt_b.
tt_inner's return goes straight to tt_outer; its caller is libsc_tt_c, the
object whose PLT/GOT slot the jump went through, and its time is inside
tt_mid's. tt_chain (libsc_tt_b) does the same, reaching tt_mid by a tail
jump too: a chain of two tail calls ending at the program. The program runs beside a CPU hog on the same CPU, so that it is
preempted about half of the time, as on a loaded machine.

With the default timing and --timing=all, in every linking variant:
tt_mid and tt_chain really end in jumps (objdump); the counts are exact; the raw
totals of tt_inner and tt_mid, and libsc_tt_c's self time, are the
program's own clock's within 2 % + 1 ms; the sums hold (sums.py); and the
attributed figures hold too: the components' attributed self times add up
to the program's attributed total within 1 % + 1 ms, tt_inner's attributed
time is within tt_mid's, and libsc_tt_c keeps an attributed self time
(tt_mid spins half as long as tt_inner: at least a quarter of its
attributed total). Before, a tail call's share of the parallel clock kept
the time its thread was off the CPU: tt_inner's attributed time was its
raw time, above tt_mid's, libsc_tt_c's attributed self time was clamped to
0 ns and libsc_tt_b's was 108 % of the program's; and the second API of
a chain (tt_inner after tt_chain -> tt_mid) was counted but never timed:
0 ns under --timing=all, its time in tt_mid's self time.
Checks: tailedge-jump, tailedge-figures (and -all)."""

import os
import re
import subprocess
import sys

from harness import guarded
from sums import check_sums

MODE = "e2e"

MS = 1000000
EXE, LIB_B, LIB_C = "sc_tailedge", "libsc_tt_b.so", "libsc_tt_c.so"


def near(got, want, rel=0.02):
    return abs(got - want) <= rel * want + MS


def check_jump(t):
    """tt_mid and tt_chain end with a jump through the PLT or the GOT."""
    bad = []
    for lib, fn, to in ((LIB_C, "tt_mid", "tt_inner"), (LIB_B, "tt_chain", "tt_mid")):
        lib = os.path.join(os.path.dirname(t.exe("tailedge")), lib)
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib],
                             capture_output=True, text=True).stdout
        m = re.search(r"<%s>:\n(.*?)\n\n" % fn, out, re.S)
        if not m:
            bad.append("no %s in objdump -d %s" % (fn, lib))
        elif not re.search(r"\bjmp\s+(\S+ <%s@plt>|\*0x\w+\(%%rip\)\s+# \w+ <%s)" % (to, to),
                           m.group(1)):
            bad.append("%s does not tail-jump to %s:\n%s" % (fn, to, m.group(1)))
    return bad


def check(t, timing):
    cpu = min(os.sched_getaffinity(0))
    mask = os.sched_getaffinity(0)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    os.sched_setaffinity(0, {cpu})
    try:
        bad, d, err = t.record_program("tailedge", timing)
    finally:
        os.sched_setaffinity(0, mask)
        hog.kill()
        hog.wait()
    if bad:
        return bad
    bad = check_sums(d)
    spun = dict((k, float(v)) for k, v in re.findall(rb"(\w+)_ns (\d+)", err))
    m = re.search(rb"rounds (\d+)", err)
    if not m or set(spun) != {b"outer", b"mid", b"inner"}:
        return bad + ["sc_tailedge printed no figures: %r" % err[-200:]]
    rounds = int(m.group(1))
    calls = {(c["caller"], c["callee"], c["api"]): c for c in d["calls"]}
    for k, want in (((EXE, LIB_B, "tt_outer"), rounds), ((EXE, LIB_B, "tt_chain"), rounds),
                    ((LIB_B, LIB_C, "tt_mid"), 2 * rounds), ((LIB_C, LIB_B, "tt_inner"), 2 * rounds)):
        n = calls.get(k, {}).get("count")
        if n != want:
            bad.append("%s -> %s %s counted %r, want %d" % (k[0], k[1], k[2], n, want))
    if bad:
        return bad
    mid, inner = calls[(LIB_B, LIB_C, "tt_mid")], calls[(LIB_C, LIB_B, "tt_inner")]
    comps = {c["name"]: c for c in d["components"]}
    for what, got, want in (("tt_inner total", inner["total_ns"], spun[b"inner"]),
                            ("tt_mid total", mid["total_ns"], spun[b"mid"] + spun[b"inner"]),
                            ("%s self" % LIB_C, comps[LIB_C]["self_ns"], spun[b"mid"])):
        if not near(got, want):
            bad.append("%s %.1f ms, the program spun %.1f ms" % (what, got / MS, want / MS))
    top = comps[EXE]["attr_total_ns"]
    attr_self = sum(c["attr_self_ns"] for c in d["components"])
    if abs(attr_self - top) > 0.01 * top + MS:
        bad.append("attributed self times add up to %.1f ms of %.1f ms: %s"
                   % (attr_self / MS, top / MS,
                      ", ".join("%s %.1f" % (c["name"], c["attr_self_ns"] / MS) for c in d["components"])))
    if inner["attr_ns"] > mid["attr_ns"]:
        bad.append("tt_inner attributed %.1f ms, over tt_mid's %.1f ms that holds it"
                   % (inner["attr_ns"] / MS, mid["attr_ns"] / MS))
    c = comps[LIB_C]
    if c["attr_self_ns"] < c["attr_total_ns"] / 4:
        bad.append("%s attributed self %.1f ms of its attributed total %.1f ms"
                   % (LIB_C, c["attr_self_ns"] / MS, c["attr_total_ns"] / MS))
    return bad


def checks(t):
    guarded("tailedge-jump", t.variant, lambda: check_jump(t))
    for timing in (None, "all"):
        guarded("tailedge-figures" + ("-all" if timing else ""), t.variant,
                lambda: check(t, timing))
