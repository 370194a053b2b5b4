#!/usr/bin/env bash
# Benchmarks, release build. Figures go in closing notes: quote medians.
# DICEHOST_BEFORE=path/to/an/older/dicehost adds it to the simulation table.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== host call overhead (bench/calls)"
.build/release/bench-calls
echo "== one roll through a hook (bench/roll)"
.build/release/bench-roll
echo "== simulation speed against plain Lua, plain Python and OpenSpiel (bench/speed.py)"
python3 bench/speed.py
echo "== hot reload latency (bench/reload.py)"
python3 bench/reload.py
