#!/usr/bin/env bash
# loadtest/release-figures.sh: issue 47's release figures in one session, so that they are
# comparable (the same machine load, the same binaries):
#   1. bench/ws-floor/run.sh, ROUNDS interleaved rounds of the Hummingbird and plain NIO floors
#      and DiceHost's Snap and Liar's Dice rooms with the SQLite store and with --store none;
#   2. loadtest/abuse.sh ABUSE_RUNS times (the healthy room's input p99 beside abusive rooms);
#   3. loadtest/store-compare.sh, the SQLite store and none interleaved STORE_PAIRS times.
# Then loadtest/release_figures.py prints the figures: server CPU per input, its ratio to the
# Hummingbird floor of the same run, the store's own CPU per input (store on - store off),
# the abuse p99s, and the rooms the CPU per input implies on 2 and 16 cores.
#   bash loadtest/release-figures.sh              (needs release dicehost, dicehost-server, ws-floor)
# Knobs: FLOOR_ROOMS=50 FLOOR_SECONDS=15 ROUNDS=3 ABUSE_SECONDS=8 ABUSE_RUNS=3 STORE_ROOMS=50
# STORE_SECONDS=15 STORE_PAIRS=3 DICEHOST=.build/release/dicehost
# WS_FLOOR_BIN=bench/ws-floor/.build/release/ws-floor OUT=folder (default a new temp folder).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DICEHOST:-.build/release/dicehost}
floor_bin=${WS_FLOOR_BIN:-bench/ws-floor/.build/release/ws-floor}
floor_rooms=${FLOOR_ROOMS:-50} floor_seconds=${FLOOR_SECONDS:-15}
out=${OUT:-$(mktemp -d /tmp/release-figures.XXXXXX)}
mkdir -p "$out"
for b in "$bin" "$(dirname "$bin")/dicehost-server" "$floor_bin"; do
  [ -x "$b" ] || { echo "release-figures: $b is not built (swift build -c release --product dicehost, --product dicehost-server; swift build -c release --package-path bench/ws-floor)" >&2; exit 2; }
done
stamp() { echo "$1 $(date -u +%T), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/times"; }

stamp "start"
WS_FLOOR_BIN=$floor_bin DICEHOST_BIN=$bin ROUNDS=${ROUNDS:-3} \
  MODES="hummingbird nio dicehost dicehost-nostore liars liars-nostore" \
  bash bench/ws-floor/run.sh "$floor_rooms" "$floor_seconds" > "$out/floor.out" 2>&1 || echo "release-figures: the floor run failed: $out/floor.out" >&2
stamp "floor and DiceHost done"
for i in $(seq "${ABUSE_RUNS:-3}"); do
  echo "== abuse run $i" >> "$out/abuse.out"
  DICEHOST=$bin ABUSE_SECONDS=${ABUSE_SECONDS:-8} bash loadtest/abuse.sh >> "$out/abuse.out" 2>&1 || echo "release-figures: abuse run $i failed: $out/abuse.out" >&2
done
stamp "abuse done"
stores=
for _ in $(seq "${STORE_PAIRS:-3}"); do stores="$stores sqlite none"; done
DICEHOST=$bin LOADTEST_ROOMS=${STORE_ROOMS:-50} LOADTEST_SECONDS=${STORE_SECONDS:-15} LOADTEST_STORES="$stores" \
  bash loadtest/store-compare.sh > "$out/store.out" 2>&1 || echo "release-figures: store-compare reported problems: $out/store.out" >&2
stamp "store comparison done"
results=$(sed -n 's/^work: \([^;]*\);.*/\1/p' "$out/floor.out")/results
python3 loadtest/release_figures.py --floor "$results" --floor-rooms "$floor_rooms" --floor-seconds "$floor_seconds" --short-seconds "${SHORT_SECONDS:-5}" \
  --abuse "$out/abuse.out" --store "$out/store.out" | tee "$out/figures"
echo "release-figures: everything in $out"
