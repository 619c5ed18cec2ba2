"""fnlong.py - the adaptive period of an own-object function whose calls
book about 0 ticks (calib.c takes an empty function's floor off them)
and whose first call is long (sc_fnlong, fnlong/main.c: fl_step spins
1 ms once, then returns at once 2 M times). The one long call is most of
the function's booked time, but it holds less a call than capping the
period at 7 costs one, so the period must grow past 7 once the short
calls outnumber it: fewer than 200,000 of the 2,000,000 calls timed
(about 110,000-140,000; the cap held to the end timed 261,000-272,000,
one in 7.5). Check: fnlong-period (lazy)."""
import json
import os

from harness import guarded, run

MODE = "e2e"
N = 2000000


def period(t):
    exe = t.exe("fnlong")
    rc, want, _ = run([exe, str(N)])
    if rc != 0 or want != b"%d\n" % N:
        return ["without scaler: exit %d, %r" % (rc, want)]
    prof = os.path.join(t.tmp, "fnlong")
    rc, got, err = run([t.scaler, "record", "-o", prof, "--functions=fl_*", "--",
                        exe, str(N)])
    if rc != 0 or got != want:
        return ["with scaler: exit %d, %r: %s" % (rc, got, err[-300:])]
    rc, rep, err = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        return ["report exited %d: %s" % (rc, err[-300:])]
    rows = [c for c in json.loads(rep)["calls"] if c["api"] == "fl_step"]
    if len(rows) != 1 or rows[0]["count"] != N:
        return ["fl_step rows %r, want one of %d calls" % ([c["count"] for c in rows], N)]
    if not 0 < rows[0]["timed"] < 200000:
        return ["fl_step: %d of %d calls timed, want fewer than 200000 (the long call's "
                "cap on the period held)" % (rows[0]["timed"], N)]
    return []


def checks(t):
    if t.variant == "lazy":
        guarded("fnlong-period", t.variant, lambda: period(t))
