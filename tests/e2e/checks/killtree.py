"""killtree.py - SIGKILL of a parent and its two fork children (sc_killtree),
each blocked after exactly 1000 b_mul calls: every process is in the
report with its 1000 calls (and the rows of killtree/expect-killed), and
scaler record exits 137. Check: killtree (every variant)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading

from harness import HERE, TIMEOUT, check_rows, guarded, parse_expect, run

MODE = "e2e"


def check(t):
    rows = parse_expect(os.path.join(HERE, "killtree", "expect-killed"))
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    out = os.path.join(tmp, "d")
    p = subprocess.Popen([t.scaler, "record", "-o", out, "--", t.exe("killtree")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    watchdog = threading.Timer(TIMEOUT, lambda: os.killpg(p.pid, signal.SIGKILL))
    watchdog.start()
    try:
        line = p.stdout.readline().decode(errors="replace").split()
        if len(line) != 4 or line[0] != "ready":
            return ["no ready line: %r" % line]
        pids = [int(x) for x in line[1:]]
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        rc = p.wait()
        _, err = p.communicate()
        bad = [] if rc == 137 else ["scaler record exited %d, want 137 (%s)" % (rc, err[-200:])]
        rrc, rout, rerr = run([t.scaler, "report", "-i", out, "--format", "json"])
        if rrc != 0:
            return bad + ["report exited %d: %s" % (rrc, rerr[-200:])]
        rep = json.loads(rout)
        bad += check_rows(rep, rows)
        got = {}
        for pr in rep["processes"]:
            got[pr["pid"]] = sum(c["count"] for c in pr.get("calls", []) if c["api"] == "b_mul")
        if sorted(got) != sorted(pids) or any(got[pid] != 1000 for pid in pids):
            bad.append("b_mul per process %r, want 1000 in each of %r" % (got, pids))
        return bad
    finally:
        watchdog.cancel()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("killtree", t.variant, lambda: check(t))
