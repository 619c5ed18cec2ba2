"""rawfork.py - a child made by the raw fork system call (sc_rawfork,
tests/e2e/rawfork/main.c), where no fork handler ran: its thread state is
its parent's, whose perf rings are not mapped in it, and it died of
SIGSEGV at its first timed return (trampoline.S read the ring). Now its
first timed return (or its end) makes its own state (rawfork.c), as the
fork handler would have.

rawfork-adaptive, rawfork-all, rawfork-kernel: the child exits 0; the
profile holds it as a process of its own, child of the parent; the
writes of both add up to 21000 exactly; the calls the child made before
its first timed return are counted in the parent's records
(doc/record.md): with --timing=all (every call timed) its first write
only, so the parent has 1001 and the child 19999; else the child has some,
and the parent no fewer than its 1000.
rawfork-setuid (root): with --kernel, the child first calls setuid(nobody),
whose wrapper makes the child's state before the change, while it may
still take the recorder's rings and open a kernel sampler of its own (as
nobody it could do neither where perf_event_paranoid is 2): every write
is the child's, and its getrandom calls at the end have kernel samples
(half their time on the CPU at least).
"""
import os

from harness import guarded, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy", "now")


def rawfork(t, name, opts, args=()):
    prof = os.path.join(t.tmp, name)
    rc, out, err = run([t.scaler, "record", "-o", prof] + opts + ["--", t.exe("rawfork")] +
                       list(args))
    if rc != 0 or out != b"child signal 0 exit 0\n":
        return ["record exited %d, output %r (want the child's exit 0): %r"
                % (rc, out, err[-300:])]
    d = report_json_of(t.scaler, prof)
    writes = {p["pid"]: sum(c["count"] for c in p["calls"] if c["api"] == "write"
                            and c["caller"] == "sc_rawfork") for p in d["processes"]}
    procs = {p["pid"]: p for p in d["processes"]}
    if len(procs) != 2:
        return ["%d processes in the profile, want the parent and the child: %r"
                % (len(procs), writes)]
    child = [pid for pid, p in procs.items() if p.get("ppid") in procs]
    if len(child) != 1:
        return ["no process whose parent is the other: %r" %
                [(pid, p.get("ppid")) for pid, p in procs.items()]]
    c = child[0]
    parent = [pid for pid in procs if pid != c][0]
    bad = []
    if sum(writes.values()) != 21000:
        bad.append("writes %r add up to %d, want 21000" % (writes, sum(writes.values())))
    if "--timing=all" in opts:
        if writes[parent] != 1001 or writes[c] != 19999:
            bad.append("writes: parent %d, child %d, want 1001 and 19999"
                       % (writes[parent], writes[c]))
    elif args:
        if writes[parent] != 1000 or writes[c] != 20000:
            bad.append("writes: parent %d, child %d, want 1000 and 20000"
                       % (writes[parent], writes[c]))
    elif writes[c] <= 0 or writes[parent] < 1000:
        bad.append("writes: parent %d, child %d" % (writes[parent], writes[c]))
    g = [x for x in procs[c]["calls"] if x["api"] == "getrandom"]
    if args:
        k = (g[0].get("kernel") or {}) if len(g) == 1 else {}
        on = g[0]["total_ns"] - (k.get("preempted_ns") or 0) - g[0]["wait_ns"] if g else 0
        if len(g) != 1 or g[0]["count"] != 4 or not (k.get("on_cpu_ns") or 0) >= on / 2:
            bad.append("the child's getrandom: %r, want 4 calls, half their time on the CPU "
                       "kernel samples at least" % [(x["count"], x["total_ns"], x.get("kernel"))
                                                    for x in g])
    return bad


def checks(t):
    for name, opts in (("rawfork-adaptive", []), ("rawfork-all", ["--timing=all"]),
                       ("rawfork-kernel", ["--kernel"])):
        guarded(name, t.variant, lambda: rawfork(t, name, opts))
    if os.geteuid() != 0:
        skip("rawfork-setuid", "not root: the child cannot drop to nobody")
    else:
        guarded("rawfork-setuid", t.variant,
                lambda: rawfork(t, "rawfork-setuid", ["--kernel"], ["65534"]))
