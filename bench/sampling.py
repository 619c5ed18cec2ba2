#!/usr/bin/env python3
"""
sampling.py - part of `make bench` (bench/accuracy.sh): the error that
adaptive timing's sampling alone leaves, apart from any error in timing a
call, for the call-length patterns of bench/acclib.c.

It replays the rule arch/x86_64/trampoline.S applies per (thread, API) record on a model of
each API's calls (the same sequence of lengths, in ns, as acclib.c makes):
the first call is timed; after each timed call the period becomes 1 if the
call took over 2 us, else 2p+1 (at most 127) while p times the API's mean
so far is under the budget of 1.25 us, else p, or p/2 while the half still
meets the budget (init.c's sc_period_budget); the next span is drawn
uniformly from 1 to 2p-1; the call that ends a span is timed and stands for
the whole span (weight = span); the reader scales the weighted sum to the
exact count. Each simulated run draws its own spans, so the spread over runs
is what sampling alone does to one run's figure. Prints per API: the mean
of estimate/truth over runs (the bias) and its standard deviation (what
one run may be off by), and the number of timed calls per run.

Usage: sampling.py [runs]    (default 100)
"""
import random
import statistics
import sys

SLOW_NS = 2000          # sc_slow_ticks: 2 us
PERIOD_MAX = 127        # sc_period_max in adaptive mode
BUDGET_NS = 1250        # sc_period_budget
TIMED_NS = 25           # what timing one call costs (doc/performance.md part a)


def work_ns(n):
    """ns of acclib.c's work(n): ~0.5 ns per iteration plus the call"""
    return 1.0 + 0.5 * n


# the call i of each API, as in acclib.c, and its number of calls in accuracy.c
APIS = {
    "acc_short": (lambda i: work_ns(4 + (i * 7) % 64), 2000000),
    "acc_mixed": (lambda i: work_ns(10000 if i % 100 == 0 else 400 if i % 10 == 0 else 10),
                  1000000),
    "acc_period": (lambda i: work_ns(3000 if i % 64 == 0 else 2), 1000000),
}


def next_period(p, mean, budget):
    """the period after a cheap timed call, as trampoline.S works it out"""
    if p * mean < budget:
        return min(2 * p + 1, PERIOD_MAX)
    if (p >> 1) * mean >= budget:
        return p >> 1
    return p


def one_run(length, n, rnd, budget):
    """estimate/truth of one run, and its timed calls"""
    period = span = 0
    i = 0
    wsum = 0.0
    wcount = timed = 0
    while i < n:
        x = length(i)
        w = span if span > 1 else 1
        wsum += x * w
        wcount += w
        timed += 1
        period = 1 if x > SLOW_NS else next_period(period, wsum / wcount, budget)
        span = 1 if period == 1 else 1 + int(rnd.random() * (2 * period - 1))
        i += span
    return wsum * n / wcount, timed


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    print("adaptive sampling alone (a model of trampoline.S's rule, %d simulated runs);" % runs)
    print("the rule as built (budget %.2f us), and without the budget (the period" % (BUDGET_NS / 1000))
    print("always grows to %d), as scaler did before. timing ns/call: timed calls" % PERIOD_MAX)
    print("per call x %d ns, what timing them costs spread over all calls" % TIMED_NS)
    print("%-11s %10s %10s %10s %9s   %10s %10s" % ("api", "mean/truth", "sd of run", "timed/run",
          "timing ns", "no budget:", "sd of run"))
    for name, (length, n) in APIS.items():
        truth = sum(length(i) for i in range(n))
        row = []
        for budget in (BUDGET_NS, float("inf")):
            rnd = random.Random(1)
            res = [one_run(length, n, rnd, budget) for _ in range(runs)]
            ratios = [e / truth for e, _ in res]
            row.append((statistics.mean(ratios), 100 * statistics.stdev(ratios),
                        statistics.mean(t for _, t in res)))
        (m, sd, t), (m0, sd0, _) = row
        print("%-11s %10.3f %9.1f %% %10.0f %9.2f   %10.3f %8.1f %%" % (
              name, m, sd, t, t * TIMED_NS / n, m0, sd0))


if __name__ == "__main__":
    main()
