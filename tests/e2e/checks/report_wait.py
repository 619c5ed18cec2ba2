"""report_wait.py - a sleeping program's Wait time, as a call, its component's
and its thread's. Check: report-wait."""
import os

from harness import guarded, record_json

MODE = "real"


def wait_slice(scaler, tmp):
    # /bin/sleep 0.1 blocks in nanosleep: a Wait call, and its time is
    # the component's wait_ns (within 10 % of 100 ms, plus start-up)
    bad, d = record_json(scaler, os.path.join(tmp, "wt"), ["sleep", "0.1"])
    if bad:
        return bad
    waits = [c for c in d["calls"] if c["wait"]]
    comp = [c for c in d["components"] if c["name"] == "sleep"]
    if not waits or not any("sleep" in c["api"] for c in waits):
        bad.append("no wait call: %r" % [(c["api"], c["wait"]) for c in d["calls"]][:10])
    if not comp or not (90e6 <= comp[0]["wait_ns"] <= 130e6):
        bad.append("sleep wait_ns %r, want 100 ms (90..130)" % (comp[0]["wait_ns"] if comp else None))
    thr = d["processes"][0].get("threads", [])
    if len(thr) != 1 or thr[0]["start_routine"] != "main":
        bad.append("threads %r, want the main thread only" % thr)
    elif not (90e6 <= thr[0]["wait_ns"] <= 130e6) or \
            thr[0]["effective_ns"] != thr[0]["wall_ns"] - thr[0]["wait_ns"]:
        bad.append("main thread %r: want wait 100 ms and effective = wall - wait" % thr[0])
    return bad


def checks(t):
    guarded("report-wait", None, lambda: wait_slice(t.scaler, t.tmp))
