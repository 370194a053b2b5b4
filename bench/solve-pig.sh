#!/usr/bin/env bash
# Best play of Pig to 100 (Neller and Presser 2004: the first player wins 0.5306 under
# optimal play by both): `dicehost solve` on the shipped Pig, timed, with its memory.
# Slow (minutes): not part of `make test`; `make bench-solve` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${DICEHOST:-.build/release/dicehost}
TARGET=${TARGET:-100}
echo "load: $(uptime)"
/usr/bin/time -v "$BIN" solve examples/rules/pig.lua --set target="$TARGET" --players Ann,Bob --tolerance 1e-9 "$@" 2> >(grep -E "Maximum resident|Elapsed|User time" >&2)
