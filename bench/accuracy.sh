#!/bin/sh
# bench/accuracy.sh - part of `make bench`: how close adaptive timing comes
# to timing every call, and both to the truth. Profiles bench/accuracy.c
# REPS times in each mode (alternating), with the cost of timing re-measured
# on each thread as the run goes (the default) and, for comparison, with
# the start-up figure kept for the whole run (SCALER_RECAL=0).
#
# The truth is measured inside each profiled run (see accuracy.c): a private
# copy of each API's code runs beside its calls, block by block, so a run is
# held against the speed the machine had during that very run. Per API it
# prints the median over runs of (profiler's figure / truth) for each mode,
# adaptive's against all's (target: within 5 %) and the same difference in
# ns per call (for acc_cheap, a function of well under 1 ns, 5 % is a few
# hundredths of a ns: below what two TSC reads can resolve, so its line
# shows the floor), and the run-by-run ratios (adaptive and all runs are
# made back to back), which show how much of the spread is the machine.
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
	for m in adaptive all adaptive-fixed all-fixed; do
		recal=1
		case $m in *-fixed) recal=0 ;; esac
		SCALER_RECAL=$recal "$scaler" record -o "$out/acc-$m-$i" --timing=${m%-fixed} \
			-- "$out/accuracy" >/dev/null 2> "$out/acc-$m-$i.txt"
		"$scaler" report -i "$out/acc-$m-$i" --format json > "$out/acc-$m-$i.json"
	done
	i=$((i + 1))
done
python3 - "$out" "$REPS" <<'PY'
import json, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
apis = {"acc_cheap": 20e6, "acc_short": 2e6, "acc_mixed": 1e6, "acc_period": 1e6}
modes = ("adaptive", "all", "adaptive-fixed", "all-fixed")
ratio = {m: {a: [] for a in apis} for m in modes}
truth = {a: [] for a in apis}
for m in modes:
    for i in range(reps):
        own = {}
        for line in open("%s/acc-%s-%d.txt" % (out, m, i)):
            f = line.split()
            if len(f) == 2 and f[0] in apis:
                own[f[0]] = int(f[1])
        d = json.load(open("%s/acc-%s-%d.json" % (out, m, i)))
        for c in d["calls"]:
            if c["api"] in apis and own.get(c["api"]):
                ratio[m][c["api"]].append(c["total_ns"] / own[c["api"]])
                truth[c["api"]].append(own[c["api"]])
med = lambda v: statistics.median(v) if v else float("nan")
print("figure / truth (medians of %d runs; truth: the same work done by a copy of the" % reps)
print("code in the same run). fixed: start-up calibration only (SCALER_RECAL=0)")
print("%-11s %9s %9s %9s %9s %9s %10s %9s  %s" % ("api", "truth ms", "adaptive", "all",
      "adapt-fix", "all-fix", "adapt/all", "ns/call", "adapt/all run by run"))
worst = 0
for a, n in apis.items():
    ra, rl = med(ratio["adaptive"][a]), med(ratio["all"][a])
    t = med(truth[a])
    r = ra / rl if rl else float("nan")
    dns = (ra - rl) * t / n
    if a != "acc_cheap":
        worst = max(worst, abs(r - 1))
    pair = sorted(x / y for x, y in zip(ratio["adaptive"][a], ratio["all"][a]) if y)
    print("%-11s %9.1f %9.3f %9.3f %9.3f %9.3f %10.3f %+9.2f  %s" % (
        a, t / 1e6, ra, rl, med(ratio["adaptive-fixed"][a]), med(ratio["all-fixed"][a]), r, dns,
        " ".join("%.2f" % x for x in pair)))
print("worst adaptive/all difference %.1f %% (acc_cheap aside: see its ns/call)" % (worst * 100))
PY
