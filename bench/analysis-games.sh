#!/usr/bin/env bash
# Issue 43: the games once refused for a large strongly connected component (Zombie Dice,
# Knucklebones 2x3 with a d4, Perudo with calza) answered by `dicehost odds`, and `solve`
# of one Yacht turn beside `odds` of it (yacht-sets: written as sets of dice; yacht: as
# first written, about 16,807 plays a position); each timed, with its peak memory. Minutes, not
# part of `make test`; `make bench-analysis` runs it. GAMES=zombie,yacht limits the set.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${DICEHOST:-.build/release/dicehost}
GAMES=${GAMES:-zombie,knucklebones,perudo,yacht-sets}
timed() {
  echo "\$ dicehost $*"
  /usr/bin/time -f "  %e s wall, %U s user, %M KiB peak" "$BIN" "$@" 2>&1 \
    | grep -E "positions|within|exact fractions|wins|expected rolls| s wall|not analysable|stopped|error|unordered_dice" | head -12
}
echo "load: $(uptime)"
for game in ${GAMES//,/ }; do
  case "$game" in
    zombie) timed odds bench/games/zombie.lua --set target="${ZOMBIE_TARGET:-3}" ;;
    knucklebones) timed odds bench/games/knucklebones.lua ;;
    perudo) timed odds bench/games/perudo.lua --set start_dice="${PERUDO_DICE:-2}" ;;
    yacht)
      timed odds bench/games/yacht-turn.lua
      timed solve bench/games/yacht-turn.lua ;;
    yacht-sets)
      timed odds bench/games/yacht-turn-sets.lua
      timed solve bench/games/yacht-turn-sets.lua ;;
    *) echo "unknown game $game (zombie, knucklebones, perudo, yacht, yacht-sets)" >&2; exit 2 ;;
  esac
done
