"""ctl_stale.py - `scaler ctl reset` drops what the kernel measured before
it too (issue 24, item 2). sc_ctlstale (tests/e2e/ctl/stale.c): phase 1
spends 300 ms on the CPU and blocks ~200 ms in 10 reads of a pipe while a
worker blocks in readv; the reset; phase 2 reads 1 MiB of /dev/zero 200
times (on the CPU: 2 ms or more) and lets the worker go. After the reset:
read counts 200 calls and almost no Wait (10 % + 0.1 ms; before, the
records' blocked sums survived the reset, and the 200 ms blocked before
it made all of phase 2's reads Wait); the worker's readv, blocked from
before the reset until phase 2, is Wait for the time since the reset (at
least the test's 300 ms wait) and no more than the thread's time; the
walk's on-CPU time is the threads' CPU time since the reset (under 150
ms), without phase 1's 300 ms (the threads' CPU clocks count from the
reset: on main the walk's figure was wrong the other way, 0.17 ms, its
reads taken for Wait).
ctl-stale-args: the same with --args, whose return-value capture tags the
frame of the readv in flight across the reset (a reset took the tag for a
tail call's record and wrote through it: the program died of SIGSEGV).
Checks: ctl-stale, ctl-stale-args (lazy)."""
import json
import os
import shutil
import tempfile
import time

from harness import guarded, report_json_of, run
from running import Running
from sums import check_sums

MODE = "e2e"
VARIANTS = ("lazy",)
MS = 1000000


def check(t, opts=()):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctlstale", opts)
    try:
        r.wait_phase(1)
        rc, _, err = run([t.scaler, "ctl", str(r.prog()), "reset"])
        if rc != 0:
            return ["ctl reset exited %d: %s" % (rc, err[-300:])]
        time.sleep(0.3)
        r.go()
        r.wait_phase(2)
        bad = r.end(tmp, 2)
        rep = report_json_of(t.scaler, d)
        if rep.get("wait_source") != "measured":
            return bad + ["no perf events: Wait not measured (%s)" % rep.get("wait_source")]
        bad += check_sums(rep)
        calls = {c["api"]: c for c in rep["calls"] if c["caller"] == "sc_ctlstale"}
        rd, rv = calls.get("read"), calls.get("readv")
        if not rd or rd["count"] != 200:
            return bad + ["read after the reset: %r calls, want 200" % (rd and rd["count"])]
        if rd["total_ns"] < 2 * MS:
            bad.append("read after the reset: %.1f ms, too short to tell" % (rd["total_ns"] / MS))
        if rd["wait_ns"] > 0.1 * rd["total_ns"] + MS / 10:
            bad.append("read after the reset: Wait %.1f ms of %.1f ms, reading /dev/zero"
                       % (rd["wait_ns"] / MS, rd["total_ns"] / MS))
        if not rv or rv["count"] != 1:
            return bad + ["readv after the reset: %r calls, want 1" % (rv and rv["count"])]
        wall = max(th["wall_ns"] for th in rep["threads"])
        if not 250 * MS <= rv["wait_ns"] <= wall:
            bad.append("readv Wait %.1f ms, want the time since the reset (>= 250 ms, "
                       "<= %.1f ms)" % (rv["wait_ns"] / MS, wall / MS))
        rc, out, err = run([t.scaler, "walk", "-i", d, "--format", "json"])
        if rc != 0:
            return bad + ["walk exited %d: %s" % (rc, err[-300:])]
        on = json.loads(out)["path"][0]["ns"]
        if on > 150 * MS:
            bad.append("walk: %.1f ms on the CPU after the reset, want < 150" % (on / MS))
        return bad
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("ctl-stale", t.variant, lambda: check(t))
    # with --args, the worker's readv is in flight across the reset with
    # its frame tagged for its return value: the reset must leave the tag
    guarded("ctl-stale-args", t.variant, lambda: check(t, ("--args",)))
