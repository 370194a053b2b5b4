#!/usr/bin/env bash
# Benchmarks, release build. Figures go in closing notes: quote medians.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== host call overhead (bench/calls)"
.build/release/bench-calls
echo "== one roll through a hook (bench/roll)"
.build/release/bench-roll
echo "== simulation (bench/sim.py)"
python3 bench/sim.py
echo "== hot reload latency (bench/reload.py)"
python3 bench/reload.py
