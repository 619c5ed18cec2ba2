"""rawfork.py - a child made by the raw fork system call (sc_rawfork,
tests/e2e/rawfork/main.c), where no fork handler ran: its thread state is
its parent's, whose perf rings are not mapped in it, and it died of
SIGSEGV at its first timed return (trampoline.S read the ring). Now its
first timed return, its first binding of an import, its first metadata
record (or its end) makes its own state (rawfork.c), as the fork handler
would have.

rawfork-adaptive, rawfork-all, rawfork-kernel: the child exits 0; the
profile holds it as a process of its own, child of the parent; the
writes of both add up to 21000 exactly; the calls the child made before
its first timed return are counted in the parent's records
(doc/record.md): with --timing=all (every call timed) its first write
only, so the parent has 1001 and the child 19999; else the child has some,
and the parent no fewer than its 1000.
rawfork-bind, rawfork-bind-mapped (-m: the parent's metadata file mapped
at the fork), rawfork-bind-all: the child's 20000 getppid calls are the
first of that import, and the parent binds getpriority after the fork.
The child bound getppid in its parent's state, appending its SC_M_BIND
to the parent's file at the entry index the parent then gave waitpid:
the report showed the child's calls as waitpid (mapped: the parent's
trim cut the child's record off) and the parent's waitpid as getppid.
Now each process's counts are exact: the parent 1000 writes, 1 waitpid,
1000 getpriority and no getppid; the child 20000 getppid and none of
the others.
rawfork-dlopen: the child loads a library (dlopen and dlsym, both
bound before the fork, so no first call adopts it) and calls a function
of it 20000 times through dlsym's pointer: the wrappers make the child's
state first, so the library's object and import records are in the
child's own file (not appended to the parent's, nor, with the runtime's
locks held, left out), and the child has exactly 20000 b_mul calls,
the parent none.
rawfork-setuid, rawfork-setuid-all, rawfork-setuid-mapped (root): with
--kernel, the child's first call is setuid(nobody) (its uid read before
the fork), whose wrapper makes the child's state before the change, while
it may still take the recorder's rings and open a kernel sampler of its
own (as nobody it could do neither where perf_event_paranoid is 2), and
its files are root's: the child is in the profile (its files made as
nobody were skipped by the reader), every write is the child's, and its
getrandom calls at the end have kernel samples (half their time on the
CPU at least). -all and -mapped (-m) with SCALER_KCPU_ALL=1, rings of
every task's samples: the child, nobody now, maps none of them (the
wrapper withdrew them, in the child's own state, before the change).
"""
import os

from harness import guarded, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy", "now")
APIS = ("write", "getppid", "waitpid", "getpriority", "b_mul")
# the modes whose counts are exact in both processes: the parent's calls
# besides its 1000 writes and 1 waitpid, the child's (others 0)
EXACT = {"-b": ({"getpriority": 1000}, {"getppid": 20000}),
         "-d": ({}, {"b_mul": 20000})}


def processes(d):
    """(parent, child) pids and {pid: {api: count}} of the program's own
    calls, or a problem."""
    procs = {p["pid"]: p for p in d["processes"]}
    counts = {pid: {a: sum(c["count"] for c in p["calls"] if c["api"] == a
                           and c["caller"] == "sc_rawfork") for a in APIS}
              for pid, p in procs.items()}
    if len(procs) != 2:
        return None, None, None, ("%d processes in the profile, want the parent and the "
                                  "child: %r" % (len(procs), counts))
    child = [pid for pid, p in procs.items() if p.get("ppid") in procs]
    if len(child) != 1:
        return None, None, None, ("no process whose parent is the other: %r" %
                                  [(pid, p.get("ppid")) for pid, p in procs.items()])
    c = child[0]
    return [pid for pid in procs if pid != c][0], c, counts, None


def rawfork(t, name, opts, args=(), env=None):
    prof = os.path.join(t.tmp, name)
    rc, out, err = run([t.scaler, "record", "-o", prof] + opts + ["--", t.exe("rawfork")] +
                       list(args), env=dict(os.environ, **env) if env else None)
    uid = [a for a in args if not a.startswith("-")]
    rings = out.split(b"\n")[0] if uid else b""
    if rc != 0 or out != (rings + b"\n" if uid else b"") + b"child signal 0 exit 0\n":
        return ["record exited %d, output %r (want the child's exit 0): %r"
                % (rc, out, err[-300:])]
    d = report_json_of(t.scaler, prof)
    parent, c, counts, bad = processes(d)
    if bad:
        return [bad]
    bad = []
    if env and rings != b"child rings 0":
        bad.append("%r: the child, nobody now, maps rings of every task's samples, want none"
                   % rings)
    exact = [m for m in EXACT if m in args]
    if exact:
        parent_more, child_calls = EXACT[exact[0]]
        want = {parent: dict(dict.fromkeys(APIS, 0), write=1000, waitpid=1, **parent_more),
                c: dict(dict.fromkeys(APIS, 0), **child_calls)}
        if counts != want:
            bad.append("calls %r, want %r" % (counts, want))
        return bad
    writes = {pid: n["write"] for pid, n in counts.items()}
    if sum(writes.values()) != 21000:
        bad.append("writes %r add up to %d, want 21000" % (writes, sum(writes.values())))
    if "--timing=all" in opts:
        if writes[parent] != 1001 or writes[c] != 19999:
            bad.append("writes: parent %d, child %d, want 1001 and 19999"
                       % (writes[parent], writes[c]))
    elif uid:
        if writes[parent] != 1000 or writes[c] != 20000:
            bad.append("writes: parent %d, child %d, want 1000 and 20000"
                       % (writes[parent], writes[c]))
    elif writes[c] <= 0 or writes[parent] < 1000:
        bad.append("writes: parent %d, child %d" % (writes[parent], writes[c]))
    procs = {p["pid"]: p for p in d["processes"]}
    g = [x for x in procs[c]["calls"] if x["api"] == "getrandom"]
    if uid:
        k = (g[0].get("kernel") or {}) if len(g) == 1 else {}
        on = g[0]["total_ns"] - (k.get("preempted_ns") or 0) - g[0]["wait_ns"] if g else 0
        if len(g) != 1 or g[0]["count"] != 4 or not (k.get("on_cpu_ns") or 0) >= on / 2:
            bad.append("the child's getrandom: %r, want 4 calls, half their time on the CPU "
                       "kernel samples at least" % [(x["count"], x["total_ns"], x.get("kernel"))
                                                    for x in g])
    return bad


def checks(t):
    for name, opts, args in (("rawfork-adaptive", [], []),
                             ("rawfork-all", ["--timing=all"], []),
                             ("rawfork-kernel", ["--kernel"], []),
                             ("rawfork-bind", [], ["-b"]),
                             ("rawfork-bind-mapped", [], ["-b", "-m"]),
                             ("rawfork-bind-all", ["--timing=all"], ["-b", "-m"]),
                             ("rawfork-dlopen", [], ["-d"])):
        guarded(name, t.variant, lambda: rawfork(t, name, opts, args))
    every = {"SCALER_KCPU_ALL": "1"}
    for name, args, env in (("rawfork-setuid", ["65534"], None),
                            ("rawfork-setuid-all", ["65534"], every),
                            ("rawfork-setuid-mapped", ["-m", "65534"], every)):
        if os.geteuid() != 0:
            skip(name, "not root: the child cannot drop to nobody")
        else:
            guarded(name, t.variant, lambda: rawfork(t, name, ["--kernel"], args, env))
