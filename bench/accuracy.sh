#!/bin/sh
# bench/accuracy.sh - part of `make bench`: how close adaptive timing comes
# to timing every call, and both to the truth. Profiles bench/accuracy.c
# REPS times in each mode (alternating), with the cost of timing re-measured
# on each thread as the run goes (the default) and, for comparison, with
# the start-up figure kept for the whole run (SCALER_RECAL=0). SCALER picks
# the scaler binary (default: this tree's build). Then bench/sampling.py:
# the error of adaptive's sampling alone, on a model of the same calls.
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
scaler=${SCALER:-$root/build/bin/scaler}
i=0
while [ $i -lt "$REPS" ]; do
	for m in adaptive all adaptive-fixed all-fixed; do
		recal=                  # the default: every 10 ms
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
print("per API, ns per call: the truth (the same work done by a copy of the code in the")
print("same run, loop and call taken off), then each mode's figure as a multiple of it")
print("(medians of %d runs). -fix: the start-up calibration only (SCALER_RECAL=0)" % reps)
print("%-11s %7s %7s %7s %9s %9s %9s %9s %10s  %s" % ("api", "truth", "adapt", "all",
      "adapt/tr", "all/tr", "adfix/tr", "allfix/tr", "adapt/all", "adapt/all run by run"))
worst = 0
for a, n in apis.items():
    t = med(truth[a])
    ra, rl = med(ratio["adaptive"][a]), med(ratio["all"][a])
    r = ra / rl if rl else float("nan")
    if a != "acc_cheap":
        worst = max(worst, abs(r - 1))
    pair = sorted(x / y for x, y in zip(ratio["adaptive"][a], ratio["all"][a]) if y)
    print("%-11s %7.2f %7.2f %7.2f %9.3f %9.3f %9.3f %9.3f %10.3f  %s" % (
        a, t / n, ra * t / n, rl * t / n, ra, rl, med(ratio["adaptive-fixed"][a]),
        med(ratio["all-fixed"][a]), r, " ".join("%.2f" % x for x in pair)))
print("worst adaptive/all difference %.1f %% (acc_cheap aside: its truth is under 1 ns a call," % (worst * 100))
print("below what two TSC reads resolve: compare its ns per call)")
# what timing costs the comparison itself: each mode against the truth,
# run by run; a mode that varies this much from one run to the next
# cannot be held within 5 % of the other by single runs
print("each mode against the truth, run by run (all, then adaptive):")
for a in apis:
    if a == "acc_cheap":
        continue
    print("%-11s all/tr %s   adapt/tr %s" % (a, " ".join("%.2f" % x for x in sorted(ratio["all"][a])),
                                            " ".join("%.2f" % x for x in sorted(ratio["adaptive"][a]))))
PY
# how much of adaptive's spread its sampling alone explains (no timing error)
python3 "$root/bench/sampling.py" 100
