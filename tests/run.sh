#!/bin/sh
# tests/run.sh - the test runner behind `make check`.
#   1. `make unit` and `make unit-asan` (the unit tests' own "N passed, M
#      failed" counts are added to the totals; a unit run that fails
#      without counts is one FAIL)
#   2. builds the e2e programs in every linking variant (tests/e2e/build.sh)
#   3. runs them with and without `scaler record` and checks the reports,
#      and (lazy variant) the report views: options, CSV, HTML, and the HTML
#      rendered in headless chromium when it is installed
#      (tests/e2e/check.py e2e), then the real programs and CLI behaviour
#      (tests/e2e/check.py real); the checks are tests/e2e/checks/*.py
#      (tests/README.md)
#   4. every relative link and repository path in README.md, tests/README.md
#      and doc/*.md names a file that exists (tests/doc/links.py)
#   5. a local attacker and a hostile environment (tests/hostile/run.py;
#      its attacker cases need root and are skipped otherwise)
#   6. a few seconds of the profile reader's fuzzer (make fuzz-check)
# Prints "PASS name [variant]" / "FAIL name [variant]: reason" /
# "SKIP name: reason" lines and one final "N passed, M failed[, K skipped]"
# line; exits 1 if anything failed. Paths derive from this script's place,
# so it runs from any clone. Environment: BUILD (default build), CC, CXX,
# VARIANTS (default "lazy now noplt nopie cet").
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
build=${BUILD:-build}
variants=${VARIANTS:-lazy now noplt nopie cet}
scaler=$root/$build/bin/scaler
bindir=$root/$build/tests/e2e
log=$(mktemp -d "${TMPDIR:-/tmp}/scaler-check.XXXXXX") || exit 2
trap 'rm -rf "$log"' EXIT INT TERM
PYTHON=${PYTHON:-python3}

passed=0 failed=0 skipped=0
# tally FILE: echo the check lines of FILE and add them up
tally() {
	while IFS= read -r line; do
		case $line in
		PASS*) passed=$((passed + 1)); echo "$line" ;;
		FAIL*) failed=$((failed + 1)); echo "$line" ;;
		SKIP*) skipped=$((skipped + 1)); echo "$line" ;;
		*) [ -n "${VERBOSE:-}" ] && echo "$line" ;;
		esac
	done < "$1"
}
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
summary() {
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ]
}

# ---- 1. unit tests, plain then under ASan + UBSan ---------------------------
for target in unit unit-asan; do
	make -n "$target" >/dev/null 2>&1 || continue
	make --no-print-directory "$target" > "$log/$target" 2>&1
	rc=$?
	# each test binary: "== build/tests/test_x" ... "N passed, M failed"
	$PYTHON - "$log/$target" "$rc" > "$log/$target.sum" <<'EOF'
import re, sys
name, p, f, lines = None, 0, 0, []
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("== "):
        name = line[3:].rsplit("/", 1)[-1]
    elif line.startswith("FAIL"):
        print("FAIL unit %s: %s" % (name, line[4:].strip()))
    m = re.match(r"^(\d+) passed, (\d+) failed", line)
    if m:
        p += int(m.group(1)); f += int(m.group(2))
        print("unit-binary %s %s %s" % (name, m.group(1), m.group(2)))
print("unit-total %d %d" % (p, f))
EOF
	set -- $(grep '^unit-total' "$log/$target.sum")
	up=${2:-0} uf=${3:-0}
	grep '^FAIL' "$log/$target.sum"
	grep '^unit-binary' "$log/$target.sum" | while read -r _ n p f; do
		echo "$( [ "$f" = 0 ] && echo PASS || echo FAIL ) unit $n: $p passed, $f failed"
	done
	passed=$((passed + up)) failed=$((failed + uf))
	if [ "$rc" -ne 0 ] && [ "$uf" -eq 0 ]; then
		fail "$target: make $target exited $rc: $(tail -n 3 "$log/$target" | tr '\n' ' ')"
	fi
done

# ---- 2. build the e2e programs ---------------------------------------------
if [ ! -x "$scaler" ] || [ ! -e "$root/$build/lib/libscaler.so" ]; then
	fail "scaler: $build/bin/scaler or $build/lib/libscaler.so not built (run make)"
	summary
	exit 1
fi
for v in $variants; do
	( ./tests/e2e/build.sh "$v" "$bindir" > "$log/build-$v" 2>&1; echo $? > "$log/build-$v.rc" ) &
done
wait
ok_variants=
for v in $variants; do
	if [ "$(cat "$log/build-$v.rc")" = 0 ]; then
		ok_variants="$ok_variants $v"
	else
		fail "build [$v]: $(grep -m 3 -E 'error|Error' "$log/build-$v" | tr '\n' ' ')"
	fi
done

# ---- 3. e2e programs, two variants at a time -------------------------------
set -- $ok_variants
while [ $# -gt 0 ]; do
	for v in "$1" ${2:+"$2"}; do
		( $PYTHON tests/e2e/check.py e2e --scaler "$scaler" --bin "$bindir" \
			--variant "$v" > "$log/e2e-$v" 2>&1; echo $? > "$log/e2e-$v.rc" ) &
	done
	wait
	shift; [ $# -gt 0 ] && shift
done
for v in $ok_variants; do
	tally "$log/e2e-$v"
	# check.py exits 0 or 1; anything else is a crash (traceback)
	case $(cat "$log/e2e-$v.rc") in
	0|1) ;;
	*) fail "e2e [$v]: check.py crashed: $(tail -n 2 "$log/e2e-$v" | tr '\n' ' ')" ;;
	esac
done

# ---- 4. real programs and CLI behaviour --------------------------------------
$PYTHON tests/e2e/check.py real --scaler "$scaler" > "$log/real" 2>&1
rc=$?
tally "$log/real"
case $rc in
0|1) ;;
*) fail "real: check.py crashed: $(tail -n 2 "$log/real" | tr '\n' ' ')" ;;
esac

# ---- 5. the documentation's links and paths ----------------------------------
$PYTHON tests/doc/links.py "$root" > "$log/doc" 2>&1
rc=$?
tally "$log/doc"
case $rc in
0|1) ;;
*) fail "doc-links: links.py crashed: $(tail -n 2 "$log/doc" | tr '\n' ' ')" ;;
esac

# ---- 6. a local attacker, a full disk, thousands of threads -------------------
$PYTHON tests/hostile/run.py --scaler "$scaler" > "$log/hostile" 2>&1
rc=$?
tally "$log/hostile"
case $rc in
0|1) ;;
*) fail "hostile: run.py crashed: $(tail -n 2 "$log/hostile" | tr '\n' ' ')" ;;
esac

# ---- 7. a short round of the profile reader's fuzzer ----------------------------
if make -n fuzz-check >/dev/null 2>&1; then
	make --no-print-directory BUILD="$build" fuzz-check > "$log/fuzz" 2>&1
	rc=$?
	tally "$log/fuzz"
	if [ "$rc" -ne 0 ] || ! grep -q '^PASS fuzz-reader' "$log/fuzz"; then
		fail "fuzz-reader: exited $rc: $(grep -E 'fuzz:|runtime error|ERROR' "$log/fuzz" | head -n 3 | tr '\n' ' ')"
	fi
fi

summary
