#!/bin/sh
# tests/e2e/tools/setup.sh BUILD - the real tools the export tests feed
# scaler's exports to, installed under BUILD (never committed):
#   BUILD/npm/node_modules/speedscope    speedscope's importers (folded,
#                                        speedscope JSON, trace events)
#   BUILD/npm/node_modules/pprof-format  a profile.proto decoder
#   BUILD/tools/pprof                    Google's pprof, built offline from
#                                        Debian's golang-github-google-pprof-dev
# Each is skipped (and its test with it) when npm, or go and that source,
# are missing. Idempotent: what is there already is kept.
set -u
build=${1:-build}
mkdir -p "$build/npm" "$build/tools"
if command -v npm >/dev/null 2>&1 &&
	{ [ ! -d "$build/npm/node_modules/speedscope" ] || [ ! -d "$build/npm/node_modules/pprof-format" ]; }; then
	npm install --silent --no-audit --no-fund --prefix "$build/npm" \
		speedscope@1.25.0 pprof-format@2.3.2 >/dev/null 2>&1 ||
		echo "setup.sh: npm install of speedscope, pprof-format failed" >&2
fi
src=/usr/share/gocode/src/github.com/google/pprof
if [ ! -x "$build/tools/pprof" ] && command -v go >/dev/null 2>&1 && [ -d "$src" ]; then
	# GOPATH mode: Debian's packaged sources are the whole module tree
	GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS= GOCACHE="$(cd "$build" && pwd)/tools/gocache" \
		go build -o "$build/tools/pprof" github.com/google/pprof >/dev/null 2>&1 ||
		echo "setup.sh: go build of pprof failed" >&2
fi
exit 0
