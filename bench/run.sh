#!/usr/bin/env bash
# bench/run.sh - `make bench`, three parts in one run (PARTS selects):
#   callrate  ns per call of an empty shared-library function: no profiler,
#             each scaler timing mode, uftrace record --force, ltrace -c
#             (fewer calls), perf record -g -F 4000; median of CALL_REPS
#             runs each, alternating tools, one table with ratios
#   servers   redis-server + redis-benchmark, nginx + wrk, memcached +
#             memcslap, postgres + pgbench, a sqlite3 workload: REPS rounds
#             of (no profiler, scaler record, scaler record --kernel, perf
#             record -g -F 4000) in turn (3 x REPS for sqlite3: no --kernel);
#             median throughput (or time) and
#             peak RSS; the loss is the median of each round's ratio to its
#             own baseline run, in throughput (or time) and in the server's
#             CPU time per request, beside the spread of the baseline runs
#             (the host's noise); what --kernel adds to scaler, in CPU
#             time per request
#   memory    bytes per (thread, caller, API) record, read from a profile's
#             thread file header, and the RSS a profile adds to a program
#             with many threads x many APIs
#   accuracy  adaptive vs all vs the program's own time (bench/accuracy.sh)
#   report    time of `scaler report` on a 64-thread profile (bench/report.sh)
#   floor     what an interposed call costs at the least on this machine,
#             piece by piece (bench/floor.c): extra jumps, counting, two
#             rdtsc, a redirected return, a paired call; median of CALL_REPS
#             runs
#   functions ns per call of an empty static function patched at its
#             entry (--functions, `callrate N own`), called from its own
#             executable, in each timing mode, beside a timed import's
#             (callrate, --timing=all) and uftrace -P's in the same rounds:
#             what the register-keeping path of own-component calls costs
#             (fnown.S), and what another tool's costs; and the start-up
#             cost of patching every function of a ~5 MB executable
#             (FN_EXE, python3.11): CPU time per start under scaler record
#             with and without --functions='EXE:*', FN_SPAWN_N starts (10)
#             in each of CALL_REPS alternating rounds (bench/spawn.c)
#   startup   what scaler adds to each process start, beside a bare run
#             (bench/startup.sh: /bin/true, python3, sqlite3, git, each
#             started in a row by a driver; also runs alone)
# Servers, clients and their start/stop code are tests/apps/lib.sh (shared
# with `make check-apps`); missing tools and servers are installed from
# Debian's packages. Prints markdown tables (doc/performance.md holds the
# latest). Environment: PARTS, REPS (5 rounds of servers), CALL_REPS (5),
# N (20000000 calls), SERVERS, DUR (seconds of wrk/pgbench load, 3),
# MEMC_N (sets per memcslap thread, 40000), FN_EXE and FN_SPAWN_N (part
# functions), MODES (of part b: base scaler
# kernel perf), THREADS (64).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/apps/lib.sh"
PARTS=${PARTS:-callrate functions floor startup servers memory accuracy report}
REPS=${REPS:-5}
export MEMC_N=${MEMC_N:-40000}
CALL_REPS=${CALL_REPS:-5}
N=${N:-20000000}
SERVERS=${SERVERS:-redis nginx memcached postgres sqlite3}
CALL_NS=${CALL_NS:-1.4}      # added ns per counted call when part (a) does not run: its
                             # quiet figure, adaptive, sixteen APIs (2026-11-23)
THREADS=${THREADS:-64}
out="$ROOT/build/bench"
mkdir -p "$out"
apps_init
case " $PARTS " in
*" servers "*) apps_install uftrace ltrace hyperfine perf time redis-server redis-benchmark \
	redis-cli nginx wrk memcached memcslap postgres pgbench psql sqlite3 setpriv ||
	echo "warning: apt-get install failed" >&2 ;;
*) apps_install uftrace ltrace hyperfine perf time || echo "warning: apt-get install failed" >&2 ;;
esac

median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cpus, kernel $(uname -r), $(ldd --version | head -n 1 | sed 's/.* //')"
echo

# ---- (a) call rate -----------------------------------------------------------
if [[ " $PARTS " == *" callrate "* ]]; then
	cc -O2 -fPIC -shared -o "$out/libbenchempty.so" "$ROOT/bench/empty.c"
	cc -O2 -o "$out/callrate" "$ROOT/bench/callrate.c" -L"$out" -lbenchempty -Wl,-rpath,"$out"
	cd "$out"
	tools=("none" "scaler-none" "scaler-adaptive" "scaler-all" "perf")
	command -v uftrace >/dev/null && tools+=(uftrace)
	command -v ltrace >/dev/null && tools+=(ltrace)
	# v-*: the same with sixteen APIs called in a random order (callrate.c)
	tools+=(v-none v-scaler-none v-scaler-adaptive v-scaler-all)
	for t in "${tools[@]}"; do : > "$out/cr-$t.txt"; done
	# one run of each tool per round, so drifts of the machine hit all alike
	for i in $(seq "$CALL_REPS"); do
		for t in "${tools[@]}"; do
			case $t in
			none) ./callrate "$N" ;;
			v-none) ./callrate "$N" 16 ;;
			v-scaler-*) t2=${t#v-}
				"$SCALER" record -o "$out/sd-$t" --timing="${t2#scaler-}" -- ./callrate "$N" 16 ;;
			scaler-*) "$SCALER" record -o "$out/sd-$t" --timing="${t#scaler-}" -- ./callrate "$N" ;;
			perf) perf record -q -g -F 4000 -o "$out/perf-callrate.data" -- ./callrate "$N" ;;
			uftrace) uftrace record --force -d "$out/uftrace.data" ./callrate $((N / 20)) ;;
			ltrace) ltrace -c -o /dev/null ./callrate 20000 ;;
			esac 2>/dev/null | tail -n 1 >> "$out/cr-$t.txt"
		done
	done
	rm -rf "$out/perf-callrate.data" "$out/uftrace.data"
	# column 1: a run's mean, the median over runs; column 2: its fastest
	# batch of 10000 calls, the least over runs ("quiet", callrate.c)
	mean_of() { cut -d' ' -f1 "$out/cr-$1.txt" | median; }
	quiet_of() { cut -d' ' -f2 "$out/cr-$1.txt" | sort -g | head -n 1; }
	base=$(mean_of none)
	qbase=$(quiet_of none)
	# what part (b)'s cost table charges per intercepted call: adaptive's
	# added cost with sixteen APIs in a random order, as real programs call
	CALL_NS=$(mean_of v-scaler-adaptive | awk -v b="$(mean_of v-none)" '{ printf "%.1f", $1 - b }')
	echo "### (a) call rate: ns per call, median of $CALL_REPS alternating runs; quiet: fastest batch of 10000 calls"
	echo
	echo "| tool | ns/call | added ns/call | ratio | quiet ns/call | quiet added |"
	echo "|---|---:|---:|---:|---:|---:|"
	for t in "${tools[@]}"; do
		case $t in
		v-*) continue ;;
		none) name="no profiler" ;;
		scaler-adaptive) name="scaler --timing=adaptive (default)" ;;
		scaler-*) name="scaler --timing=${t#scaler-}" ;;
		perf) name="perf record -g -F 4000" ;;
		uftrace) name="uftrace record --force ($((N / 20)) calls)" ;;
		ltrace) name="ltrace -c (20000 calls)" ;;
		esac
		v=$(mean_of "$t")
		q=$(quiet_of "$t")
		awk -v n="$name" -v v="$v" -v b="$base" -v q="$q" -v qb="$qbase" \
			'BEGIN {printf "| %s | %.2f | %.2f | %.2fx | %.2f | %.2f |\n", n, v, v-b, v/b, q, q-qb}'
	done
	echo
	echo "($N calls of an empty function in a shared library, timed inside the program)"
	echo
	echo "Sixteen empty functions called in a random order (\`callrate N 16\`), in the same rounds:"
	echo "what a profiler adds when the program does not call the same API every time"
	echo
	echo "| tool | ns/call | added ns/call | quiet ns/call | quiet added |"
	echo "|---|---:|---:|---:|---:|"
	vbase=$(mean_of v-none); vqbase=$(quiet_of v-none)
	for t in v-none v-scaler-none v-scaler-adaptive v-scaler-all; do
		case $t in
		v-none) name="no profiler" ;;
		v-scaler-adaptive) name="scaler --timing=adaptive (default)" ;;
		*) t2=${t#v-}; name="scaler --timing=${t2#scaler-}" ;;
		esac
		awk -v n="$name" -v v="$(mean_of "$t")" -v b="$vbase" -v q="$(quiet_of "$t")" -v qb="$vqbase" \
			'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", n, v, v-b, q, q-qb}'
	done
	echo
	cd "$ROOT"
fi

# ---- functions: a patched function's entry -----------------------------------
if [[ " $PARTS " == *" functions "* ]]; then
	cc -O2 -fPIC -shared -o "$out/libbenchempty.so" "$ROOT/bench/empty.c"
	cc -O2 -o "$out/callrate" "$ROOT/bench/callrate.c" -L"$out" -lbenchempty -Wl,-rpath,"$out"
	cd "$out"
	ftools=(none none-import scaler-none scaler-adaptive scaler-all all-import)
	# uftrace patches the same compiler-made site (-P, dynamic tracing)
	command -v uftrace >/dev/null && ftools+=(uftrace)
	for t in "${ftools[@]}"; do : > "$out/fr-$t.txt"; done
	for i in $(seq "$CALL_REPS"); do
		for t in "${ftools[@]}"; do
			case $t in
			none) ./callrate "$N" own ;;
			none-import) ./callrate "$N" ;;
			all-import) "$SCALER" record -o "$out/sd-fr" --timing=all -- ./callrate "$N" ;;
			uftrace) uftrace record --force -d "$out/uftrace-fr.data" -P fr_empty \
				./callrate $((N / 20)) own ;;
			scaler-*) "$SCALER" record -o "$out/sd-fr" --functions=fr_empty \
				--timing="${t#scaler-}" -- ./callrate "$N" own ;;
			esac 2>/dev/null | tail -n 1 >> "$out/fr-$t.txt"
		done
	done
	fmean() { cut -d' ' -f1 "$out/fr-$1.txt" | median; }
	fquiet() { cut -d' ' -f2 "$out/fr-$1.txt" | sort -g | head -n 1; }
	echo "### functions: ns per call of an empty static function patched at its entry, median of $CALL_REPS alternating runs"
	echo
	echo "| calls | ns/call | added ns/call | quiet ns/call | quiet added |"
	echo "|---|---:|---:|---:|---:|"
	for t in "${ftools[@]}"; do
		case $t in
		none) name="fr_empty, no profiler"; b=none ;;
		none-import) name="an import (callrate), no profiler"; b=none-import ;;
		all-import) name="an import, scaler --timing=all (common return path)"; b=none-import ;;
		scaler-adaptive) name="fr_empty, scaler --functions (adaptive)"; b=none ;;
		scaler-*) name="fr_empty, scaler --functions --timing=${t#scaler-}"; b=none ;;
		uftrace) name="fr_empty, uftrace record -P fr_empty ($((N / 20)) calls)"; b=none ;;
		esac
		awk -v n="$name" -v v="$(fmean "$t")" -v b="$(fmean "$b")" -v q="$(fquiet "$t")" \
			-v qb="$(fquiet "$b")" \
			'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", n, v, v-b, q, q-qb}'
	done
	echo
	rm -rf "$out/uftrace-fr.data"
	echo "($N calls each; fr_empty is called from its own executable: its timed calls take fnown.S's path, which keeps every register)"
	echo
	# start-up: every function of a large executable patched at each start
	exe=${FN_EXE:-/usr/bin/python3.11}
	if [ -x "$exe" ]; then
		cc -O2 -Wall -Wextra -Werror -o "$out/spawn" "$ROOT/bench/spawn.c"
		base=$(basename "$exe")
		for m in none scaler functions; do : > "$out/fs-$m.txt"; done
		for i in $(seq "$CALL_REPS"); do
			for m in none scaler functions; do
				case $m in
				none) ./spawn "${FN_SPAWN_N:-10}" "$exe" -c pass ;;
				scaler) "$SCALER" record -o "$out/sd-fs" -- ./spawn "${FN_SPAWN_N:-10}" "$exe" -c pass ;;
				functions) "$SCALER" record -o "$out/sd-fs" --functions="$base:*" -- \
					./spawn "${FN_SPAWN_N:-10}" "$exe" -c pass 2>"$out/fs-patched.txt" ;;
				esac >> "$out/fs-$m.txt"
			done
		done
		echo "### functions: start-up with every function of $exe ($(($(stat -c %s "$exe") / 1000000)) MB) patched, CPU ms per start, median of $((${FN_SPAWN_N:-10} * CALL_REPS)) starts in $CALL_REPS alternating rounds"
		echo
		echo "| run | CPU ms per start | added to scaler record |"
		echo "|---|---:|---:|"
		python3 - "$base" "$out/fs-none.txt" "$out/fs-scaler.txt" "$out/fs-functions.txt" <<'EOF'
import statistics, sys
cpu = [statistics.median(int(l.split()[1]) / 1e6 for l in open(p) if l.strip()) for p in sys.argv[2:5]]
names = ("no profiler", "scaler record", "scaler record --functions='%s:*'" % sys.argv[1])
for i, (name, v) in enumerate(zip(names, cpu)):
    print("| %s | %.1f | %s |" % (name, v, "%+.1f" % (v - cpu[1]) if i == 2 else ""))
EOF
		echo
		echo "(CPU: user + system time of the started process, bench/spawn.c; the last round's record of ${FN_SPAWN_N:-10} starts: $(grep -m 1 'functions patched' "$out/fs-patched.txt" | sed 's/^scaler: //'))"
		echo
		rm -rf "$out/sd-fs" "$out/sd-fs.old"
	fi
	cd "$ROOT"
fi

# ---- (b) real servers ---------------------------------------------------------
if [[ " $PARTS " == *" servers "* ]]; then
	modes=${MODES:-base scaler kernel perf}     # MODES="base scaler": no perf rounds
	# calls_of PROFILE REQUESTS: intercepted calls per request in a profile
	calls_of() {
		"$SCALER" report -i "$1" --format json | python3 -c 'import json, sys
print(sum(c["count"] for c in json.load(sys.stdin)["calls"]) / int(sys.argv[1]))' "$2"
	}
	for app in $SERVERS; do
		for m in base scaler kernel perf bare; do  # all: a mode left out prints nan, not an old run
			: > "$out/sv-$app-$m.tput"; : > "$out/sv-$app-$m.rss"; : > "$out/sv-$app-$m.anon"
			: > "$out/sv-$app-$m.cpu"
		done
		: > "$out/sv-$app-calls"
		case $app in
		sqlite3) prog_setup sqlite3
			cc -O2 -Wall -Wextra -Werror -o "$out/rusage" "$ROOT/bench/rusage.c"
			export PROG_RUSAGE=$out/rusage ;;
		*) srv_setup "$app" ;;
		esac
		# sqlite3's run is short (0.3 s): three times the rounds
		# and, for sqlite3, a run whose entries only jump on (bare)
		reps=$REPS amodes=$modes
		# (--kernel is for servers: sqlite3's figure would be its start-up)
		[ "$app" = sqlite3 ] && reps=$((REPS * 3)) && amodes="$(echo "$modes" |
			sed 's/\bkernel\b//') bare"
		for i in $(seq "$reps"); do
			for m in $amodes; do
				d=$APPS_TMP/b-$app-$m-$i
				if [ "$app" = sqlite3 ]; then
					t=$(PROG_RSS="$d/rss" prog_run sqlite3 "$m" "$d")
					echo "$t" >> "$out/sv-$app-$m.tput"
					read -r kb us ss < "$d/rss"
					echo "$kb" >> "$out/sv-$app-$m.rss"
					echo nan >> "$out/sv-$app-$m.anon"
					echo "$us $ss" | awk '{ print ($1 + $2) * 1e6 }' >> "$out/sv-$app-$m.cpu"
					[ "$m" = scaler ] && calls_of "$d/prof" 1 >> "$out/sv-$app-calls"
				elif srv_start "$app" "$m" "$d"; then
					rss_watch "$d/rss"
					r=$(srv_load "$app" "$d") || true
					rss_peak
					srv_stop "$app"
					# one line per round, nan for a failed run: ratios pair rounds
					echo "${r:-nan}" >> "$out/sv-$app-$m.tput"
					echo "$RSS_PEAK" >> "$out/sv-$app-$m.rss"
					echo "$RSS_ANON" >> "$out/sv-$app-$m.anon"
					req=$(srv_requests "$app" "$d")
					# server CPU µs per request; intercepted calls per request
					if [ -n "$req" ] && [ "$req" -gt 0 ]; then
						awk -v c="$SRV_CPU_MS" -v r="$req" 'BEGIN { print c * 1000 / r }'
					else
						echo nan
					fi >> "$out/sv-$app-$m.cpu"
					[ "$m" = scaler ] && [ -n "$req" ] && calls_of "$d/prof" "$req" >> "$out/sv-$app-calls"
				else
					echo nan >> "$out/sv-$app-$m.tput"
					echo nan >> "$out/sv-$app-$m.cpu"
					kill -KILL $(tree_pids "$SRV_LAUNCH") 2>/dev/null || true
				fi
				rm -rf "$d"     # perf.data and profiles are large
			done
		done
	done
	echo "### (b) real servers: median of $REPS alternating rounds (no profiler, scaler, perf; sqlite3 $((REPS * 3)))"
	echo
	echo "Loss: the median over rounds of each run's throughput (or time) against the baseline"
	echo "run of its own round, so that the host's slow phases, which last seconds to minutes,"
	echo "hit both sides of a ratio. CPU per request: the same for the CPU time the server's"
	echo "processes used per request served (sqlite3: per run), which the client's share of"
	echo "the two CPUs does not move. Baseline spread: the slowest and fastest baseline run"
	echo "against their median, i.e. what the same unprofiled run does from round to round."
	echo
	echo "| workload | metric | no profiler | scaler | scaler loss | scaler CPU per request | perf -g -F 4000 | perf loss | perf CPU per request | baseline spread | peak RSS MB | scaler RSS | perf RSS | private (anon) MB: none / scaler |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for app in $SERVERS; do
		case $app in
		redis) w="redis-server + redis-benchmark (20 conns, SET+GET)"; u="GET req/s" ;;
		nginx) w="nginx master + 2 workers + wrk (16 KiB page, ${DUR} s)"; u="req/s" ;;
		memcached) w="memcached -t 2 + memcslap (4 x ${MEMC_N:-10000} sets)"; u="sets/s" ;;
		postgres) w="postgres + pgbench TPC-B (4 conns, ${DUR} s)"; u="tps" ;;
		sqlite3) w="sqlite3 (${SQLITE_ROWS:-100000}-row insert, index, join)"; u="seconds" ;;
		esac
		b=$(grep -v nan "$out/sv-$app-base.tput" | median)
		s=$(grep -v nan "$out/sv-$app-scaler.tput" | median)
		p=$(grep -v nan "$out/sv-$app-perf.tput" | median)
		# loss_of MODE: the median of the rounds' losses against their baseline
		loss_of() {
			paste "$out/sv-$app-base.tput" "$out/sv-$app-$1.tput" | awk -v u="$u" '
				$1 != "nan" && $2 != "nan" && $1 > 0 && $2 > 0 {
					print (u == "seconds") ? $2 / $1 - 1 : 1 - $2 / $1 }' | median
		}
		# cpu_of MODE: the same for the server's CPU time per request (the
		# program's, sqlite3): what the profiler costs the program itself,
		# whatever the client and the host's other guests do meanwhile
		cpu_of() {
			paste "$out/sv-$app-base.cpu" "$out/sv-$app-$1.cpu" | awk '
				$1 != "nan" && $2 != "nan" && $1 > 0 && $2 > 0 { print $2 / $1 - 1 }' | median
		}
		ls=$(loss_of scaler); lp=$(loss_of perf)
		cs=$(cpu_of scaler); cp=$(cpu_of perf)
		spread=$(grep -v nan "$out/sv-$app-base.tput" | sort -g | awk -v m="$b" '
			NR == 1 { lo = $1 } { hi = $1 } END { printf "%+.0f%% / %+.0f%%", 100 * (lo / m - 1), 100 * (hi / m - 1) }')
		rb=$(median < "$out/sv-$app-base.rss"); rs=$(median < "$out/sv-$app-scaler.rss")
		rp=$(median < "$out/sv-$app-perf.rss")
		ab=$(grep -v nan "$out/sv-$app-base.anon" | median); as=$(grep -v nan "$out/sv-$app-scaler.anon" | median)
		awk -v w="$w" -v u="$u" -v b="$b" -v s="$s" -v p="$p" -v rb="$rb" -v rs="$rs" -v rp="$rp" \
			-v ab="$ab" -v as="$as" -v ls="$ls" -v lp="$lp" -v sp="$spread" -v cs="$cs" -v cp="$cp" 'BEGIN {
			# loss: throughput lost, or time added (sqlite3)
			an = (ab == "nan") ? "-" : sprintf("%.1f / %.1f (%.2fx)", ab / 1024, as / 1024, as / ab)
			printf "| %s | %s | %.6g | %.6g | %+.1f%% | %+.1f%% | %.6g | %+.1f%% | %+.1f%% | %s | %.1f | %.1f (%.2fx) | %.1f (%.2fx) | %s |\n",
				w, u, b, s, 100 * ls, 100 * cs, p, 100 * lp, 100 * cp, sp, rb / 1024, rs / 1024, rs / rb,
				rp / 1024, rp / rb, an }'
	done
	if [[ " $modes " == *" kernel "* ]]; then
		echo
		echo "What \`scaler record --kernel\` adds (kernel stacks sampled at 250 Hz, per CPU where"
		echo "allowed, with their callchains): the median over rounds of each round's --kernel run"
		echo "against its scaler run without it, in the server's CPU time per request and in"
		echo "throughput:"
		echo
		echo "| workload | scaler CPU µs per request | --kernel CPU µs per request | --kernel CPU added | --kernel throughput lost |"
		echo "|---|---:|---:|---:|---:|"
		for app in $SERVERS; do
			[ "$app" = sqlite3 ] && continue
			cs=$(grep -v nan "$out/sv-$app-scaler.cpu" | median)
			ck=$(grep -v nan "$out/sv-$app-kernel.cpu" | median)
			ka=$(paste "$out/sv-$app-scaler.cpu" "$out/sv-$app-kernel.cpu" | awk '
				$1 != "nan" && $2 != "nan" && $1 > 0 && $2 > 0 { print $2 / $1 - 1 }' | median)
			kt=$(paste "$out/sv-$app-scaler.tput" "$out/sv-$app-kernel.tput" | awk '
				$1 != "nan" && $2 != "nan" && $1 > 0 && $2 > 0 { print 1 - $2 / $1 }' | median)
			awk -v w="$app" -v cs="$cs" -v ck="$ck" -v ka="$ka" -v kt="$kt" 'BEGIN {
				printf "| %s | %.2f | %.2f | %+.1f%% | %+.1f%% |\n", w, cs, ck, 100 * ka, 100 * kt }'
		done
	fi
	if [[ " $SERVERS " == *" sqlite3 "* ]]; then
		app=sqlite3 u=seconds
		echo
		echo "The floor under any interposer that patches GOT slots, on sqlite3 ($(median < "$out/sv-$app-calls" |
			awk '{ printf "%.1f M", $1 / 1e6 }') intercepted calls in $(grep -v nan "$out/sv-$app-base.tput" |
			median) s): the same rounds with entries that only jump on to the API"
		echo "(\`SCALER_BARE=1 scaler record\`: nothing counted or timed, same patching and start-up)"
		echo "cost $(loss_of bare | awk '{ printf "%+.1f%%", 100 * $1 }') time and $(cpu_of bare |
			awk '{ printf "%+.1f%%", 100 * $1 }') CPU, against scaler's $(loss_of scaler |
			awk '{ printf "%+.1f%%", 100 * $1 }') and $(cpu_of scaler | awk '{ printf "%+.1f%%", 100 * $1 }')."
	fi
	echo
	echo "Where the time goes: calls the profile counted per request, the server's CPU time per"
	echo "request without a profiler, and what those calls cost at the call-rate benchmark's"
	echo "added ns per call (${CALL_NS} ns: adaptive, sixteen APIs in a random order, part a) as a"
	echo "share of that CPU time:"
	echo
	echo "| workload | intercepted calls per request | server CPU µs per request | calls x ${CALL_NS} ns / CPU |"
	echo "|---|---:|---:|---:|"
	for app in $SERVERS; do
		c=$(median < "$out/sv-$app-calls"); cpu=$(grep -v nan "$out/sv-$app-base.cpu" | median)
		[ "$app" = sqlite3 ] && what="$app (per run)" || what=$app
		awk -v w="$what" -v c="$c" -v u="$cpu" -v k="$CALL_NS" 'BEGIN {
			printf "| %s | %.1f | %.2f | %.2f%% |\n", w, c, u, 100 * c * k / 1000 / u }'
	done
	echo
	# sqlite3 once more under cachegrind: instructions and branches are
	# counted, not timed, so the host's speed does not move them. With
	# --timing=none: under valgrind a call looks ~50x longer to the TSC,
	# so adaptive's budget would time many more calls than it does natively
	if [[ " $SERVERS " == *" sqlite3 "* ]] && command -v valgrind >/dev/null; then
		for m in base scaler; do
			d=$APPS_TMP/cg-$m
			rm -rf "$d"; mkdir -p "$d/work"
			pre=; [ "$m" = scaler ] && pre="$SCALER record -o $d/prof --timing=none --"
			(cd "$d/work" && $pre valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes \
				--cachegrind-out-file=/dev/null sqlite3 w.db < "$APPS_TMP/sqlite.sql") \
				> /dev/null 2> "$out/cg-$m.err" || true
			[ "$m" = scaler ] && { calls_of "$d/prof" 1 > "$out/cg-calls" 2>/dev/null || true; }
			rm -rf "$d"
		done
		echo "sqlite3 under cachegrind (\`valgrind --tool=cachegrind --branch-sim=yes\`): what one run"
		echo "executes, counted whatever the host's speed (mispredictions: cachegrind's model of a predictor)"
		echo
		python3 - "$out/cg-base.err" "$out/cg-scaler.err" "$out/cg-calls" <<'EOF'
import re, sys
def read(path):
    t = open(path).read().replace(",", "")
    ir = int(re.search(r"I\s+refs:\s+(\d+)", t).group(1))
    br = re.search(r"Branches:\s+(\d+)\s+\(\s*(\d+) cond \+\s*(\d+) ind", t)
    mp = re.search(r"Mispredicts:\s+(\d+)\s+\(\s*(\d+) cond \+\s*(\d+) ind", t)
    return ir, int(br.group(3)), int(mp.group(2)), int(mp.group(3))
try:
    b, s = read(sys.argv[1]), read(sys.argv[2])
    calls = float(open(sys.argv[3]).read().split()[0])
except (OSError, AttributeError, ValueError, IndexError):
    print("(cachegrind run failed: see %s)" % sys.argv[2])
    sys.exit(0)
print("| | instructions | indirect jumps | cond. mispredicted | indirect mispredicted |")
print("|---|---:|---:|---:|---:|")
print("| no profiler | %d | %d | %d | %d |" % b)
print("| scaler --timing=none (adaptive's path for all but ~1 %% of calls) | %d | %d | %d | %d |" % s)
print("| added | %+.1f%% | %+d | %+d | %+d |" % (100.0 * (s[0] - b[0]) / b[0], s[1] - b[1],
                                              s[2] - b[2], s[3] - b[3]))
print("| added per intercepted call (%d calls) | %.1f | %.2f | %.3f | %.3f |" % (
    calls, (s[0] - b[0]) / calls, (s[1] - b[1]) / calls, (s[2] - b[2]) / calls,
    (s[3] - b[3]) / calls))
EOF
		echo
	fi
	echo "(peak RSS: the largest sum of VmHWM over the server's processes, sampled every 0.1 s while"
	echo " the client runs; sqlite3: GNU time's maximum RSS of the sqlite3 process. The profiler's own"
	echo " process (scaler record, perf) is not counted. Private: the largest sum of RssAnon, i.e."
	echo " without the file pages of the program and its libraries. Raw runs: build/bench/sv-*)"
	echo
fi

# ---- (c) memory -----------------------------------------------------------------
if [[ " $PARTS " == *" memory "* ]]; then
	# 512 functions in a library, each called by the program through its own PLT slot
	nf=512
	{
		for i in $(seq 0 $((nf - 1))); do echo "void f$i(void) { __asm__ volatile(\"\"); }"; done
	} > "$out/libmanyapis.c"
	{
		echo "/* generated by bench/run.sh */"
		for i in $(seq 0 $((nf - 1))); do echo "void f$i(void);"; done
		echo "static void call_all(void) {"
		for i in $(seq 0 $((nf - 1))); do echo "	f$i();"; done
		echo "}"
	} > "$out/manyapis_calls.h"
	cc -O2 -fPIC -shared -o "$out/libmanyapis.so" "$out/libmanyapis.c"
	cc -O2 -pthread -I"$out" -o "$out/manyapis" "$ROOT/bench/manyapis.c" -L"$out" -lmanyapis \
		-Wl,-rpath,"$out"
	for t in 1 "$THREADS"; do
		for m in base scaler; do : > "$out/mem-$m-$t.txt"; done
		for i in $(seq "$REPS"); do
			/usr/bin/time -f %M -o "$out/mem.tmp" "$out/manyapis" "$t"
			cat "$out/mem.tmp" >> "$out/mem-base-$t.txt"
			# GNU time reports the largest of the recorder and the program: the program
			/usr/bin/time -f %M -o "$out/mem.tmp" "$SCALER" record -o "$out/sd-mem-$t" -- \
				"$out/manyapis" "$t"
			cat "$out/mem.tmp" >> "$out/mem-scaler-$t.txt"
		done
	done
	thr=$(ls "$out/sd-mem-$THREADS"/*-t1.thr | head -n 1)
	python3 - "$thr" "$out" "$THREADS" "$nf" <<'EOF'
import os, statistics, struct, sys
thr, out, T, nf = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with open(thr, "rb") as f:
    h = f.read(24)
# struct sc_thr_header: magic[8], version, seq, tid, rec_size (src/common/format.h)
magic, version, seq, tid, rec_size = struct.unpack("<8sIIII", h)
size = os.path.getsize(thr)
def med(name):
    return statistics.median(int(x) for x in open(os.path.join(out, name)).read().split())
b1, bt, s1, st = med("mem-base-1.txt"), med("mem-base-%d.txt" % T), med("mem-scaler-1.txt"), med("mem-scaler-%d.txt" % T)
per_thread = ((st - bt) - (s1 - b1)) * 1024 / (T - 1)
print("### (c) memory")
print()
print("| quantity | value |")
print("|---|---:|")
print("| bytes per (thread, caller, API) record (rec_size in %s) | %d |" % (os.path.basename(thr), rec_size))
print("| thread file: 256-byte header + one record per entry the process has called (room for %d) | %d bytes |" % ((size - 256) // rec_size, size))
print("| %d threads x %d APIs, peak RSS without / with scaler (median of runs) | %.1f MB / %.1f MB (+%.1f%%) |" % (T, nf, bt / 1024, st / 1024, 100.0 * (st - bt) / bt))
print("| 1 thread x %d APIs, peak RSS without / with scaler | %.1f MB / %.1f MB (+%.1f%%) |" % (nf, b1 / 1024, s1 / 1024, 100.0 * (s1 - b1) / b1))
print("| RSS added per extra thread | %.0f bytes (%.0f per API it calls) |" % (per_thread, per_thread / nf))
print()
print("(peak RSS: GNU time's maximum resident set of the program; the per-thread figure is")
print(" ((with - without) at %d threads - (with - without) at 1 thread) / %d)" % (T, T - 1))
EOF
	rm -rf "$out"/sd-mem-*
fi

# ---- accuracy of adaptive timing, report speed (their own scripts) ----------
if [[ " $PARTS " == *" accuracy "* ]]; then
	echo
	sh "$ROOT/bench/accuracy.sh"
fi
if [[ " $PARTS " == *" startup "* ]]; then
	echo
	apps_install sqlite3 git || echo "warning: apt-get install failed" >&2
	SCALER=$SCALER bash "$ROOT/bench/startup.sh"
fi
if [[ " $PARTS " == *" report "* ]]; then
	echo
	sh "$ROOT/bench/report.sh"
fi
if [[ " $PARTS " == *" floor "* ]]; then
	echo
	cc -O2 -fPIC -shared -o "$out/libbenchempty.so" "$ROOT/bench/empty.c"
	cc -O2 -o "$out/floor" "$ROOT/bench/floor.c" -L"$out" -lbenchempty -Wl,-rpath,"$out"
	for i in $(seq "$CALL_REPS"); do "$out/floor" "$N"; done > "$out/floor.txt"
	python3 - "$out/floor.txt" <<'EOF'
import statistics, sys
rows, quiet = {}, {}
for line in open(sys.argv[1]):
    k, v, q = line.split()
    rows.setdefault(k, []).append(float(v))
    quiet.setdefault(k, []).append(float(q))
base = statistics.median(rows["direct"])
qbase = min(quiet["direct"])
print("### (d) the floor: what interposing costs at the least here (bench/floor.c)")
print()
print("| path | ns/call | added ns/call | quiet ns/call | quiet added |")
print("|---|---:|---:|---:|---:|")
what = {"direct": "call through the function pointer (as the PLT does)",
        "+jmp": "+ one indirect jump (any GOT-patching interposer)",
        "+entry": "+ 16-byte stub and a dispatch jump shared by all APIs (scaler's path before, no counting)",
        "+count": "+ that path's counting (TLS, thread, count++, countdown--)",
        "+own": "+ an entry that counts and jumps on by itself (scaler's counted path now)",
        "+2rdtsc": "direct call between two rdtsc (any timed call)",
        "+2rdtsc+ret": "+ the return redirected through a trampoline (overwritten return address)",
        "+2rdtsc+call": "+ the interposer calling the function and returning by push + ret (scaler's way)"}
for k in ["direct", "+jmp", "+entry", "+count", "+own", "+2rdtsc", "+2rdtsc+ret", "+2rdtsc+call"]:
    v = statistics.median(rows[k])
    q = min(quiet[k])
    print("| %s | %.2f | %.2f | %.2f | %.2f |" % (what[k], v, v - base, q, q - qbase))
EOF
fi