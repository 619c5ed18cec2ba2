#!/bin/sh
# bench/run.sh - `make bench`: the call-rate microbenchmark. Each tool runs
# the same binary REPS times, alternating, and the median ns/call is
# reported with its ratio to the unprofiled run, all from this one run.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/bench"
mkdir -p "$out"
cc -O2 -fPIC -shared -o "$out/libbenchempty.so" "$root/bench/empty.c"
cc -O2 -o "$out/callrate" "$root/bench/callrate.c" -L"$out" -lbenchempty -Wl,-rpath,"$out"
N=${N:-20000000}
REPS=${REPS:-5}
scaler="$root/build/bin/scaler"
cd "$out"
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() { # name, command...
	name=$1; shift
	: > "$out/$name.txt"
	i=0
	while [ $i -lt "$REPS" ]; do
		"$@" 2>/dev/null | tail -n 1 >> "$out/$name.txt"
		i=$((i + 1))
	done
	median < "$out/$name.txt"
}
base=$(run base ./callrate "$N")
printf '%-26s %10s %10s %10s\n' "tool" "ns/call" "added ns" "ratio"
row() { awk -v n="$1" -v v="$2" -v b="$base" 'BEGIN {printf "%-26s %10.2f %10.2f %9.2fx\n", n, v, v-b, v/b}'; }
row "none (no profiler)" "$base"
for m in none adaptive all; do
	v=$(run "scaler-$m" "$scaler" record -o "$out/sd-$m" --timing=$m -- ./callrate "$N")
	row "scaler --timing=$m" "$v"
done
if command -v uftrace >/dev/null 2>&1; then
	n2=$((N / 20))
	v=$(run uftrace uftrace record --force -d "$out/uftrace.data" ./callrate "$n2")
	row "uftrace record --force" "$v"
fi
if command -v ltrace >/dev/null 2>&1; then
	v=$(run ltrace ltrace -c -o /dev/null ./callrate 20000)
	row "ltrace -c" "$v"
fi
echo "(N=$N calls, median of $REPS runs; machine: $(nproc) cpus, $(uname -r))"
