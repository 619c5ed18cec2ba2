#!/usr/bin/env python3
"""
sampling.py - part of `make bench` (bench/accuracy.sh): the error that
adaptive timing's sampling alone leaves, apart from any error in timing a
call, for the call-length patterns of bench/acclib.c and of the phased
program of bench/estimator.py (tests/e2e/estim).

It replays the rule arch/x86_64/trampoline.S applies per (thread, API)
record on a model of each API's calls (the same sequence of lengths, in
ns, as the programs make): the first call is timed; after each timed call
the period becomes 1 if the call took over 2 us, else 2p+1 (at most 31)
while p times the API's mean so far is under the budget of 1.25 us, else
p, or p/2 while the half still meets the budget (init.c's
sc_period_budget), and at most 7 while over half of the API's time is in
calls over 10 us; the number of calls to the next timed one is drawn from
the geometric law of mean p (span.c's table); a timed call stands for p
calls (weight = p); the reader scales the weighted sum to the exact count.
Beside it, the rule as it was before: spans uniform in 1 .. 2p-1, a timed
call weighted by the span it ended, periods up to 127, no cap for long
calls. Each simulated run draws its own spans, so the spread over runs is
what sampling alone does to one run's figure. Prints per API: the mean of
estimate/truth over runs (the bias) and its standard deviation (what one
run may be off by), the number of timed calls per run and what timing
them costs per call.

Usage: sampling.py [runs]    (default 100)
"""
import math
import random
import statistics
import sys

SLOW_NS = 2000          # sc_slow_ticks: 2 us
BLOCK_NS = 10000        # sc_block_ticks: 10 us
PERIOD_MAX = 31         # sc_period_max in adaptive mode
PERIOD_LONG = 7         # SC_PERIOD_LONG
BUDGET_NS = 1250        # sc_period_budget
TIMED_NS = 25           # what timing one call costs (doc/performance.md part a)


def work_ns(n):
    """ns of acclib.c's work(n): ~0.5 ns per iteration plus the call"""
    return 1.0 + 0.5 * n


def phased(i):
    """tests/e2e/estim's phases: 20000 calls of ~15 ns, 40 of 50 us"""
    return 15.0 if i % 20040 < 20000 else 50000.0


# the call i of each API, and its number of calls
APIS = {
    "acc_short": (lambda i: work_ns(4 + (i * 7) % 64), 2000000),
    "acc_mixed": (lambda i: work_ns(10000 if i % 100 == 0 else 400 if i % 10 == 0 else 10),
                  1000000),
    "acc_period": (lambda i: work_ns(3000 if i % 64 == 0 else 2), 1000000),
    "phased": (phased, 30 * 20040),
}


def geometric(p):
    """span.c's row for period p: the law's quantiles at (j + 0.5) / 256"""
    return [max(1, math.ceil(math.log(1 - (j + 0.5) / 256) / math.log(1 - 1 / p)))
            for j in range(256)]


SPANS = {(1 << k) - 1: geometric((1 << k) - 1) for k in range(2, 6)}


def next_period(p, mean, pmax):
    """the period after a cheap timed call, as trampoline.S works it out"""
    if p * mean < BUDGET_NS:
        return min(2 * p + 1, pmax)
    if (p >> 1) * mean >= BUDGET_NS:
        return p >> 1
    return p


def one_run(length, n, rnd, now):
    """the estimate of one run and its timed calls; now: the rule as built,
    else the one before"""
    period = span = 0
    i = 0
    wsum = wblock = 0.0
    wcount = timed = 0
    while i < n:
        x = length(i)
        if now:
            w = period if period > 1 else 1
        else:
            w = span if span > 1 else 1
        wsum += x * w
        wcount += w
        if x >= BLOCK_NS:
            wblock += x * w
        timed += 1
        if x > SLOW_NS:
            period = 1
        else:
            period = next_period(period, wsum / wcount, PERIOD_MAX if now else 127)
            if now and period > PERIOD_LONG and 2 * wblock > wsum:
                period = PERIOD_LONG
        if period == 1:
            span = 1
        elif now:
            span = SPANS[period][rnd.randrange(256)]
        else:
            span = 1 + int(rnd.random() * (2 * period - 1))
        i += span
    return wsum * n / wcount, timed


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    print("adaptive sampling alone (a model of trampoline.S's rule, %d simulated runs):" % runs)
    print("the rule as built, and as it was before (uniform spans weighted by their")
    print("length, periods up to 127). timing ns: timed calls per call x %d ns" % TIMED_NS)
    print("%-11s %10s %10s %10s %9s   %10s %10s %9s" % ("api", "mean/truth", "sd of run", "timed/run",
          "timing ns", "before:", "sd of run", "timing ns"))
    for name, (length, n) in APIS.items():
        truth = sum(length(i) for i in range(n))
        row = []
        for now in (True, False):
            rnd = random.Random(1)
            res = [one_run(length, n, rnd, now) for _ in range(runs)]
            ratios = [e / truth for e, _ in res]
            row.append((statistics.mean(ratios), 100 * statistics.stdev(ratios),
                        statistics.mean(t for _, t in res)))
        (m, sd, t), (m0, sd0, t0) = row
        print("%-11s %10.3f %9.1f %% %10.0f %9.2f   %10.3f %8.1f %% %9.2f" % (
              name, m, sd, t, t * TIMED_NS / n, m0, sd0, t0 * TIMED_NS / n))


if __name__ == "__main__":
    main()
