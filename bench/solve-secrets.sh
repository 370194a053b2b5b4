#!/usr/bin/env bash
# Best play with secrets, dicehost beside OpenSpiel (same run, same machine): OpenSpiel's
# liars_dice (one die each, sixes wild) solved to an exploitability below 1e-4 on +-1
# payoffs, end to end from examples/rules/liars-dice-openspiel.lua, against OpenSpiel's
# C++ CFR+ (pip open-spiel in .build-bench-venv). dicehost reports exploitability in
# chances of winning, half the +-1 figure, so it is asked for 5e-5.
# Then the shipped Liar's Dice with one die each, two players.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/dicehost
[ -x "$bin" ] || swift build -c release
cpu() { /usr/bin/time -f "%U %S %M" "$@" 2>&1 >/dev/null | tail -1; }
echo "dicehost solve examples/rules/liars-dice-openspiel.lua --exploitability 5e-5"
"$bin" solve examples/rules/liars-dice-openspiel.lua --exploitability 5e-5 --quiet | tail -8
read -r user sys rss < <(cpu "$bin" solve examples/rules/liars-dice-openspiel.lua --exploitability 5e-5 --quiet)
ours=$(python3 -c "print(round($user + $sys, 2))")
echo "dicehost: ${ours} s CPU, $((rss / 1024)) MiB peak"
if [ ! -x .build-bench-venv/bin/python ]; then python3 -m venv .build-bench-venv; fi
if .build-bench-venv/bin/pip install -q open_spiel >/dev/null 2>&1; then
  read -r _ iterations exploitability seconds < <(.build-bench-venv/bin/python bench/liars_dice_openspiel.py 1e-4)
  echo "OpenSpiel CFR+: ${iterations} iterations, exploitability ${exploitability} (+-1), ${seconds} s CPU"
  python3 -c "print('OpenSpiel / dicehost: %.1fx' % ($seconds / $ours))"
else
  echo "OpenSpiel: not installed (pip install open_spiel failed); its row is skipped"
fi
echo
echo "dicehost solve rules/liars-dice.lua --players Ann,Bob --set start_dice=1"
"$bin" solve rules/liars-dice.lua --players Ann,Bob --set start_dice=1 --quiet | tail -9
