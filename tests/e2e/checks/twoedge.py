"""twoedge.py - a library on the stack through two edges, one nested in the
other, is on the stack once (issue 19: python3 -> libpython -> _json ->
libpython). sc_twoedge (tests/e2e/twoedge) calls te_outer in libsc_te_b,
which calls te_mid in libsc_te_c, which calls te_inner back in libsc_te_b:
libsc_te_b's total is te_outer's time, and te_inner's (inside it) must not
be added again. With the default timing and --timing=all: the sums hold
(sums.py), the counts are exact (20 each), libsc_te_b's total and
attributed total are te_outer's (1 % + 1 ms), and te_inner keeps all of
its time on its edge (libsc_te_c -> libsc_te_b). Before, libsc_te_b's total
was te_outer's plus te_inner's (839 ms of a 519 ms edge under load).
Checks: twoedge-total (and -all)."""

import re

from harness import guarded
from sums import check_sums

MODE = "e2e"
VARIANTS = ("lazy",)

MS = 1000000
EXE, LIB_B, LIB_C = "sc_twoedge", "libsc_te_b.so", "libsc_te_c.so"


def near(got, want):
    return abs(got - want) <= 0.01 * want + MS


def check(t, timing):
    bad, d, err = t.record_program("twoedge", timing)
    if bad:
        return bad
    bad = check_sums(d)
    m = re.search(rb"rounds (\d+)", err)
    if not m:
        return bad + ["sc_twoedge printed no rounds: %r" % err[-200:]]
    rounds = int(m.group(1))
    calls = {(c["caller"], c["callee"], c["api"]): c for c in d["calls"]}
    want = {(EXE, LIB_B, "te_outer"), (LIB_B, LIB_C, "te_mid"), (LIB_C, LIB_B, "te_inner")}
    for k in sorted(want):
        n = calls.get(k, {}).get("count")
        if n != rounds:
            bad.append("%s -> %s %s counted %r, want %d" % (k[0], k[1], k[2], n, rounds))
    if bad:
        return bad
    outer = calls[(EXE, LIB_B, "te_outer")]
    inner = calls[(LIB_C, LIB_B, "te_inner")]
    comps = {c["name"]: c for c in d["components"]}
    b = comps[LIB_B]
    if not near(b["total_ns"], outer["total_ns"]):
        bad.append("%s total %.1f ms, te_outer's %.1f ms (te_inner's %.1f ms inside it)"
                   % (LIB_B, b["total_ns"] / MS, outer["total_ns"] / MS, inner["total_ns"] / MS))
    if not near(b["attr_total_ns"], outer["attr_ns"]):
        bad.append("%s attributed total %.1f ms, te_outer's %.1f ms"
                   % (LIB_B, b["attr_total_ns"] / MS, outer["attr_ns"] / MS))
    # the edge keeps te_inner's time (edge_ns: nothing of it on its own edge)
    if inner["edge_ns"] != inner["total_ns"]:
        bad.append("te_inner's edge_ns %d of its total %d" % (inner["edge_ns"], inner["total_ns"]))
    return bad


def checks(t):
    for timing in (None, "all"):
        guarded("twoedge-total" + ("-all" if timing else ""), t.variant,
                lambda: check(t, timing))
