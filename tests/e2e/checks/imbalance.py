"""imbalance.py - the thread-imbalance hint (issue 19), asserted on the
profile's structure, not on how the timing came out:

- imbalance-flag: sc_imbalance's fast stage (two threads doing a tenth of
  the slow stage's work, then waiting at the barrier all four meet at) is
  flagged against the slow stage, based on that barrier (its 4 calls, one
  per thread), on the 4 threads started together and on their call counts;
  the slow stage and main are not flagged;
- imbalance-not-others: `sc_imbalance others`, two workers beside a sleeper
  and a background thread waiting for jobs, all joined by main, flags
  nothing: neither is a stage of the workers' (main flagged both);
- imbalance-not-python: python3 threads (one sleeping, one busy) flag
  nothing.
Checks: imbalance-flag, imbalance-not-others (lazy), imbalance-not-python."""
import os
import shutil

from harness import guarded, record_json, skip

MODE = "e2e"
VARIANTS = ("lazy",)

PY_THREADS = """
import threading, time
def busy():
    s = 0
    for i in range(2000000): s += i
ts = [threading.Thread(target=busy), threading.Thread(target=time.sleep, args=(0.2,))]
for t in ts: t.start()
for t in ts: t.join()
print("ok")
"""


def by_routine(d):
    return {g["start_routine"]: g for g in d["thread_groups"]}


def check_imbalance(t):
    bad, d, _ = t.record_program("imbalance")
    if bad:
        return bad
    g = by_routine(d)
    fast, slow, main = g.get("fast_stage"), g.get("slow_stage"), g.get("main")
    if not fast or not slow or not main or fast["threads"] != 2 or slow["threads"] != 2:
        return ["thread groups %r" % d["thread_groups"]]
    bad = []
    if fast["imbalance"] is not True:
        bad.append("fast_stage not flagged: %r" % fast)
    if slow["imbalance"] or main["imbalance"]:
        bad.append("slow_stage or main flagged: %r" % d["thread_groups"])
    basis = fast.get("imbalance_basis") or {}
    want = {"slower": "slow_stage", "rendezvous": "pthread_barrier_wait", "rendezvous_calls": 4}
    got = {k: basis.get(k) for k in want}
    if got != want:
        bad.append("imbalance_basis %r, want %r" % (basis, want))
    return bad


def check_others(t):
    bad, d = record_json(t.scaler, os.path.join(t.tmp, "others"), [t.exe("imbalance"), "others"])
    if bad:
        return bad
    g = by_routine(d)
    if sorted(g) != ["background", "main", "sleeper", "worker"]:
        return ["thread groups %r" % sorted(g)]
    flagged = sorted(r for r, x in g.items() if x["imbalance"])
    return ["flagged %s: %r" % (flagged, d["thread_groups"])] if flagged else []


def check_python(t):
    py = shutil.which("python3")
    if not py:
        return skip("imbalance-not-python", "python3 not installed")
    bad, d = record_json(t.scaler, os.path.join(t.tmp, "py"), [py, "-c", PY_THREADS])
    if bad:
        return bad
    if len(d["threads"]) < 3:
        return ["threads %r" % d["threads"]]
    flagged = [x for x in d["thread_groups"] if x["imbalance"]]
    return ["flagged %r" % flagged] if flagged else []


def checks(t):
    guarded("imbalance-flag", t.variant, lambda: check_imbalance(t))
    guarded("imbalance-not-others", t.variant, lambda: check_others(t))
    guarded("imbalance-not-python", None, lambda: check_python(t))
