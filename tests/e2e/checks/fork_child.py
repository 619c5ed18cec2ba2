"""fork_child.py - a forked child under scaler: its own wall time, and a
stack no larger than without scaler. Checks: report-fork-child-wall,
fork-child-stack-rss."""
import os
import sys

from harness import guarded, record_json, root_process, run

MODE = "real"


def fork_wall(scaler, tmp):
    # a child forked 0.3 s into its parent's life and exiting at once
    # is young: its wall time is its own, not counted from the parent's start
    prog = ("import os, time\ntime.sleep(0.3)\npid = os.fork()\n"
            "if pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\n")
    bad, d = record_json(scaler, os.path.join(tmp, "fw0"), [sys.executable, "-c", prog])
    if bad:
        return bad
    procs = d["processes"]
    root = root_process(d)
    kids = [p for p in procs if p["ppid"] == root["pid"]]
    if len(kids) != 1 or not (0 < kids[0]["wall_ns"] < 150e6) or root["wall_ns"] < 300e6:
        return ["walls %r, want the parent's >= 300 ms, the child's < 150 ms" %
                [(p["pid"], p["ppid"], p["wall_ns"]) for p in procs]]
    return []


def fork_child_stack(scaler, tmp):
    # the runtime's work in a forked child must not grow its stack:
    # a copy of the thread state there (0.44 MB, the shadow stack)
    # stayed in the RSS of every nginx worker and postgres backend
    prog = ("import os\npid = os.fork()\nif pid == 0:\n"
            "    rss, on = 0, False\n"
            "    for l in open('/proc/self/smaps'):\n"
            "        if '-' in l.split(' ')[0]:\n"
            "            on = l.rstrip().endswith('[stack]')\n"
            "        elif on and l.startswith('Rss:'):\n"
            "            rss = int(l.split()[1])\n"
            "    print(rss, flush=True)\n"
            "    os._exit(0)\n"
            "os.waitpid(pid, 0)\n")
    rc, out, err = run([sys.executable, "-c", prog])
    base = int(out.split()[0])
    rc2, out2, err2 = run([scaler, "record", "-o", os.path.join(tmp, "fst"), "--",
                           sys.executable, "-c", prog])
    if rc2 != 0:
        return ["record exited %d: %s" % (rc2, err2[-200:])]
    got = int(out2.split()[0])
    if got > base + 96:
        return ["a forked child's stack is %d KB under scaler, %d KB without" % (got, base)]
    return []


def checks(t):
    guarded("report-fork-child-wall", None, lambda: fork_wall(t.scaler, t.tmp))
    guarded("fork-child-stack-rss", None, lambda: fork_child_stack(t.scaler, t.tmp))
