#!/usr/bin/env python3
"""rss.py PID FILE - peak memory of a process tree, for tests/apps/lib.sh.

Every 0.1 s sums VmHWM (each process's own peak resident set) over PID and
all its descendants, and keeps the largest sum; likewise the largest sum of
RssAnon (private memory, without the file pages of the program and its
libraries). Writes both (KiB, "hwm anon") to FILE when
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


peak = anon = 0


def sample():
    global peak, anon
    m = [mem(p) for p in tree()]
    peak = max(peak, sum(h for h, _ in m))
    anon = max(anon, sum(a for _, a in m))


end = time.time() + 600
while not stop and time.time() < end and os.path.exists("/proc/%d" % root):
    sample()
    time.sleep(0.1)
if os.path.exists("/proc/%d" % root):
    sample()
with open(out, "w") as f:
    f.write("%d %d\n" % (peak, anon))
