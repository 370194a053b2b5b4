#!/usr/bin/env bash
# Best play of Pig to 100 (Neller and Presser 2004: the first player wins 0.5306 under
# optimal play by both): `dicehost solve` on the shipped Pig, timed, with its memory;
# then the same game with a roll counter kept for statistics (bench/pig_counted.lua),
# declared as `statistics = {"rolls"}` (same positions, same time) and undeclared (the
# counter multiplies the positions: stopped at MAX_STATES).
# Slow (minutes): not part of `make test`; `make bench-solve` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${DICEHOST:-.build/release/dicehost}
TARGET=${TARGET:-100}
MAX_STATES=${MAX_STATES:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/rules/pig.lua bench/pig_counted.lua "$work/"
sed 's/, statistics = {"rolls"}//' bench/pig_counted.lua > "$work/pig_counted_undeclared.lua"
timed() { /usr/bin/time -v "$@" 2> >(grep -E "Maximum resident|Elapsed|User time|not analysable|positions" >&2); }
echo "load: $(uptime)"
echo "== the shipped Pig"
timed "$BIN" solve examples/rules/pig.lua --set target="$TARGET" --players Ann,Bob --tolerance 1e-9 "$@"
echo "== with a roll counter declared as statistics"
timed "$BIN" solve "$work/pig_counted.lua" --set target="$TARGET" --players Ann,Bob --tolerance 1e-9 "$@"
echo "== with the counter undeclared (stops at $MAX_STATES positions)"
timed "$BIN" solve "$work/pig_counted_undeclared.lua" --set target="$TARGET" --players Ann,Bob --tolerance 1e-9 --max-states "$MAX_STATES" "$@" || true
