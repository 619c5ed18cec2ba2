#!/bin/sh
# bench/accuracy.sh - part of `make bench`: how close adaptive timing comes
# to timing every call. Profiles bench/accuracy.c REPS times in each mode,
# alternating with unprofiled runs, and prints per API the median total
# time in both modes, their ratio (target: within 5 %) and the truth: the
# loop's own time measured by the unprofiled program (which includes ~1 ns
# per call of loop and call instructions).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/bench"
mkdir -p "$out"
cc -O2 -fPIC -shared -o "$out/libbenchacc.so" "$root/bench/acclib.c"
cc -O2 -o "$out/accuracy" "$root/bench/accuracy.c" -L"$out" -lbenchacc -Wl,-rpath,"$out"
REPS=${REPS:-5}
scaler="$root/build/bin/scaler"
i=0
while [ $i -lt "$REPS" ]; do
	"$out/accuracy" 2> "$out/acc-native-$i.txt" >/dev/null
	for m in adaptive all; do
		"$scaler" record -o "$out/acc-$m-$i" --timing=$m -- "$out/accuracy" >/dev/null 2>&1
		"$scaler" report -i "$out/acc-$m-$i" --format json > "$out/acc-$m-$i.json"
	done
	i=$((i + 1))
done
python3 - "$out" "$REPS" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
apis = ["acc_cheap", "acc_short", "acc_mixed", "acc_period"]
t = {m: {a: [] for a in apis} for m in ("adaptive", "all", "native")}
wall = {m: [] for m in t}
for i in range(reps):
    for line in open("%s/acc-native-%d.txt" % (out, i)):
        a, v = line.split()
        t["native"][a].append(int(v))
for m in ("adaptive", "all"):
    for i in range(reps):
        d = json.load(open("%s/acc-%s-%d.json" % (out, m, i)))
        wall[m].append(d["processes"][0]["wall_ns"])
        for c in d["calls"]:
            if c["api"] in apis:
                t[m][c["api"]].append(c["total_ns"])
print("%-12s %12s %12s %8s %12s" % ("api", "adaptive ms", "all ms", "ratio", "native ms"))
worst = 0
for a in apis:
    x, y = statistics.median(t["adaptive"][a]), statistics.median(t["all"][a])
    n = statistics.median(t["native"][a])
    r = x / y if y else 0
    worst = max(worst, abs(r - 1))
    print("%-12s %12.2f %12.2f %8.3f %12.2f" % (a, x / 1e6, y / 1e6, r, n / 1e6))
print("wall: adaptive %.0f ms, all %.0f ms (median of %d); worst adaptive/all difference %.1f %%"
      % (statistics.median(wall["adaptive"]) / 1e6, statistics.median(wall["all"]) / 1e6,
         reps, worst * 100))
PY
