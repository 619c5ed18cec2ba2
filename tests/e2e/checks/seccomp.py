"""seccomp.py - a program that installs a seccomp filter in mid-run
(sc_seccomp: its filter lists only the system calls it makes itself)
runs under `scaler record` as it runs alone: same output and status, its
calls counted exactly. Before the filter, the runtime stops every system
call a thread without its perf ring would make at a later timed return
(seccomp.c, perf.c "before the ring").

seccomp-prctl: main, still without its ring, installs a filter that
kills by prctl(PR_SET_SECCOMP); its ring is opened then, so the 20 ms
nanosleep after it is measured Wait.
seccomp-tsync: main installs a killing filter on both threads by
syscall(SYS_seccomp, ..., TSYNC) while the other thread is without its
ring; that thread makes timed calls, one blocking, after it and becomes
unmeasured (the process's Wait is "mixed").
seccomp-eperm: as prctl, the filter's default failing with EPERM; the
EINVAL of a failing nanosleep, the first call after the filter, reaches
the program.
seccomp-raw: a filter the runtime does not see (a system call made
directly) that traps: the thread's first lazy system call fails, ends
its lazy phase (one refused call in all, no retry at each return), and
errno is the program's (EINVAL).
seccomp-probe: calls that cannot install a filter (libseccomp's probes:
strict mode with flags, a filter at NULL) leave the process as it was: a
thread started after them is measured (Wait "measured", not "mixed").
seccomp-fork: a fork child, whose thread file has no room of its own,
installs a filter (allowing all) and then calls 24 functions of libm it
never called before: each counted once, as the runtime gives the
calling thread's file room before the filter (under it, no file grows).
"""
from harness import guarded, report_json_of, run

MODE = "e2e"
VARIANTS = ("lazy",)

CASES = {
    # mode: (status, output, counts of sc_seccomp's calls, wait_source)
    "prctl": (3, "prctl done\n", {"getppid": 8, "nanosleep": 3, "prctl": 2, "write": 2},
              "measured"),
    "eperm": (5, "eperm done 1\n", {"getppid": 8, "nanosleep": 3, "prctl": 2, "write": 2},
              "measured"),
    "raw": (6, "raw done 1 1\n", {"getppid": 23, "nanosleep": 3, "prctl": 1, "write": 2},
            "names"),
    "tsync": (4, "tsync done\n", {"getppid": 11, "nanosleep": 2, "syscall": 1,
                                  "pthread_join": 2, "pthread_create": 2}, "mixed"),
}


def case(t, mode):
    status, output, counts, source = CASES[mode]
    want = "raw done 1 0\n" if mode == "raw" else output
    rc, out, err = run([t.exe("seccomp"), mode])
    if rc != status or out.decode() != want:
        return ["alone: status %d, output %r; want %d, %r (%r)" % (rc, out, status, want,
                                                                   err[-200:])]
    prof = t.tmp + "/" + mode
    rc, out, err = run([t.scaler, "record", "-o", prof, "--timing=all", "--",
                        t.exe("seccomp"), mode])
    if rc != status or out.decode() != output:
        return ["recorded: status %d, output %r; want %d, %r (%r)" % (rc, out, status, output,
                                                                      err[-300:])]
    bad = []
    # the raw filter, unseen, refuses the runtime's own calls at the end
    if mode != "raw" and b"scaler:" in err:
        bad.append("stderr %r" % err[-300:])
    d = report_json_of(t.scaler, prof)
    p = d["processes"][0]
    got = {}
    for c in p["calls"]:
        if c["caller"] == "sc_seccomp" and c["api"] in counts:
            got[c["api"]] = got.get(c["api"], 0) + c["count"]
    if got != counts:
        bad.append("counts %r, want %r" % (got, counts))
    if p["wait_source"] != source:
        bad.append("wait_source %r, want %r" % (p["wait_source"], source))
    if p["exit_status"] != status:
        bad.append("exit_status %r" % p["exit_status"])
    if mode == "prctl":
        s = [c for c in p["calls"] if c["api"] == "nanosleep"]
        if len(s) != 1 or not 19e6 <= s[0]["wait_ns"] <= s[0]["total_ns"]:
            bad.append("nanosleep after the filter: %r; want 20 ms of Wait, measured" %
                       [(c["wait_ns"], c["total_ns"]) for c in s])
    return bad


LIBM = ("sin cos tan asin acos atan sinh cosh tanh exp log log10 cbrt exp2 log2 log1p expm1 "
        "erf erfc tgamma lgamma asinh atanh sqrt").split()


def recorded(t, mode, status, output):
    """Runs sc_seccomp MODE alone and recorded: (profile's JSON, problems)."""
    rc, out, err = run([t.exe("seccomp"), mode])
    if rc != status or out.decode() != output:
        return None, ["alone: status %d, output %r; want %d, %r" % (rc, out, status, output)]
    prof = t.tmp + "/" + mode
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", t.exe("seccomp"), mode])
    if rc != status or out.decode() != output:
        return None, ["recorded: status %d, output %r; want %d, %r (%r)" % (
            rc, out, status, output, err[-300:])]
    return report_json_of(t.scaler, prof), []


def case_probe(t):
    d, bad = recorded(t, "query", 9, "probe done 1\n")
    if d is None:
        return bad
    p = d["processes"][0]
    if p["wait_source"] != "measured":
        bad.append("wait_source %r after probes that install nothing, want 'measured'" %
                   p["wait_source"])
    return bad


def case_fork(t):
    d, bad = recorded(t, "fork", 7, "fork done\n")
    if d is None:
        return bad
    if len(d["processes"]) != 2:
        return ["%d processes, want 2" % len(d["processes"])]
    got = {}
    for p in d["processes"]:
        for c in p["calls"]:
            if c["caller"] == "sc_seccomp" and c["api"] in LIBM:
                got[c["api"]] = got.get(c["api"], 0) + c["count"]
    want = {f: 1 for f in LIBM}
    if got != want:
        bad.append("libm calls in the filtered child: %d of 24 counted, %r" % (
            len(got), sorted(set(LIBM) - set(got))))
    return bad


def checks(t):
    for mode in ("prctl", "tsync", "eperm", "raw"):
        guarded("seccomp-" + mode, None, lambda mode=mode: case(t, mode))
    guarded("seccomp-probe", None, lambda: case_probe(t))
    guarded("seccomp-fork", None, lambda: case_fork(t))
