#!/usr/bin/env bash
# tests/apps/run.sh - `make check-apps`: real applications with their own
# clients, each run without and with `scaler record`, on this machine only
# (servers bind 127.0.0.1 on free ports; every client run is bounded).
#
# For each application: the functional output must be the same with and
# without scaler (the server's answers to a probe through its own protocol,
# sqlite3's query output, python3's output, the x264 stream's checksum with
# fixed threads, git's log/grep output), the exit status too, and the profile
# must hold every process and the calls that served the client
# (tests/apps/check_profile.py). Prints one line per application:
#   name PASS|FAIL  client result without -> with scaler | profile summary
# then "N passed, M failed"; exits 1 if any failed. redis and nginx are
# recorded with --kernel (their walk must end in the kernel). redis-attach: redis
# started without scaler, `scaler record -p` attached for DUR seconds
# while redis-benchmark runs (check_attach); redis-attachfn: the same with
# --functions='redis-server:*', every entry put back at the detach, and
# calls of redis's own functions in the profile. redis-live: redis under
# `scaler record`, `scaler live -p` on it in tmux, its pane captured idle
# and twice under redis-benchmark (check_live; the panes are kept in
# build/apps/redis-live/). gzip-perf: gzip's functions under
# --functions='gzip:*' against perf, top 3 in perf's order in adaptive and
# --timing=all (tests/apps/gzip_perf.py; as root under chrt -f 10 on one
# CPU, as perf's own figures want a quiet CPU; SKIP when perf cannot
# sample). Missing applications are installed from Debian's packages
# (apt-get, as root).
# Environment: APPS (default: all), DUR (seconds of load, default 3),
# REDIS_N, MEMC_N (requests), KEEP=1 keeps the temp dir.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/apps/lib.sh"
export SCALER
APPS=${APPS:-redis nginx memcached postgres sqlite3 python3 x264 git redis-attach redis-attachfn redis-live gzip-perf}
REDIS_N=${REDIS_N:-100000}
MEMC_N=${MEMC_N:-10000}

if [ ! -x "$SCALER" ]; then
	echo "FAIL scaler: $SCALER not built (run make)"
	exit 1
fi
apps_init
if [ -n "${KEEP:-}" ]; then trap 'KEEP_DIR=$APPS_TMP; APPS_TMP=; apps_cleanup; echo "kept $KEEP_DIR" >&2' EXIT; fi
apps_install redis-server redis-benchmark redis-cli nginx wrk memcached memcslap postgres \
	pgbench psql sqlite3 x264 git setpriv tmux gzip perf || echo "warning: apt-get install failed" >&2

passed=0 failed=0
line() { # name verdict result summary
	printf '%-10s %-4s %-44s | %s\n' "$1" "$2" "$3" "$4"
	if [ "$2" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
unit() {
	case $1 in
	redis) echo "GET rps" ;;
	nginx) echo "req/s" ;;
	memcached) echo "set/s" ;;
	postgres) echo "tps" ;;
	*) echo "s" ;;
	esac
}
check_server() {
	local app=$1 d=$APPS_TMP/run-$1 r0= r1= p0= p1= st0= st1= why= res
	srv_setup "$app" || { line "$app" FAIL "set-up failed" "$(tail -n 2 "$APPS_TMP/$app"/*.log 2>/dev/null | tr '\n' ' ')"; return; }
	# the servers whose time is in the kernel: recorded with --kernel, so
	# that check_profile.py can walk them down into it
	case $app in redis | nginx) REC_OPTS=--kernel ;; *) REC_OPTS= ;; esac
	for mode in base scaler; do
		if ! srv_start "$app" "$mode" "$d/$mode" 2> "$d.err"; then
			why="$why $(cat "$d.err")"
			kill -KILL $(tree_pids "$SRV_LAUNCH") 2>/dev/null || true
			continue
		fi
		r=$(srv_load "$app" "$d/$mode") || true
		p=$(srv_probe "$app" 2>&1 | tr '\n' ' ') || true
		srv_stop "$app" 2>> "$d.err" || true
		if [ "$mode" = base ]; then r0=$r p0=$p st0=$SRV_STATUS; else r1=$r p1=$p st1=$SRV_STATUS; fi
	done
	res="$(unit "$app") ${r0:-?} -> ${r1:-?}"
	[ -n "$r0" ] && [ -n "$r1" ] || why="$why no client result (see $(unit "$app"));"
	[ "$p0" = "$p1" ] && [ -n "$p0" ] || why="$why probe answer differs: [$p0] vs [$p1];"
	local exe=$app
	# the executable is named as invoked (redis-server links to redis-check-rdb)
	[ "$app" = redis ] && exe=redis-server
	local out
	if [ -d "$d/scaler/prof" ]; then
		out=$(SCALER=$SCALER python3 "$ROOT/tests/apps/check_profile.py" "$app" "$d/scaler/prof" \
			"$d/scaler/client.out" exe="$exe" n="$([ "$app" = redis ] && echo "$REDIS_N" || echo "$MEMC_N")" \
			base_status="${st0:-?}" status="${st1:-?}") || true
	else
		out="BAD no profile"
	fi
	case $out in
	OK*) [ -z "$why" ] && line "$app" PASS "$res" "${out#OK }" || line "$app" FAIL "$res" "$why ${out#OK }" ;;
	*) line "$app" FAIL "$res" "$why ${out#BAD }" ;;
	esac
}

check_prog() {
	local app=$1 d=$APPS_TMP/run-$1 t0 t1 why= out exe=$1
	prog_setup "$app"
	t0=$(prog_run "$app" base "$d/base")
	t1=$(prog_run "$app" scaler "$d/scaler")
	if ! cmp -s "$d/base/out" "$d/scaler/out"; then
		why="output differs: $(diff "$d/base/out" "$d/scaler/out" | head -n 3 | tr '\n' ' ');"
	fi
	[ -s "$d/base/out" ] || why="$why no output;"
	case $app in
	x264) [ -s "$d/base/work/out.264" ] || why="$why no x264 output;" ;;
	esac
	out=$(SCALER=$SCALER python3 "$ROOT/tests/apps/check_profile.py" "$app" "$d/scaler/prof" \
		"$d/scaler/out" exe="$exe") || true
	local res="time ${t0}s -> ${t1}s"
	case $out in
	OK*) [ -z "$why" ] && line "$app" PASS "$res" "${out#OK }" || line "$app" FAIL "$res" "$why ${out#OK }" ;;
	*) line "$app" FAIL "$res" "$why ${out#BAD }" ;;
	esac
}

# APP-attach: the server started without scaler, attached to by `scaler
# record -p` for DUR seconds while its client runs; the record exits 0,
# the server answers its probe after the detach, and the profile (its
# process "detached") holds the reads and writes that served the client
check_attach() {
	local app=${1%-attach*} d=$APPS_TMP/run-$1 why= r= p= out load opts=()
	[ "$1" = "$app-attachfn" ] && opts=(--functions="$app-server:*")
	srv_setup "$app" || { line "$1" FAIL "set-up failed" ""; return; }
	if ! srv_start "$app" base "$d" 2> "$d.err"; then
		line "$1" FAIL "did not start" "$(cat "$d.err")"
		return
	fi
	REDIS_N=$((REDIS_N * 5)) srv_load "$app" "$d" > "$d/rps" &
	load=$!
	sleep 0.5
	"$SCALER" record -p "$SRV_PROG" --duration "$DUR" -o "$d/prof" "${opts[@]}" \
		2> "$d/attach.err" || why="record -p exited $?: $(tr '\n' ' ' < "$d/attach.err");"
	wait "$load" || true
	r=$(cat "$d/rps")
	p=$(srv_probe "$app" 2>&1 | tr '\n' ' ') || true
	srv_stop "$app" 2>> "$d.err" || true
	case $p in *value-42*) ;; *) why="$why probe answer after the detach: [$p];" ;; esac
	[ ${#opts[@]} = 0 ] || grep -q ' put back, 0 stay' "$d/attach.err" ||
		why="$why function entries not all put back: $(tr '\n' ' ' < "$d/attach.err");"
	out=$("$SCALER" report -i "$d/prof" --format json 2>&1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = sum(c["count"] for c in d["calls"] if c["api"] in ("read", "write"))
f = sum(c["count"] for c in d["calls"] if c.get("kind") == "function")
fn = " and %d calls of its functions" % f if sys.argv[1] != "0" else ""
print("OK %d reads and writes%s while attached" % (n, fn) if n > 0 and (f > 0 or not fn)
      else "BAD no reads or writes, or no function calls")' "${#opts[@]}" 2>&1) ||
		out="BAD no profile"
	"$SCALER" report -i "$d/prof" 2>/dev/null | head -n 1 | grep -q ', detached, ' ||
		why="$why the report does not say detached;"
	case $out in
	OK*) [ -z "$why" ] && line "$1" PASS "$(unit "$app") ${r:-?} attached" "${out#OK }" ||
		line "$1" FAIL "$(unit "$app") ${r:-?}" "$why ${out#OK }" ;;
	*) line "$1" FAIL "$(unit "$app") ${r:-?}" "$why ${out#BAD }" ;;
	esac
}

# APP-live: `scaler live -p` on the server (under scaler record) in a tmux
# pane of 160 x 45, captured once idle and twice while its client runs:
# the rows of the calls that serve the client (tests/apps/live_panes.py)
# show more calls/s than idle. The panes go to build/apps/APP-live/.
check_live() {
	local app=${1%-live} d=$APPS_TMP/run-$1 why= r= p= out i load
	local keep=$ROOT/build/apps/$1 tm=(tmux -L "scaler-apps-$$" -f /dev/null)
	if ! have tmux; then
		line "$1" FAIL "tmux missing" "apt-get install tmux"
		return
	fi
	srv_setup "$app" || { line "$1" FAIL "set-up failed" ""; return; }
	if ! srv_start "$app" scaler "$d" 2> "$d.err"; then
		line "$1" FAIL "did not start" "$(cat "$d.err")"
		return
	fi
	mkdir -p "$keep"
	rm -f "$keep"/*.txt
	"${tm[@]}" new-session -d -x 160 -y 45 "$SCALER live -p $SRV_PROG --interval 1 2> $d/live.err; sleep 600"
	# idle: the table up, then a whole interval of no client
	for i in $(seq 100); do
		"${tm[@]}" capture-pane -p > "$keep/idle.txt" 2>/dev/null || true
		grep -q 'calls/s' "$keep/idle.txt" && break
		sleep 0.1
	done
	sleep 2.2
	"${tm[@]}" capture-pane -p > "$keep/idle.txt"
	REDIS_N=$((REDIS_N * 5)) srv_load "$app" "$d" > "$d/rps" &
	load=$!
	sleep 2.5
	"${tm[@]}" capture-pane -p > "$keep/load1.txt"
	sleep 2
	"${tm[@]}" capture-pane -p > "$keep/load2.txt"
	kill -0 "$load" 2>/dev/null || why="the client ended before the second capture;"
	wait "$load" || true
	r=$(cat "$d/rps")
	"${tm[@]}" send-keys q
	sleep 0.3
	"${tm[@]}" kill-server 2>/dev/null || true
	p=$(srv_probe "$app" 2>&1 | tr '\n' ' ') || true
	srv_stop "$app" 2>> "$d.err" || true
	case $p in *value-42*) ;; *) why="$why probe answer: [$p];" ;; esac
	[ "${SRV_STATUS:-1}" = 0 ] || why="$why scaler record exited $SRV_STATUS;"
	out=$(python3 "$ROOT/tests/apps/live_panes.py" "$keep/idle.txt" "$keep/load1.txt" \
		"$keep/load2.txt" 2>&1) || out="BAD $out"
	case $out in
	OK*) [ -z "$why" ] && line "$1" PASS "$(unit "$app") ${r:-?} under record" "${out#OK }" ||
		line "$1" FAIL "$(unit "$app") ${r:-?}" "$why ${out#OK }" ;;
	*) line "$1" FAIL "$(unit "$app") ${r:-?}" "$why ${out#BAD }" ;;
	esac
}

# gzip-perf: one line from gzip_perf.py, OK, BAD or SKIP (not counted)
check_gzip_perf() {
	local out pre=
	chrt -f 10 true 2>/dev/null && have taskset && pre="chrt -f 10 taskset -c 1"
	out=$(SCALER=$SCALER python3 "$ROOT/tests/apps/gzip_perf.py" --pre "$pre" 2>&1) || true
	case $out in
	OK*) line gzip-perf PASS "top 3 by function as perf's" "${out#OK }" ;;
	SKIP*) printf '%-10s %-4s %s\n' gzip-perf SKIP "${out#SKIP }" ;;
	*) line gzip-perf FAIL "by function against perf" "${out#BAD }" ;;
	esac
}

for app in $APPS; do
	case $app in
	gzip-perf) check_gzip_perf ;;
	redis-attach | redis-attachfn) check_attach "$app" ;;
	redis-live) check_live "$app" ;;
	redis | nginx | memcached | postgres) check_server "$app" ;;
	sqlite3 | python3 | x264 | git) check_prog "$app" ;;
	*) line "$app" FAIL "unknown application" "" ;;
	esac
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
