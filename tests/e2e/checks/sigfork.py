"""sigfork.py - children forked from a signal handler that interrupted a
timed select (sc_sigfork, the shape of postgres' postmaster starting its
auxiliary processes) book only the calls they made: the select in flight at
the fork is the parent's. In each child every call is counted as often as
it is timed at most and lasts no longer than the child's thread, the sums
hold (sums.py), child 1's own select is 1 call, 1 timed, and child 2, back
in that select and then running alone, counts as one running thread for the
parallel clock (its attributed time is its CPU time, which it prints, not
half of it).
Check: sigfork-inherited (lazy)."""

from harness import guarded, root_process
from sums import check_sums

MODE = "e2e"
VARIANTS = ("lazy",)


def check_sigfork(t):
    bad, d, err = t.record_program("sigfork")
    if bad:
        return bad
    bad = check_sums(d)
    root = root_process(d)
    kids = [p for p in d["processes"] if p["ppid"] == root.get("pid")]
    if len(kids) != 2:
        return bad + ["%d children, want 2" % len(kids)]
    by_api = lambda p: {c["api"]: c for c in p["calls"]}
    loop = [p for p in kids if "epoll_wait" in by_api(p)]
    spin = [p for p in kids if "getppid" in by_api(p)]
    if len(loop) != 1 or len(spin) != 1:
        return bad + ["children's calls %r" % [sorted(by_api(p)) for p in kids]]
    for p in kids:
        wall = sum(th["wall_ns"] for th in p["threads"])
        for c in p["calls"]:
            if c["timed"] > c["count"] or c["total_ns"] > wall:
                bad.append("child %d: %s count %d timed %d total %d ns, its thread %d ns"
                           % (p["pid"], c["api"], c["count"], c["timed"], c["total_ns"], wall))
    sel = by_api(loop[0]).get("select")
    if not sel or (sel["count"], sel["timed"]) != (1, 1):
        bad.append("child 1's select: %r calls, %r timed, want 1 and 1"
                   % (sel and sel["count"], sel and sel["timed"]))
    if "select" in by_api(spin[0]):
        bad.append("child 2 books a select it never made")
    th = spin[0]["threads"]
    cpu = [int(line.split("=")[1]) for line in err.decode(errors="replace").splitlines()
           if line.startswith("child2_cpu_ns=")]
    if len(cpu) != 1:
        bad.append("child 2 printed no CPU time")
    elif len(th) != 1 or not 0.9 * cpu[0] - 1e6 <= th[0]["attr_ns"] <= 1.1 * cpu[0] + 1e6:
        bad.append("child 2's threads %r: want one, its attributed time its CPU time %d"
                   % ([(x["wall_ns"], x["attr_ns"]) for x in th], cpu[0]))
    return bad


def checks(t):
    guarded("sigfork-inherited", t.variant, lambda: check_sigfork(t))
