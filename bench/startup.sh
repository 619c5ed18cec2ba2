#!/usr/bin/env bash
# bench/startup.sh - what scaler adds to the start of every process: part
# "startup" of `make bench` (bench/run.sh), or alone:
#   sh bench/startup.sh            (or PARTS=startup make bench)
# bench/spawn.c starts each command SPAWN_N times in a row (fork, exec,
# wait, as a shell does) and times each run. Modes, alternated round by
# round so the host's slow phases hit all alike:
#   none     no profiler
#   bare     SCALER_BARE=1 scaler record: entries that only jump on, the
#            same loading, scan, patching and files
#   scaler   scaler record (default timing)
# The driver itself runs under `scaler record` in the last two, so each
# child is forked by a profiled process, as in a profiled shell script.
# Prints a markdown table: per start, the median over all runs of a mode
# of the wall time and of the CPU time the started process used (which the
# other work of a shared machine moves less), and the CPU time of the
# fastest tenth of the starts; what bare and scaler add and their ratio
# to none. Environment:
# SPAWN_N (40 starts a round), SPAWN_REPS (5 rounds), SPAWN_CMDS (a
# `;`-separated list of commands), SPAWN_DIR (where the profiles go, default
# $TMPDIR or /tmp: on a disk the other guests keep busy, creating the
# files can take milliseconds; /dev/shm measures scaler without that),
# SCALER_BASE (another build's scaler, e.g. main's in a worktree of its
# own: then a mode "base" runs it too, in the same rounds, and a second
# table sets the two builds side by side).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCALER=${SCALER:-$ROOT/build/bin/scaler}
SPAWN_N=${SPAWN_N:-40}
SPAWN_REPS=${SPAWN_REPS:-5}
SPAWN_CMDS=${SPAWN_CMDS:-/bin/true;/usr/bin/python3 -c pass;sqlite3 :memory: .quit;git --version}
out="$ROOT/build/bench"
mkdir -p "$out"
tmp=$(mktemp -d "${SPAWN_DIR:-${TMPDIR:-/tmp}}/scaler-startup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$out/spawn" "$ROOT/bench/spawn.c"

IFS=';' read -r -a cmds <<< "$SPAWN_CMDS"
modes="none bare scaler${SCALER_BASE:+ base}"
for c in "${!cmds[@]}"; do
	for m in $modes; do : > "$out/st-$c-$m.txt"; done
done
for r in $(seq "$SPAWN_REPS"); do
	for c in "${!cmds[@]}"; do
		read -r -a cmd <<< "${cmds[$c]}"
		for m in $modes; do
			case $m in
			none) "$out/spawn" "$SPAWN_N" "${cmd[@]}" ;;
			bare) SCALER_BARE=1 "$SCALER" record -o "$tmp/p" -- "$out/spawn" "$SPAWN_N" "${cmd[@]}" ;;
			scaler) "$SCALER" record -o "$tmp/p" -- "$out/spawn" "$SPAWN_N" "${cmd[@]}" ;;
			base) "$SCALER_BASE" record -o "$tmp/p" -- "$out/spawn" "$SPAWN_N" "${cmd[@]}" ;;
			esac >> "$out/st-$c-$m.txt"
			rm -rf "$tmp/p" "$tmp/p.old"
		done
	done
done

echo "### start-up: ms per process start, median of $((SPAWN_N * SPAWN_REPS)) starts each, $SPAWN_REPS alternating rounds"
echo
echo "Wall: fork, exec, run, wait, as the driver sees it. CPU: user + system time of the started"
echo "process, the median and the tenth fastest (the host's other guests inflate both, the latter least)."
echo
# one row per command and figure; "table base" for the second table
rows() {
	for c in "${!cmds[@]}"; do
		python3 - "$1" "${cmds[$c]}" "$out/st-$c-none.txt" "$out/st-$c-bare.txt" \
			"$out/st-$c-scaler.txt" "$out/st-$c-base.txt" <<'EOF'
import os, statistics, sys
def tenth(v):
    v = sorted(v)
    return v[len(v) // 10]
table, cmd = sys.argv[1:3]
runs = [[[int(w) / 1e6 for w in l.split()[:2]] for l in open(p) if l.strip()]
        if os.path.exists(p) else [] for p in sys.argv[3:7]]
def fig(mode, col, f):
    return f([r[col] for r in runs[mode]])
if table == "modes":
    for col, what, f in ((0, "wall", statistics.median), (1, "CPU", statistics.median),
                         (1, "CPU, fastest tenth", tenth)):
        n, b, s = (fig(m, col, f) for m in (0, 1, 2))
        print("| `%s` | %s | %.2f | %.2f | %+.2f | %.2f | %+.2f | %.2fx |" % (
            cmd, what, n, b, b - n, s, s - n, s / n))
else:
    (n, s, b), (nt, st, bt) = ([fig(m, 1, f) for m in (0, 2, 3)]
                               for f in (statistics.median, tenth))
    print("| `%s` | %.3f (%.3f) | %.3f (%.3f) | %+.3f | %.3f (%.3f) | %+.3f | %+.3f |" % (
        cmd, n, nt, b, bt, b - n, s, st, s - n, s - b))
EOF
	done
}
echo "| command | time | no profiler | bare entries (SCALER_BARE=1) | added | scaler | added | ratio |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
rows modes
if [ -n "${SCALER_BASE:-}" ]; then
	echo
	echo "### start-up: this build against $SCALER_BASE, CPU ms per start, median (fastest tenth)"
	echo
	echo "| command | no profiler | base | added | this build | added | change |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	rows base
fi
echo
echo "(bench/spawn.c; raw runs, ns: build/bench/st-*.txt)"
