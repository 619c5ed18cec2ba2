"""sample.py - how many of sc_sample's calls each timing mode measured.
Check: sample-timed (lazy; adaptive, all and none timing)."""

from harness import guarded

MODE = "e2e"
VARIANTS = ("lazy",)


def check_sample(t, timing):
    """The calls each timing mode measured (the report's `timed`): all of
    them in `all`, none in `none`. Under adaptive timing the empty
    smp_cheap's period grows to 31 (a mean span of 31 calls: at most
    1 in 20 timed, which leaves room for periods reset by preempted calls),
    while smp_mid (0.3-1 us a call) stops at 3 or 7, where period x mean
    reaches the 1.25 us budget: at least 1 in 12 of its calls timed
    (without the budget it would be 1 in 31). A call of smp_cheap
    preempted for milliseconds must not hold its period down (the
    runtime's policy leaves out the time preempted: it did, to 1 in 7 for
    the rest of the run, 95,000-131,000 timed, 1 run in 3 at load 7);
    one long without a preemption the kernel reported (an empty function
    over 10 us: an interrupt, the hypervisor) is a disturbance the
    runtime cannot tell from a slow phase, and that run is recorded
    again, at most twice."""
    for attempt in range(3):
        bad = sample_once(t, timing)
        if not bad or bad[-1] != DISTURBED:
            return bad
    return bad[:-1] + ["each of 3 runs had an smp_cheap call over 10 us not preempted"]


DISTURBED = "(disturbed)"


def sample_once(t, timing):
    """One recording of sc_sample against check_sample's figures; the
    problems end with DISTURBED if smp_cheap had a long call that was
    not preempted."""
    bad, d, _ = t.record_program("sample", timing)
    if bad:
        return bad
    calls = {c["api"]: c for c in d["calls"] if c["caller"] == "sc_sample"}
    cheap, mid = calls.get("smp_cheap"), calls.get("smp_mid")
    if not cheap or not mid or cheap["count"] != 1000000 or mid["count"] != 100000:
        return ["rows %r %r" % (cheap, mid)]
    if timing == "all":
        want = {"smp_cheap": (1000000, 1000000), "smp_mid": (100000, 100000)}
    elif timing == "none":
        want = {"smp_cheap": (0, 0), "smp_mid": (0, 0)}
    else:
        want = {"smp_cheap": (1, 1000000 // 20), "smp_mid": (100000 // 12, 100000)}
    bad = []
    for api, (lo, hi) in want.items():
        if not lo <= calls[api]["timed"] <= hi:
            bad.append("%s: %d of %d calls timed, want %d..%d" %
                       (api, calls[api]["timed"], calls[api]["count"], lo, hi))
    # per call, smp_mid is ~150x smp_cheap (400 vs 2.6 ns measured, the
    # latter off by the few ns timing an empty function can be off by);
    # 5x leaves room for one preempted sample of smp_cheap weighted by
    # its period (under 1 ms, the outlier rule keeps its weight)
    if timing != "none" and not mid["total_ns"] / 1e5 > 5 * cheap["total_ns"] / 1e6:
        bad.append("smp_mid %d ns a call vs smp_cheap %.1f ns" %
                   (mid["total_ns"] / 1e5, cheap["total_ns"] / 1e6))
    pre = cheap.get("kernel", {}).get("preempted_ns") or 0
    if bad and cheap["max_ns"] > 10000 and pre < cheap["max_ns"] / 2:
        bad.append(DISTURBED)
    return bad


def checks(t):
    for timing in ("adaptive", "all", "none"):
        guarded("sample-timed", t.variant + ",timing=" + timing,
                lambda: check_sample(t, timing))
