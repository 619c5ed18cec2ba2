#!/bin/sh
# corpus.sh BUILD - the fuzzer's seed profiles: a few e2e programs (linking
# variant lazy, built here if they are not) recorded into
# BUILD/fuzz/corpus/NAME, in each timing mode, with threads, forks, an exec,
# dlopen and nested calls among them. A profile newer than the scaler that
# recorded it is kept.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/${1:-build}
scaler=$build/bin/scaler
bin=$build/tests/e2e/lazy
out=$build/fuzz/corpus
mkdir -p "$out"
"$root/tests/e2e/build.sh" lazy "$build/tests/e2e" > "$out/.build.log" 2>&1 ||
	{ cat "$out/.build.log" >&2; exit 1; }
for spec in threads:adaptive threads:all threads:none fork:adaptive exec:all \
	    dl:adaptive nest:all imbalance:adaptive; do
	prog=${spec%%:*} timing=${spec#*:}
	d=$out/$prog-$timing
	[ -d "$d" ] && [ "$d" -nt "$scaler" ] && continue
	rm -rf "$d" "$d.old"
	( cd "$out" && "$scaler" record -o "$d" --timing="$timing" -- "$bin/sc_$prog" \
		> /dev/null 2>&1 ) || echo "corpus.sh: recording sc_$prog failed" >&2
	rm -rf "$d.old"
done
