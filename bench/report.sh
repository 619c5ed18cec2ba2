#!/bin/sh
# bench/report.sh - part of `make bench`: how long `scaler report` takes on
# a 64-thread profile (target: under 100 ms), median of REPS runs of each
# output format, and the size of the profile it reads.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/bench"
mkdir -p "$out"
cc -O2 -pthread -o "$out/threads64" "$root/bench/threads64.c" -lm
REPS=${REPS:-5}
scaler="$root/build/bin/scaler"
"$scaler" record -o "$out/t64" -- "$out/threads64" >/dev/null
python3 - "$scaler" "$out/t64" "$REPS" <<'PY'
import os, statistics, subprocess, sys, time
scaler, d, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = os.listdir(d)
thr = [f for f in files if f.endswith(".thr")]
disk = sum(os.stat(os.path.join(d, f)).st_blocks * 512 for f in files)
for fmt in ("text", "json"):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run([scaler, "report", "-i", d, "--format", fmt], check=True,
                       stdout=subprocess.DEVNULL)
        ts.append(time.perf_counter() - t0)
    print("scaler report --format %-5s %7.1f ms (median of %d; %d thread files, %.1f MB on disk)"
          % (fmt, statistics.median(ts) * 1e3, reps, len(thr), disk / 1e6))
PY
