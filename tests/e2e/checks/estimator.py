"""estimator.py - adaptive timing's estimates on the two workloads of issue
19, against the program's own clock (sc_estim, tests/e2e/estim). Checks:
estimator-phased, estimator-mutex (lazy).

Both record the program at real-time priority (chrt -f 5) where the system
allows it, so that other work on a shared machine does not preempt it: a
call preempted for milliseconds is timed or not by chance (the estimator
sees the preemption as the call's time), and a few ms in a 70 ms run are
more than the bounds below. A phased run that was preempted anyway (its
CPU time short of its wall time by over 2 %) is repeated, up to 30 runs,
and the check is skipped, saying so, if 10 undisturbed ones cannot be had.
"""
import json
import os

from harness import guarded, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)

FIFO = ["chrt", "-f", "5"]


def fifo_ok():
    """Whether this system lets us run at real-time priority."""
    try:
        return run(FIFO + ["true"])[0] == 0
    except OSError:
        return False


def record(t, case, timing, fifo, name):
    """sc_estim CASE recorded under TIMING: (problems, the program's figures,
    the JSON report)."""
    out = os.path.join(t.tmp, name)
    rc, so, se = run((FIFO if fifo else []) +
                     [t.scaler, "record", "-o", out, "--timing", timing, "--", t.exe("estim"), case],
                     timeout=120)
    if rc != 0:
        return ["sc_estim %s exited %d: %s" % (case, rc, se.decode(errors="replace")[-300:])], None, None
    own = dict((k, int(v)) for k, v in (l.split() for l in so.decode().splitlines()))
    rc, rep, se = run([t.scaler, "report", "-i", out, "--format", "json"])
    if rc != 0:
        return ["report exited %d: %s" % (rc, se.decode(errors="replace")[-300:])], None, None
    return [], own, json.loads(rep)


def api(rep, name):
    """(calls, total ns) of API name in the report"""
    rows = [c for c in rep["calls"] if c["api"] == name]
    return sum(c["count"] for c in rows), sum(c["total_ns"] for c in rows)


def check_phased(t):
    """est_call in 30 phases of 20000 calls of ~10 ns and 40 of ~50 us: the
    estimate of its total within 10 % of the truth (the long calls' own TSC
    intervals, the short ones' work timed on a private copy) in at least 9
    of 10 undisturbed runs, and its count exact.

    The bound: the sampling alone leaves one run's estimate 2.4 % off (one
    standard deviation, bench/sampling.py "phased", 40 simulated runs), and
    measured runs (bench/estimator.py --fifo, 10 runs) were 0.2 % off on
    average with a standard deviation of 3.3 %: a run falls outside 10 %
    with a chance q of 0.25 % (normal tails), and 2 or more of 10 runs with
    1 - (1-q)^10 - 10 q (1-q)^9 = 0.03 %, the false-failure rate of this
    check; at a standard deviation of 4 % and 1 % of bias, q = 1.5 % and
    the rate is 1 %. The estimator as it was (uniform spans weighted by their
    length) was +15 % to +35 % off in every run."""
    fifo = fifo_ok()
    errs, tries = [], 0
    while len(errs) < 10 and tries < 30:
        tries += 1
        bad, own, rep = record(t, "phased", "adaptive", fifo, "phased")
        if bad:
            return bad
        if own["phased_cpu_ns"] < 0.98 * own["phased_ns"]:
            continue                    # preempted: not this check's subject
        count, total = api(rep, "est_call")
        if count != own["calls"]:
            return ["est_call counted %d calls, made %d" % (count, own["calls"])]
        errs.append(total / own["inside_ns"] - 1)
    if len(errs) < 10:
        return skip("estimator-phased [%s]" % t.variant,
                    "only %d of %d runs were not preempted (%s): the machine is busy" %
                    (len(errs), tries, "at real-time priority" if fifo else "chrt not allowed"))
    out = [e for e in errs if abs(e) > 0.10]
    if len(out) > 1:
        return ["%d of 10 runs outside 10 %% of the truth: %s" %
                (len(out), " ".join("%+.1f%%" % (100 * e) for e in errs))]
    return []


def check_mutex(t):
    """4 threads contending on one mutex (lock, counter++, unlock, 1 M
    times each), 10 runs. Always: the lock held (counter 4 M), exact
    counts, no component's total over the threads' time, no self time
    below 0; the program's self time above 0 (a report clamps a negative
    one to 0) in at least 5 of the 10 runs: its truth, the loop and
    counter++, is under 2 % of the threads' time, within the sampling's
    noise, so fitting the calls into a thread's time leaves it 0 now and
    then (5 of 40 measured runs: 6 or more of 10 has a chance of 0.05 %).
    At real-time
    priority (where the threads are not preempted by other work, so that
    their clocks measure the contention): the estimate of lock + unlock
    within 10 % of the threads' time in their loops (their own clock) in
    at least 9 of 10 runs.

    The bound: the truth lies a few % under the threads' clock (their own
    code, counter++ and the loop, and the interceptor's work outside the
    timed intervals: `all`, which times every call, comes out 5-7 %
    under it). Measured runs (bench/estimator.py --fifo, 4 x 10 runs) were
    2.0 % under it on average with a standard deviation of 2.0 %: a run falls
    outside 10 % with a chance q under 0.01 % (normal tails), 2 of 10 runs
    practically never; at a standard deviation of 3 % and 4 % of bias, q
    = 2.3 % and the false-failure rate 2 %. Before the off-CPU calibration
    (profile.c, off_fit) runs were 0-19 % under it, 4 to 8 of 10 within
    10 %; before the geometric spans the program's self time was 0 in 2 of
    10 runs and libc's total up to 102 % of the threads' time."""
    fifo = fifo_ok()
    errs, bad, zero = [], [], 0
    for i in range(10):
        bad, own, rep = record(t, "mutex", "adaptive", fifo, "mutex-%d" % i)
        if bad:
            return bad
        if own["counter"] != 4000000:
            return ["counter %d: the lock did not hold" % own["counter"]]
        lock, unlock = api(rep, "pthread_mutex_lock"), api(rep, "pthread_mutex_unlock")
        if lock[0] != 4000000 or unlock[0] != 4000000:
            return ["%d lock and %d unlock calls, want 4000000 each" % (lock[0], unlock[0])]
        threads = sum(th["wall_ns"] for th in rep["threads"])
        for c in rep["components"]:
            if c["total_ns"] > 1.01 * threads:
                bad.append("%s total %.1f %% of the threads' time" %
                           (c["name"], 100 * c["total_ns"] / threads))
            if c["self_ns"] < 0:
                bad.append("%s self %d ns" % (c["name"], c["self_ns"]))
            if c["name"] == "sc_estim" and c["self_ns"] <= 0:
                zero += 1
        if bad:
            return bad
        errs.append((lock[1] + unlock[1]) / own["threads_ns"] - 1)
        if not fifo:
            return skip("estimator-mutex [%s]" % t.variant,
                        "sums consistent; bounds need chrt (real-time priority)")
    out = [e for e in errs if abs(e) > 0.10]
    if len(out) > 1:
        bad.append("%d of 10 runs outside 10 %% of the threads' loops: %s" %
                   (len(out), " ".join("%+.1f%%" % (100 * e) for e in errs)))
    if zero > 5:
        bad.append("the program's self time 0 in %d of 10 runs" % zero)
    return bad


def checks(t):
    guarded("estimator-phased", t.variant, lambda: check_phased(t))
    guarded("estimator-mutex", t.variant, lambda: check_mutex(t))
