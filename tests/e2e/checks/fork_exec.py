"""fork_exec.py - a profiled parent's fork children that exec at once, as a
shell's do (tests/e2e/forkexec/main.c): a fork child's state is made in
place of its parent's copy (thread.c), in as few pages as it can be
(doc/performance.md), and must still hold exactly what the child did.

fork-exec-images: every image holds exactly its own calls of b_mul (the
parent 5, fork child i 10 + i, the image it execs 100 * (i + 1), the
grandchild of child 1 7), each fork child its first calls (open, dup2,
close, execl: one each) and its parent's pid, and each exec'd image its
fork child's pid as the next generation; in every timing mode.
"""
from harness import guarded

MODE = "e2e"


def images(t, timing):
    bad, d, err = t.record_program("forkexec", timing)
    if bad:
        return bad
    procs = d["processes"]
    root = [p for p in procs if p["gen"] == 0 and
            not any(q["pid"] == p["ppid"] for q in procs)]
    if len(root) != 1:
        return ["%d processes without a parent in the profile, want 1: %r"
                % (len(root), [(p["pid"], p["ppid"], p["gen"]) for p in procs])]
    root = root[0]

    def count(p, api):
        return sum(c["count"] for c in p["calls"]
                   if c["api"] == api and c["caller"] == "sc_forkexec")

    want = {(root["pid"], 0): 5}
    kids = sorted((p for p in procs if p["ppid"] == root["pid"] and p["gen"] == 0),
                  key=lambda p: count(p, "b_mul"))
    if len(kids) != 3:
        return ["%d fork children of the parent, want 3: %r"
                % (len(kids), [(p["pid"], p["ppid"], p["gen"]) for p in procs])]
    bad = []
    for i, k in enumerate(kids):
        want[(k["pid"], 0)] = 10 + i
        want[(k["pid"], 1)] = 100 * (i + 1)
        for api in ("open", "dup2", "close", "execl"):
            if count(k, api) != 1:
                bad.append("fork child %d: %d calls of %s, want 1" % (i, count(k, api), api))
    grand = [p for p in procs if p["ppid"] == kids[1]["pid"]]
    if len(grand) != 1:
        return bad + ["%d children of fork child 1, want its one grandchild" % len(grand)]
    want[(grand[0]["pid"], grand[0]["gen"])] = 7
    got = {(p["pid"], p["gen"]): count(p, "b_mul") for p in procs}
    if got != want:
        bad.append("b_mul by (pid, gen) %r, want %r" % (sorted(got.items()),
                                                       sorted(want.items())))
    return bad


def checks(t):
    for timing in (None, "all", "none"):
        name = "fork-exec-images" + ("" if not timing else "-" + timing)
        guarded(name, t.variant, lambda: images(t, timing))
