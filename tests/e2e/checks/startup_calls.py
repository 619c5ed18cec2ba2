"""startup_calls.py - what a small program's main thread costs at start
(thread.c, files.c, util.c): a profiled /bin/true exec'd by a profiled
shell (strace -f) makes no futex call (the exit key is made under the
runtime's lock, not by pthread_once, which wakes waiters), no
madvise(MADV_RANDOM) (its thread file is one page: read-ahead stops at
the end of a file), no 8 MB mapping for the list of threads (the list
runs through the thread states), one fstat of the profile directory (the
check at start-up: none before each file made while the runtime starts)
and two getpid up to its thread file (sc_start's, and the thread's own:
a raw fork's child names its thread file before it is adopted), and reads the clock by the system
call at its start and end (the vDSO's first read costs two page faults),
and marks the raw-fork mark's page (rawfork.c) MADV_WIPEONFORK as the
first page of its start-up reservation (mem.c), before anything in it is
written, not as a mapping of its own. The loader maps the runtime with
three mmap calls: one read+exec segment (-z noseparate-code, the
Makefile), one writable, its .bss.
Its profile still has its thread and exit status.
Check: startup-calls."""
import json
import os
import re
import shutil

from harness import guarded, run, skip

MODE = "real"


def check(t):
    if not shutil.which("strace"):
        return skip("startup-calls", "strace not installed")
    bad = []
    out = os.path.join(t.tmp, "calls")
    log = os.path.join(t.tmp, "calls.strace")
    rc, _, err = run(["strace", "-f", "-qq", "-o", log, t.scaler, "record", "-o", out,
                      "--", "/bin/sh", "-c", "/bin/true; /bin/true"])
    if rc != 0:
        return ["strace scaler record exited %d: %s" % (rc, err[-300:])]
    calls, execd = [], None
    with open(log) as f:
        for line in f:
            m = re.match(r"(\d+) +(\w+)\((.*)", line)
            if not m:
                continue
            if m.group(2) == "execve" and m.group(3).startswith('"/bin/true"'):
                execd, calls = m.group(1), []
            elif execd and m.group(1) == execd:
                calls.append((m.group(2), m.group(3)))
    if not execd:
        return ["no exec of /bin/true in the trace"]
    names = [c[0] for c in calls]
    dirfd = None
    for name, args in calls:
        if name == "openat" and "O_PATH|O_DIRECTORY" in args and out in args:
            dirfd = args.rsplit("=", 1)[-1].strip()
    dir_fstats = [a for n, a in calls if n == "fstat" and dirfd and a.startswith(dirfd + ",")]
    thr = next((i for i, (n, a) in enumerate(calls) if n == "openat" and ".thr\"" in a), None)
    if "futex" in names:
        bad.append("a futex call: %s" % [a for n, a in calls if n == "futex"][:2])
    if any(n == "madvise" and "MADV_RANDOM" in a for n, a in calls):
        bad.append("madvise(MADV_RANDOM) of a one-page thread file")
    if any(n == "mmap" and a.startswith("NULL, 8388608,") for n, a in calls):
        bad.append("an 8 MB mapping (the list of threads)")
    if dirfd is None or len(dir_fstats) != 1:
        bad.append("fstat of the profile directory (fd %s) %d times, want 1"
                   % (dirfd, len(dir_fstats)))
    if thr is None:
        bad.append("no thread file made")
    elif names[:thr].count("getpid") != 2:
        bad.append("getpid %d times before the thread file, want 2"
                   % names[:thr].count("getpid"))
    resv = next((i for i, (n, a) in enumerate(calls)
                 if n == "mmap" and "MAP_NORESERVE" in a and "PROT_NONE" in a), None)
    wipe = [(i, a) for i, (n, a) in enumerate(calls) if n == "madvise" and "MADV_WIPEONFORK" in a]
    if resv is None or len(wipe) != 1:
        bad.append("want one start-up reservation and one MADV_WIPEONFORK, got %s and %d"
                   % (resv, len(wipe)))
    else:
        base = calls[resv][1].rsplit("=", 1)[-1].strip()
        if not wipe[0][1].startswith(base + ", 4096,"):
            bad.append("MADV_WIPEONFORK of %s, not the reservation's first page %s"
                       % (wipe[0][1], base))
        if any(n == "mmap" and a.startswith("NULL, 4096,") for n, a in calls[resv:wipe[0][0]]):
            bad.append("a page mapped between the reservation and its advice")
    rt_fd, rt_maps = None, 0
    for name, args in calls:
        if name == "openat" and "/libscaler.so\"" in args and rt_fd is None:
            rt_fd = args.rsplit("=", 1)[-1].strip()
        elif rt_fd is not None and name == "close" and args.startswith(rt_fd + ")"):
            break
        elif rt_fd is not None and name == "mmap":
            rt_maps += 1
    if rt_maps != 3:
        bad.append("the runtime mapped with %d mmap calls, want 3" % rt_maps)
    clocks = [a for n, a in calls if n == "clock_gettime"]
    for clk in ("CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_THREAD_CPUTIME_ID"):
        if not any(a.startswith(clk) for a in clocks):
            bad.append("no %s system call (read through the vDSO?)" % clk)
    rc, rout, rerr = run([t.scaler, "report", "-i", out, "--format", "json"])
    if rc != 0:
        return bad + ["report exited %d: %s" % (rc, rerr[-300:])]
    procs = json.loads(rout)["processes"]
    trues = [p for p in procs if p.get("command", [])[:1] == ["/bin/true"]]
    if len(trues) != 2 or any(p["exit_status"] != 0 or len(p["threads"]) != 1 for p in trues):
        bad.append("/bin/true's images %r, want 2 of one thread, exit 0"
                   % [(p["exit_status"], len(p["threads"])) for p in trues])
    return bad


def checks(t):
    guarded("startup-calls", None, lambda: check(t))
