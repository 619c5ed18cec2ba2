"""inflight.py - calls still in flight when the process ends are booked to
the end (sc_inflight). Check: inflight-figures (lazy)."""

from harness import guarded

MODE = "e2e"
VARIANTS = ("lazy",)


def check_inflight(t):
    """Calls still in flight when the process ends are booked to the end:
    ev_loop (never returns) spans the calls made inside it, pause (blocked
    at the end) is Wait of ~250 ms, and the worker thread is mostly Wait."""
    bad, d, _ = t.record_program("inflight")
    if bad:
        return bad
    calls = {(c["caller"], c["api"]): c for c in d["calls"]}
    loop = calls.get(("sc_inflight", "ev_loop"))
    pause = calls.get(("libsc_ev.so", "pause"))
    inner = sum(c["total_ns"] for c in d["calls"] if c["caller"] == "libsc_ev.so")
    bad = []
    if not loop or loop["total_ns"] < 0.95 * inner or loop["total_ns"] < 250e6:
        bad.append("ev_loop %r, calls inside it %d ns" % (loop, inner))
    if not pause or not pause["wait"] or not 150e6 <= pause["wait_ns"] <= 400e6:
        bad.append("pause %r" % (pause,))
    workers = [t for t in d["threads"] if t["start_routine"] != "main"]
    if len(workers) != 1 or workers[0]["wait_ns"] < 0.8 * workers[0]["wall_ns"]:
        bad.append("worker thread %r" % (workers,))
    return bad


def checks(t):
    guarded("inflight-figures", t.variant, lambda: check_inflight(t))
