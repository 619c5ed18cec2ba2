#!/usr/bin/env python3
"""
estimator.py - how far adaptive timing's estimates are from the program's
own clock on the two workloads of issue 19 (tests/e2e/estim, sc_estim):

  phased  one API in phases: 20000 calls of ~10 ns, 40 of ~50 us, 30 times;
          error = est_call's total / the sum of its calls' lengths as it
          measures them itself (TSC, inside each call) - 1
  mutex   4 threads contending on one mutex (lock, counter++, unlock, 1 M
          each); error = (pthread_mutex_lock + unlock totals) / the threads'
          loop time measured by the program - 1 (the loop's own work, a
          few ns an iteration, is in the program's figure: the truth lies
          slightly below it); also libc's total as % of all threads' time
          and the program's self time
Both also print how much of the measured time the program's threads were
off the CPU (wall less CPU time: preempted by other work on the machine,
or asleep in the lock), which no sampling sees inside untimed calls.

Usage: estimator.py [--runs N] [--timing MODE] [--scaler PATH] [--bin DIR] [--fifo]
(default: 10 runs, adaptive, this tree's build and its lazy e2e programs;
--fifo: at real-time priority, so that a shared machine's other work does
not preempt the program).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_case(scaler, exe, case, timing, out, fifo):
    """one recorded run: (the program's figures, the JSON report)"""
    pre = ["chrt", "-f", "5"] if fifo else []
    r = subprocess.run(pre + [scaler, "record", "-o", out, "--timing", timing, "--", exe, case],
                       capture_output=True, text=True, timeout=300, check=True)
    own = dict((k, int(v)) for k, v in (l.split() for l in r.stdout.splitlines()))
    rep = json.loads(subprocess.run([scaler, "report", "-i", out, "--format", "json"],
                                    capture_output=True, text=True, timeout=300,
                                    check=True).stdout)
    return own, rep


def api_total(rep, api):
    return sum(c["total_ns"] for c in rep["calls"] if c["api"] == api)


def measure(scaler, exe, case, timing, tmp, fifo):
    """one run's error and, for mutex, the sums' consistency"""
    own, rep = run_case(scaler, exe, case, timing, os.path.join(tmp, case), fifo)
    if case == "phased":
        return {"err": api_total(rep, "est_call") / own["inside_ns"] - 1,
                "off": 1 - own["phased_cpu_ns"] / own["phased_ns"]}
    est = api_total(rep, "pthread_mutex_lock") + api_total(rep, "pthread_mutex_unlock")
    threads = sum(t["wall_ns"] for t in rep["threads"])
    comp = {c["name"]: c for c in rep["components"]}
    prog = os.path.basename(exe)
    return {"err": est / own["threads_ns"] - 1,
            "off": 1 - own["threads_cpu_ns"] / own["threads_ns"],
            "libc": comp["libc.so.6"]["total_ns"] / threads,
            "self": comp[prog]["self_ns"] / threads}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--timing", default="adaptive")
    ap.add_argument("--scaler", default=os.path.join(ROOT, "build/bin/scaler"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/tests/e2e/lazy"))
    ap.add_argument("--fifo", action="store_true",
                    help="run at real-time priority (chrt -f 5, root): other work on a "
                    "shared machine does not preempt the program")
    a = ap.parse_args()
    exe = os.path.join(a.bin, "sc_estim")
    with tempfile.TemporaryDirectory() as tmp:
        res = {"phased": [], "mutex": []}
        for _ in range(a.runs):
            for case in res:
                res[case].append(measure(a.scaler, exe, case, a.timing, tmp, a.fifo))
    print("timing %s, %d runs each%s: error of the estimate against the program's clock" %
          (a.timing, a.runs, " (chrt -f 5)" if a.fifo else ""))
    ph = res["phased"]
    print("phased est_call:  " + " ".join("%+.1f%%" % (100 * r["err"]) for r in ph) +
          "   within 10%%: %d/%d" % (sum(abs(r["err"]) <= 0.10 for r in ph), len(ph)))
    print("phased off-CPU, % of the phases' time: " + " ".join("%.0f" % (100 * r["off"]) for r in ph))
    mu = res["mutex"]
    print("mutex lock+unlock:" + " ".join("%+.1f%%" % (100 * r["err"]) for r in mu) +
          "   within 10%%: %d/%d" % (sum(abs(r["err"]) <= 0.10 for r in mu), len(mu)))
    print("mutex off-CPU, % of the threads' time: " + " ".join("%.0f" % (100 * r["off"]) for r in mu))
    print("mutex libc total, % of all threads' time: " +
          " ".join("%.1f" % (100 * r["libc"]) for r in mu))
    print("mutex program self, % of all threads' time: " +
          " ".join("%.1f" % (100 * r["self"]) for r in mu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
