"""reentry.py - a library re-entered through a pointer while one of its
calls is in flight counts that time once in the edge (issue 19: no edge
over 100 % of its threads' time). sc_reentry's comparator calls strcmp
inside qsort, sc_sigwork's SIGALRM handler calls getppid 300,000 times
inside a select: both on the edge program -> libc.so.6. With the default
timing and with --timing=all the sums hold (sums.py), the counts are
exact (strcmp as often as the program compared), and under `all`, where
every call is timed, the outer call's edge_ns is its total less exactly
the nested calls' totals. Checks: reentry-sums, sigwork-sums (and -all)."""

import re

from harness import guarded
from sums import check_sums

MODE = "e2e"
VARIANTS = ("lazy",)

# the nested calls' totals against the outer call's total - edge_ns: the
# same ticks, rounded per row
SLACK_NS = 100


def calls_of(d, prog):
    procs = [p for p in d["processes"] if p["command"][0].endswith("sc_" + prog)]
    return {c["api"]: c for c in procs[0]["calls"] if c["caller"] == "sc_" + prog} if procs else {}


def check_prog(t, prog, timing, want, outer, inner):
    """Records sc_<prog>: the sums, the counts want(stderr) gives, and under
    `all` the outer call's edge_ns against its nested calls' totals."""
    bad, d, err = t.record_program(prog, timing)
    if bad:
        return bad
    bad = check_sums(d)
    calls = calls_of(d, prog)
    counts = want(err)
    if counts is None:
        return bad + ["sc_%s printed no count: %r" % (prog, err[-200:])]
    for api, n in counts.items():
        got = calls.get(api, {}).get("count")
        if got != n:
            bad.append("%s: %s counted %r, want %d" % (prog, api, got, n))
    if bad or timing != "all":
        return bad
    o = calls[outer]
    nested = sum(calls[a]["total_ns"] for a in inner)
    if abs(o["total_ns"] - o["edge_ns"] - nested) > SLACK_NS:
        bad.append("%s: %s total %d, edge_ns %d: %d ns taken off, want the nested %s's %d"
                   % (prog, outer, o["total_ns"], o["edge_ns"], o["total_ns"] - o["edge_ns"],
                      "+".join(inner), nested))
    return bad


def reentry_counts(err):
    m = re.search(rb"compares (\d+)", err)
    return {"qsort": 8, "memset": 20000, "strcmp": int(m.group(1))} if m else None


def checks(t):
    for timing in (None, "all"):
        tail = "-all" if timing else ""
        guarded("reentry-sums" + tail, t.variant,
                lambda: check_prog(t, "reentry", timing, reentry_counts, "qsort", ["strcmp"]))
        guarded("sigwork-sums" + tail, t.variant,
                lambda: check_prog(t, "sigwork", timing,
                                   lambda err: {"select": 1, "getppid": 300000, "write": 1},
                                   "select", ["getppid", "write"]))
