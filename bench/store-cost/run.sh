#!/usr/bin/env bash
# The room store's own CPU per input, and a restart's time against the rooms' history
# (bench/README.md, "The room store's CPU per input and restarts"). Both are Swift tests
# that stay off in `make test`; this turns them on. Run from the repository:
#   bash bench/store-cost/run.sh                 # CPU per input (about a minute)
#   STORE_RESTART_BENCH=1 bash bench/store-cost/run.sh   # and restarts (a few minutes)
# STORE_COST_RUNS=N sets the runs a median is taken over (3).
set -euo pipefail
cd "$(dirname "$0")/../.."
filter=StoreCostBenchmark
[ "${STORE_RESTART_BENCH:-0}" = 1 ] && filter='StoreCostBenchmark|StoreRestartBenchmark'
STORE_COST_BENCH=1 STORE_RESTART_BENCH=${STORE_RESTART_BENCH:-0} swift test --skip-build --filter "$filter" 2>&1 | grep -E '^store-(cost|restart)|passed|failed|error'
