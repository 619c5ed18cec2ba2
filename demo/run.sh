#!/bin/sh
# demo/run.sh - `make demo`: build the bundled program, profile it with
# scaler and print the report.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/demo"
mkdir -p "$out"
${CXX:-g++} -O2 -o "$out/wordfreq" "$root/demo/wordfreq.cc"
cd "$out"
echo "\$ scaler record -- ./wordfreq"
"$root/build/bin/scaler" record -- ./wordfreq
echo
echo "\$ scaler report"
"$root/build/bin/scaler" report
echo
echo "(profile in $out/scaler.data; try: $root/build/bin/scaler report -i $out/scaler.data --format json)"
