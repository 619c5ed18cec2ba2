"""fnown.py - calls of patched functions from their own component, timed
(sc_fnown, fnown/main.c): under `--functions='fo_*'`, adaptive and
--timing=all, the program's output must not change ("bad 0": fo_leaf's
caller found every register it keeps across the call unchanged, from main
and from a new thread; "ipa ok": fo_ipa, which -fipa-ra lets keep its
values in caller-saved registers across fo_mix, computed its sum), the
counts must be exact, every call timed under --timing=all, and the self
and total times the report gives fo_outer and fo_inner must match the
ones the program measured with its own clock. Checks: fnown,
fnown-timing-all (lazy), fnown-self-times (lazy)."""
import json
import os
import re

from harness import guarded, run

MODE = "e2e"

COUNTS = {"fo_leaf": 8000, "fo_mix": 4096, "fo_outer": 200, "fo_inner": 200}


def record(t, timing, name):
    """(problems, report, the program's stderr)"""
    exe = t.exe("fnown")
    rc, want, _ = run([exe])
    if rc != 0 or want != b"bad 0\nipa ok\n":
        return ["without scaler: exit %d, %r" % (rc, want)], None, b""
    prof = os.path.join(t.tmp, name)
    cmd = [t.scaler, "record", "-o", prof, "--functions=fo_*"]
    if timing:
        cmd.append("--timing=" + timing)
    rc, got, err = run(cmd + ["--", exe])
    if rc != 0 or got != want:
        return ["with scaler: exit %d, %r: %s" % (rc, got, err[-300:])], None, err
    rc, rep, err2 = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        return ["report exited %d: %s" % (rc, err2[-300:])], None, err
    return [], json.loads(rep), err


def rows_of(rep, comp):
    return {c["api"]: c for c in rep["calls"]
            if c["kind"] == "function" and c["caller"] == comp and c["callee"] == comp}


def fnown(t, timing=None):
    bad, rep, _ = record(t, timing, "o" + (timing or ""))
    if bad:
        return bad
    rows = rows_of(rep, "sc_fnown")
    for fn, n in COUNTS.items():
        r = rows.get(fn)
        if not r or r["count"] != n:
            bad.append("%s: %r, want %d calls from sc_fnown" % (fn, r, n))
        elif timing == "all" and r["timed"] != n:
            bad.append("%s: %d of %d calls timed" % (fn, r["timed"], n))
    return bad


def close(got_ns, want_ns):
    return abs(got_ns - want_ns) <= 0.05 * want_ns + 200000


def self_times(t):
    """Under both modes, the report's fo_outer self and total and
    fo_inner self within 5 % (+0.2 ms) of the program's own figures. A
    recording whose fo_outer calls the kernel saw preempted for over 5 %
    of their time is made again (at most twice) when it misses: the
    program's clock also holds preemptions outside the timed window (in
    an entry's code before its clock read, between the program's clock
    read and the call), which a starved CPU makes milliseconds long."""
    bad = []
    for timing in (None, "all"):
        for attempt in range(3):
            miss = self_times_once(t, timing, attempt)
            if not miss or not miss[0]:
                break
        bad += miss[1] if miss else []
    return bad


def self_times_once(t, timing, attempt):
    """None if the figures match, else (disturbed, problems)."""
    bad = []
    problems, rep, err = record(t, timing, "s%s%d" % (timing or "", attempt))
    if problems:
        return (False, problems)
    m = re.search(rb"self fo_outer (\d+) fo_inner (\d+) total fo_outer (\d+)", err)
    if not m:
        return (False, ["no measured times on stderr: %r" % err[-200:]])
    outer, inner, total = (int(x) for x in m.groups())
    rows = rows_of(rep, "sc_fnown")
    o, i = rows.get("fo_outer"), rows.get("fo_inner")
    if not o or not i:
        return (False, ["no fo_outer or fo_inner row"])
    for what, got, want in (("fo_outer self", o["self_ns"], outer),
                            ("fo_outer total", o["total_ns"], total),
                            ("fo_inner self", i["self_ns"], inner)):
        if not close(got, want):
            bad.append("%s [%s]: %d ns in the report, %d by the program's clock"
                       % (what, timing or "adaptive", got, want))
    if not bad:
        return None
    pre = (o.get("kernel") or {}).get("preempted_ns") or 0
    return (pre > 0.05 * o["total_ns"], bad)


def checks(t):
    guarded("fnown", t.variant, lambda: fnown(t))
    if t.variant == "lazy":
        guarded("fnown-timing-all", t.variant, lambda: fnown(t, "all"))
        guarded("fnown-self-times", t.variant, lambda: self_times(t))
