# tests/apps/lib.sh - real applications, shared by `make check-apps`
# (tests/apps/run.sh) and `make bench` (bench/servers.sh), so that starting,
# driving, measuring and stopping each one is written once.
#
# Sourced by a `set -eu` bash script that has set ROOT (the source tree). It
# provides:
#   apps_init                 temp dir $APPS_TMP (mode 755, so the
#                             unprivileged user can reach its own dirs) and
#                             the EXIT trap that kills every started pid's
#                             process tree and removes the temp dir
#   apps_install CMD...       apt-get installs the Debian packages of the
#                             missing commands (services are not started:
#                             policy-rc.d refuses them)
#   srv_start APP MODE DIR    starts server APP (redis nginx memcached
#                             postgres) plain (MODE=base), under `scaler
#                             record $REC_OPTS -o DIR/prof` (scaler; kernel:
#                             with --kernel) or under `perf
#                             record -g -F 4000` (perf); waits until its port
#                             answers. Sets SRV_LAUNCH (the pid started),
#                             SRV_PROG (the server's own root pid)
#   srv_load APP DIR          runs APP's own client against it; prints the
#                             client's throughput (requests or transactions
#                             per second), its output is in DIR/client.out
#   srv_stop APP              stops it the way that server is stopped (TERM,
#                             QUIT or INT sent to SRV_LAUNCH: `scaler record`
#                             passes it on; perf's child gets it directly),
#                             waits (bounded) and sets SRV_STATUS
#   rss_watch FILE / rss_peak the peak of the summed VmHWM of SRV_PROG's
#                             process tree while the client runs: RSS_PEAK,
#                             and of its private memory: RSS_ANON (KiB);
#                             the tree's CPU time so far: SRV_CPU_MS
#   prog_run APP MODE DIR     the non-server applications (sqlite3 python3
#                             x264 git): runs it, output in DIR/out, elapsed
#                             seconds printed
# Servers bind 127.0.0.1 on a free port above 20000; client runs are bounded
# in count and time (DUR seconds, N requests) and end by themselves.

SCALER=${SCALER:-$ROOT/build/bin/scaler}
REC_OPTS=${REC_OPTS:-}        # more options of `scaler record` (--kernel)
DUR=${DUR:-3}                 # seconds of wrk / pgbench load
APPS_TMP=
APPS_PIDS=
# the interpreter itself, not a shim script (its pid is the one signalled)
PY=$(python3 -c 'import sys; print(sys.executable)')
APPS_USER=nobody              # postgres refuses root: it runs as this user
APPS_GROUP=nogroup

# pids of PID and all its descendants, parents first
tree_pids() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ kids[$2] = kids[$2] " " $1 }
		END { q[1] = root; n = 1; for (i = 1; i <= n; i++) { print q[i];
			m = split(kids[q[i]], k, " "); for (j = 1; j <= m; j++) q[++n] = k[j] } }'
}

apps_cleanup() {
	for p in $APPS_PIDS; do
		kill -KILL $(tree_pids "$p") 2>/dev/null || true
	done
	if [ -n "$APPS_TMP" ]; then rm -rf "$APPS_TMP"; fi
}

apps_init() {
	APPS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/scaler-apps.XXXXXX")
	chmod 755 "$APPS_TMP"
	trap apps_cleanup EXIT
	trap 'exit 130' INT TERM
}

# package that provides each command on Debian 12
pkg_of() {
	case $1 in
	redis-server) echo redis-server ;;
	redis-benchmark | redis-cli) echo redis-tools ;;
	nginx) echo nginx-light ;;
	memcslap) echo libmemcached-tools ;;
	postgres | initdb) echo postgresql ;;
	pgbench | psql) echo postgresql-client ;;
	perf) echo linux-perf ;;
	setpriv) echo util-linux ;;
	*) echo "$1" ;;
	esac
}

have() {
	case $1 in
	postgres | initdb) [ -n "$(pg_bin "$1")" ] ;;
	time) [ -x /usr/bin/time ] ;;      # not the shell's keyword
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

pg_bin() { ls /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1; }

apps_install() {
	need=
	for c in "$@"; do
		have "$c" || need="$need $(pkg_of "$c")"
	done
	[ -z "$need" ] && return 0
	echo "installing:$need" >&2
	# no service may start on its default port while we install
	rcd=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		rcd=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	rc=0
	{ apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 \
		--no-install-recommends $need; } >/dev/null 2>&1 || rc=$?
	[ -n "$rcd" ] && rm -f /usr/sbin/policy-rc.d
	return $rc
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT (at most 20 s)
wait_port() {
	python3 - "$1" <<'EOF'
import socket, sys, time
end = time.time() + 20
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
EOF
}

as_user() { setpriv --reuid="$APPS_USER" --regid="$APPS_GROUP" --clear-groups -- "$@"; }

# ---- per server: APP_setup DIR (once per run), APP_argv DIR (sets the
# SRV_ARGV array for $PORT) -------------------------------------------------

redis_setup() { :; }
redis_argv() {
	# no snapshots, no append-only file: a pure in-memory server
	printf 'port %s\nbind 127.0.0.1\nsave ""\nappendonly no\ndaemonize no\ndir %s\n' \
		"$PORT" "$1" > "$1/redis.conf"
	SRV_ARGV=(redis-server "$1/redis.conf")
}

nginx_setup() {
	mkdir -p "$1/html" "$1/logs" "$1/tmp"
	# a 16 KiB page of fixed content
	python3 -c 'import sys; sys.stdout.write("".join("scaler nginx test page %d\n" % i for i in range(700)))' \
		| head -c 16384 > "$1/html/index.html"
	chmod -R a+rX "$1"
}
nginx_argv() {
	cat > "$1/nginx.conf" <<NGINX
# two workers under a master; foreground, loopback only
worker_processes 2;
daemon off;
pid $1/nginx.pid;
error_log $1/logs/error.log;
events { worker_connections 512; }
http {
	access_log off;
	sendfile on;
	client_body_temp_path $1/tmp/cb; proxy_temp_path $1/tmp/px;
	fastcgi_temp_path $1/tmp/fc; uwsgi_temp_path $1/tmp/uw; scgi_temp_path $1/tmp/sc;
	server { listen 127.0.0.1:$PORT; root $1/html; }
}
NGINX
	SRV_ARGV=(nginx -c "$1/nginx.conf" -p "$1")
}

memcached_setup() { :; }
memcached_argv() {
	SRV_ARGV=(memcached -l 127.0.0.1 -p "$PORT" -U 0 -t 2 -m 64 -c 256)
	# as root, memcached must be told to drop to a user
	if [ "$(id -u)" = 0 ]; then SRV_ARGV+=(-u "$APPS_USER"); fi
}

postgres_setup() {
	mkdir -p "$1/pg/sock"
	chown -R "$APPS_USER:$APPS_GROUP" "$1/pg"
	as_user "$(pg_bin initdb)" -D "$1/pg/data" -A trust -U postgres --no-sync \
		> "$1/initdb.log" 2>&1
}
postgres_argv() {
	SRV_ARGV=("$(pg_bin postgres)" -D "$1/pg/data" -k "$1/pg/sock" -p "$PORT"
		-c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off
		-c full_page_writes=off -c autovacuum=off)
}

# srv_setup APP: once per run, in $APPS_TMP/APP
srv_setup() {
	mkdir -p "$APPS_TMP/$1"
	"${1}_setup" "$APPS_TMP/$1"
}

# srv_start APP MODE DIR: DIR/prof (scaler), DIR/perf.data (perf), DIR/server.log
srv_start() {
	local app=$1 mode=$2 dir=$3 i
	PORT=$(free_port)
	mkdir -p "$dir"
	"${app}_argv" "$APPS_TMP/$app"
	local -a user=() cmd=()
	if [ "$app" = postgres ] && [ "$(id -u)" = 0 ]; then
		user=(setpriv --reuid="$APPS_USER" --regid="$APPS_GROUP" --clear-groups --)
		chown "$APPS_USER:$APPS_GROUP" "$dir"
	fi
	case $mode in
	base) cmd=("${user[@]}" "${SRV_ARGV[@]}") ;;
	scaler) cmd=("${user[@]}" "$SCALER" record $REC_OPTS -o "$dir/prof" -- "${SRV_ARGV[@]}") ;;
	kernel) cmd=("${user[@]}" "$SCALER" record --kernel $REC_OPTS -o "$dir/prof" -- "${SRV_ARGV[@]}") ;;
	perf) cmd=(perf record -q -g -F 4000 -o "$dir/perf.data" -- "${user[@]}" "${SRV_ARGV[@]}") ;;
	esac
	"${cmd[@]}" > "$dir/server.log" 2>&1 &
	SRV_LAUNCH=$!
	SRV_MODE=$mode
	APPS_PIDS="$APPS_PIDS $SRV_LAUNCH"
	SRV_PROG=$SRV_LAUNCH
	if [ "$mode" != base ]; then
		# the server is the recorder's only child
		SRV_PROG=
		for i in $(seq 200); do
			SRV_PROG=$(ps -o pid= --ppid "$SRV_LAUNCH" | head -n 1 | tr -d ' ')
			[ -n "$SRV_PROG" ] && break
			sleep 0.05
		done
	fi
	if [ -z "$SRV_PROG" ] || ! wait_port "$PORT"; then
		echo "$app did not start ($mode): $(tail -n 3 "$dir/server.log" | tr '\n' ' ')" >&2
		return 1
	fi
}

# srv_load APP DIR: prints the client's throughput
srv_load() {
	app=$1 dir=$2
	case $app in
	redis)
		# SET then GET, 20 connections, bounded by request count
		timeout 120 redis-benchmark -h 127.0.0.1 -p "$PORT" -t set,get -n "${REDIS_N:-100000}" \
			-c 20 --csv > "$dir/client.out" 2>&1
		awk -F'"' '$2 == "GET" { print $4 }' "$dir/client.out"
		;;
	nginx)
		timeout 60 wrk -t 2 -c 20 -d "${DUR}s" "http://127.0.0.1:$PORT/index.html" \
			> "$dir/client.out" 2>&1
		awk '/^Requests\/sec:/ { print $2 }' "$dir/client.out"
		;;
	memcached)
		# memcslap: 4 threads, each N sets (bounded by count)
		n=${MEMC_N:-10000}
		timeout 120 memcslap --servers="127.0.0.1:$PORT" --concurrency=4 \
			--execute-number="$n" > "$dir/client.out" 2>&1
		awk -v ops=$((4 * n)) '/^Time to set/ { t = $(NF-1) } END { if (t > 0) printf "%.0f\n", ops / t }' \
			"$dir/client.out"
		;;
	postgres)
		# a fresh scale-1 TPC-B database, then 4 clients for DUR seconds
		# (one backend per connection)
		timeout 120 pgbench -h 127.0.0.1 -p "$PORT" -U postgres -i -q -s 1 postgres \
			> "$dir/client.out" 2>&1
		timeout 120 pgbench -h 127.0.0.1 -p "$PORT" -U postgres -c 4 -j 2 -T "$DUR" postgres \
			>> "$dir/client.out" 2>&1
		awk '/^tps = / { print $3 }' "$dir/client.out"
		;;
	esac
}

# srv_requests APP DIR: how many requests the client's run made
srv_requests() {
	case $1 in
	redis) echo $((2 * ${REDIS_N:-100000})) ;;         # SET + GET
	nginx) awk '/ requests in / { print $1 }' "$2/client.out" ;;
	memcached) echo $((4 * ${MEMC_N:-10000})) ;;
	postgres) awk '/^number of transactions actually processed:/ { print $NF }' "$2/client.out" ;;
	esac
}

srv_stopsig() {
	case $1 in
	nginx) echo QUIT ;;        # graceful: workers finish, then the master
	postgres) echo INT ;;      # fast shutdown
	*) echo TERM ;;
	esac
}

# srv_stop APP: sets SRV_STATUS (the launched command's exit status)
srv_stop() {
	sig=$(srv_stopsig "$1")
	if [ "$SRV_MODE" = perf ]; then
		kill -"$sig" "$SRV_PROG" 2>/dev/null || true
	else
		kill -"$sig" "$SRV_LAUNCH" 2>/dev/null || true
	fi
	# bounded: 30 s, then the whole tree is killed
	i=0
	while kill -0 "$SRV_LAUNCH" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$SRV_LAUNCH" 2>/dev/null; then
		echo "$1 did not stop on SIG$sig within 30 s; killed" >&2
		kill -KILL $(tree_pids "$SRV_LAUNCH") 2>/dev/null || true
	fi
	SRV_STATUS=0
	wait "$SRV_LAUNCH" || SRV_STATUS=$?
	APPS_PIDS=$(echo "$APPS_PIDS" | tr ' ' '\n' | grep -vx "$SRV_LAUNCH" | tr '\n' ' ')
}

# rss_watch FILE: samples the summed VmHWM of SRV_PROG's tree every 0.1 s
# into FILE (the maximum so far, KiB) until rss_peak; bounded to 10 min
rss_watch() {
	RSS_FILE=$1
	"$PY" "$ROOT/tests/apps/rss.py" "$SRV_PROG" "$RSS_FILE" &
	RSS_PID=$!
	APPS_PIDS="$APPS_PIDS $RSS_PID"
}
# rss_peak: sets RSS_PEAK (call it directly, not in $(...): the watcher is
# this shell's child)
rss_peak() {
	kill -USR1 "$RSS_PID" 2>/dev/null || true
	wait "$RSS_PID" || true
	read -r RSS_PEAK RSS_ANON SRV_CPU_MS < "$RSS_FILE" || { RSS_PEAK=0 RSS_ANON=0 SRV_CPU_MS=0; }
}

# ---- the non-server applications ------------------------------------------

# prog_setup APP: inputs made once per run in $APPS_TMP
prog_setup() {
	case $1 in
	x264)
		# 96 frames of a moving 320x240 gradient, as YUV4MPEG2
		python3 - "$APPS_TMP/clip.y4m" <<'EOF'
import sys
w, h, n = 320, 240, 96
with open(sys.argv[1], "wb") as f:
    f.write(b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 C420jpeg\n" % (w, h))
    for t in range(n):
        f.write(b"FRAME\n")
        f.write(bytes(((x + 2 * t) ^ (y - t)) & 255 for y in range(h) for x in range(w)))
        f.write(bytes(((x + t) * 2) & 255 for y in range(h // 2) for x in range(w // 2)))
        f.write(bytes((y * 3 + t) & 255 for y in range(h // 2) for x in range(w // 2)))
EOF
		;;
	sqlite3)
		# the e2e workload, ROWS rows (20000 in the e2e test)
		sed "s/i < 20000/i < ${SQLITE_ROWS:-100000}/" "$ROOT/tests/e2e/real/sqlite_workload.sql" \
			> "$APPS_TMP/sqlite.sql"
		;;
	git)
		# a real repository: a clone of this one (upload-pack, index-pack)
		:
		;;
	esac
}

# prog_run APP MODE DIR: output in DIR/out; prints elapsed seconds. With
# PROG_RSS=FILE (sqlite3), GNU time writes the program's peak RSS (KiB) and
# its user and system seconds there. The profiler runs the program itself,
# inside GNU time: profiling GNU time too added its start-up (~2 ms) to
# what the benchmark charged the profiler for sqlite3.
prog_run() {
	local app=$1 mode=$2 dir=$3 pre t0 t1
	local -a rss=()
	# PROG_RUSAGE: bench/rusage.c, which writes the same in microseconds
	if [ -n "${PROG_RSS:-}" ] && [ -n "${PROG_RUSAGE:-}" ]; then
		rss=("$PROG_RUSAGE" "$PROG_RSS")
	elif [ -n "${PROG_RSS:-}" ]; then
		rss=(/usr/bin/time -f "%M %U %S" -o "$PROG_RSS")
	fi
	mkdir -p "$dir/work"
	case $mode in
	base) pre= ;;
	scaler) pre="$SCALER record -o $dir/prof --" ;;
	# entries that only jump on (runtime/shadow.c): what patching costs
	bare) pre="env SCALER_BARE=1 $SCALER record -o $dir/prof --" ;;
	perf) pre="perf record -q -g -F 4000 -o $dir/perf.data --" ;;
	esac
	t0=$(date +%s.%N)
	case $app in
	sqlite3)
		(cd "$dir/work" && timeout 300 "${rss[@]}" $pre sqlite3 w.db < "$APPS_TMP/sqlite.sql") > "$dir/out" 2>&1
		;;
	python3)
		(cd "$dir/work" && timeout 300 $pre "$PY" "$ROOT/tests/e2e/real/py_workload.py") \
			> "$dir/out" 2>&1
		;;
	x264)
		# fixed thread count: the encoder's output is then deterministic
		(cd "$dir/work" && timeout 300 $pre x264 --threads 2 --preset faster --quiet \
			--no-progress -o out.264 "$APPS_TMP/clip.y4m") > "$dir/log" 2>&1
		sha256sum < "$dir/work/out.264" | cut -c1-16 > "$dir/out"
		;;
	git)
		# a clone of a fully packed repository reuses its compressed
		# objects as they are: only the commit at the end writes (deflates)
		(cd "$dir/work" && timeout 300 $pre sh -c '
			git clone -q --no-local "$1" repo &&
			cd repo &&
			git log --stat --format="%H %s" -n 100 &&
			git grep -c scaler HEAD -- "*.c" "*.h" &&
			git rev-list --count HEAD &&
			git -c user.name=scaler -c user.email=scaler@localhost \
				commit -q --allow-empty -m deflate' sh "$ROOT") > "$dir/out" 2>&1
		;;
	esac
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

# srv_probe APP: a deterministic answer from the running server through its
# own protocol (what a user sees must not change under a profiler)
srv_probe() {
	case $1 in
	redis)
		redis-cli -h 127.0.0.1 -p "$PORT" set scaler:probe "value-42" >/dev/null
		redis-cli -h 127.0.0.1 -p "$PORT" get scaler:probe
		redis-cli -h 127.0.0.1 -p "$PORT" dbsize
		;;
	nginx)
		python3 -c 'import sys, urllib.request, hashlib
r = urllib.request.urlopen("http://127.0.0.1:%s/index.html" % sys.argv[1], timeout=10)
print(r.status, hashlib.sha256(r.read()).hexdigest()[:16])' "$PORT"
		;;
	memcached)
		python3 -c 'import sys, socket
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10)
s.sendall(b"set scaler:probe 0 0 8\r\nvalue-42\r\nget scaler:probe\r\n")
buf = b""
while not buf.endswith(b"END\r\n"):
    d = s.recv(4096)
    if not d:
        break
    buf += d
print(buf.decode().replace("\r\n", " ").strip())' "$PORT"
		;;
	postgres)
		psql -h 127.0.0.1 -p "$PORT" -U postgres -At -c \
			"select count(*), sum(abalance) = (select sum(bbalance) from pgbench_branches) from pgbench_accounts" postgres
		;;
	esac
}
