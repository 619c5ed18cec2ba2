#!/usr/bin/env python3
"""rss.py PID FILE - peak memory of a process tree, for tests/apps/lib.sh.

Every 0.1 s sums VmHWM (each process's own peak resident set) over PID and
all its descendants, and keeps the largest sum; likewise the largest sum of
RssAnon (private memory, without the file pages of the program and its
libraries), and the CPU time used by the tree so far (its live processes'
user+system time plus the children PID has reaped, ms). Writes the three
("hwm_kib anon_kib cpu_ms") to FILE when
it gets SIGUSR1, when PID is gone, or after 10 minutes, then exits. Pages
shared between processes (a postgres shared buffer pool, a forked parent's
heap) count once per process that touched them, the same with and without a
profiler. Only stdlib."""
import os
import signal
import sys
import time

root, out = int(sys.argv[1]), sys.argv[2]
stop = []
signal.signal(signal.SIGUSR1, lambda *a: stop.append(1))


def tree():
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(kids.get(p, []))
    return seen


def mem(pid):
    got = {"VmHWM:": 0, "RssAnon:": 0}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k = line.split(":", 1)[0] + ":"
                if k in got:
                    got[k] = int(line.split()[1])
    except OSError:
        pass
    return got["VmHWM:"], got["RssAnon:"]


def cpu(pid, reaped):
    """user+system ticks of pid (and of its reaped children if reaped)"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return 0
    v = s[s.rindex(")") + 2:].split()
    return int(v[11]) + int(v[12]) + (int(v[13]) + int(v[14]) if reaped else 0)


peak = anon = ticks = 0


def sample():
    global peak, anon, ticks
    t = tree()
    m = [mem(p) for p in t]
    peak = max(peak, sum(h for h, _ in m))
    anon = max(anon, sum(a for _, a in m))
    ticks = max(ticks, sum(cpu(p, p == root) for p in t))


end = time.time() + 600
while not stop and time.time() < end and os.path.exists("/proc/%d" % root):
    sample()
    time.sleep(0.1)
if os.path.exists("/proc/%d" % root):
    sample()
with open(out, "w") as f:
    f.write("%d %d %d\n" % (peak, anon, ticks * 1000 // os.sysconf("SC_CLK_TCK")))
