"""record_setuid.py - a program that drops root and then starts threads
(memcached -u nobody) still has its threads recorded. Check:
record-setuid-threads (SKIP when not root)."""
import os
import sys

from harness import guarded, record_json, skip

MODE = "real"


def setuid_threads(scaler, top, tmp):
    # a server started as root that drops privileges and then starts
    # threads (memcached -u nobody): the threads' files are still made
    if os.geteuid() != 0:
        return skip("record-setuid-threads", "not root")
    prog = ("import os, threading, zlib\nos.setgid(65534)\nos.setuid(65534)\n"
            "t = threading.Thread(target=lambda: zlib.compress(b'x' * 1000))\n"
            "t.start()\nt.join()\n")
    # mkdtemp's 0700 would shut nobody out (the run's directory and ours)
    os.chmod(top, 0o755)
    os.chmod(tmp, 0o755)
    bad, d = record_json(scaler, os.path.join(tmp, "su"), [sys.executable, "-c", prog])
    if bad:
        return bad
    thr = d["processes"][0].get("threads", [])
    if len(thr) != 2:
        return ["%d threads recorded, want 2" % len(thr)]
    return []


def checks(t):
    guarded("record-setuid-threads", None, lambda: setuid_threads(t.scaler, t.top, t.tmp))
