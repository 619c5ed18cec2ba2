#!/usr/bin/env python3
"""fnlen.py - what a timed call of a short function books against its true
length (doc/performance.md, "Short functions"). For each K in KS builds
bench/fnlen.c with f a chain of K dependent multiplies, profiles it with
--functions under each of MODES, and prints per call of f: its true length
(K multiplies, one multiply's length measured in the same run by the
program's own base loop), what f booked (self per call) and what drive, its
caller, booked per call of f beside its true 4 multiplies, with the
differences. Environment: SCALER (default this tree's build), KS
(default 1,2,4,8,16,32,48), MODES (default all,adaptive), N (drive calls,
default 2000), PRE (a command prefix, e.g. "chrt -f 10 taskset -c 1")."""
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "build", "bench", "fnlen")
SCALER = os.environ.get("SCALER", os.path.join(ROOT, "build", "bin", "scaler"))
KS = [int(k) for k in os.environ.get("KS", "1,2,4,8,16,32,48").split(",")]
MODES = os.environ.get("MODES", "all,adaptive").split(",")
N = os.environ.get("N", "2000")
PRE = shlex.split(os.environ.get("PRE", ""))


def one(exe, mode):
    """(ns per multiply, f's self per call, drive's self per call of f)"""
    prof = os.path.join(OUT, "prof")
    r = subprocess.run(PRE + [SCALER, "record", "-o", prof, "--timing=" + mode,
                              "--functions=%s:f,%s:drive" % ((os.path.basename(exe),) * 2),
                              "--", exe, N], capture_output=True, text=True)
    m = re.search(r"base ([\d.]+) ns", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit("fnlen: %s under scaler failed: %s" % (exe, r.stderr[-300:]))
    rep = subprocess.run([SCALER, "report", "-i", prof, "--format", "json"],
                         capture_output=True, text=True, check=True)
    c = {x["api"]: x for x in json.loads(rep.stdout)["calls"] if x["kind"] == "function"}
    k = int(exe.rsplit("-", 1)[1])
    calls = c["f"]["count"]
    return (float(m.group(1)) / (k + 4), c["f"]["self_ns"] / calls,
            c["drive"]["self_ns"] / calls)


def main():
    os.makedirs(OUT, exist_ok=True)
    print("K: f's chain; per call of f, ns: true, then per mode f booked (booked - true)"
          " and drive booked (booked - true)")
    for k in KS:
        exe = os.path.join(OUT, "fnlen-%d" % k)
        subprocess.run(["cc", "-O2", "-DK=%d" % k, "-I", os.path.join(ROOT, "tests/e2e/fnperf"),
                        "-o", exe, os.path.join(ROOT, "bench", "fnlen.c")], check=True)
        row, mul = "", None
        for mode in MODES:
            mul, fb, db = one(exe, mode)
            ft, dt = k * mul, 4 * mul
            row += " | %s f %6.2f (%+6.2f) drive %6.2f (%+6.2f)" % (mode, fb, fb - ft, db, db - dt)
        print("K=%2d true f %6.2f drive %5.2f%s" % (k, k * mul, 4 * mul, row), flush=True)


if __name__ == "__main__":
    main()
