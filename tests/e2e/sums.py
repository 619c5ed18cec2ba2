"""sums.py - the invariants every timed profile holds (issue 19), shared by
the e2e checks and `make check-apps` (tests/apps/check_profile.py): in
every process the components' self times add up to its threads' time
within 1 %, and no component, API or edge (a caller's calls into one
callee) is over 100 % of it. Reads
the JSON report; only the standard library."""

SLACK = 0.01        # the self times' sum against the threads' time
ROUND_NS = 1000     # and what rounding per row may add on a tiny process


def process_sums(proc):
    """Problems of one process object of the JSON report ([] if none)."""
    bad = []
    cmd = proc.get("command") or ["?"]
    name = "%s[%d]" % (cmd[0] if isinstance(cmd, list) else cmd, proc["pid"])
    total = sum(t["wall_ns"] for t in proc.get("threads", []))
    if total <= 0:
        return []
    comps = proc.get("components", [])
    self_sum = sum(c["self_ns"] for c in comps)
    if abs(self_sum - total) > max(SLACK * total, ROUND_NS):
        bad.append("%s: self times add up to %.1f %% of its threads' time (%d of %d ns)"
                   % (name, 100.0 * self_sum / total, self_sum, total))
    limit = total + ROUND_NS
    for c in comps:
        if c["total_ns"] > limit:
            bad.append("%s: component %s total %.1f %%" % (name, c["name"], 100.0 * c["total_ns"] / total))
    edges = {}
    for c in proc.get("calls", []):
        if c["total_ns"] > limit:
            bad.append("%s: %s -> %s %s total %.1f %%" % (name, c["caller"], c["callee"], c["api"],
                                                           100.0 * c["total_ns"] / total))
        if c["caller"] != c["callee"]:
            # a call's part of its edge: without the calls on the same
            # edge nested in it (a report without edge_ns counts them twice)
            k = (c["caller"], c["callee"])
            edges[k] = edges.get(k, 0) + c.get("edge_ns", c["total_ns"])
    for (a, b), ns in sorted(edges.items()):
        if ns > limit:
            bad.append("%s: edge %s -> %s %.1f %%" % (name, a, b, 100.0 * ns / total))
    return bad


def check_sums(rep):
    """Problems of every process of a JSON report (none for an untimed one)."""
    if rep.get("timing") == "none":
        return []
    bad = []
    for p in rep.get("processes", []):
        bad += process_sums(p)
    return bad
