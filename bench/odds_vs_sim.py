#!/usr/bin/env python3
"""Exact odds against 10^6 simulated games for every shipped script that is analysable:
each exact win probability must lie in the simulation's 99.9% interval.
`python3 bench/odds_vs_sim.py [GAMES]` after `swift build -c release` (minutes)."""
import json, math, subprocess, sys

DICEHOST = ".build/release/dicehost"
GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
CASES = [
    ["rules/craps.lua", "--set", "rounds=1", "--players", "Ann"],
    ["rules/race.lua"],
    ["rules/race-doubles.lua"],
    ["examples/rules/pig.lua"],
]
failures = 0
for args in CASES:
    odds = json.loads(subprocess.run([DICEHOST, "odds"] + args + ["--json", "--quiet"], check=True,
                                     capture_output=True, text=True).stdout)
    sim = json.loads(subprocess.run([DICEHOST, "sim"] + args + ["--games", str(GAMES), "--seed", "16", "--json"],
                                    check=True, capture_output=True, text=True).stdout)["result"]
    n = sim["games"]
    for seat, name in enumerate(odds["players"]):
        p = odds["wins"][name]["decimal"]
        rate = sim["wins"][seat] / n
        half = 3.29 * math.sqrt(p * (1 - p) / n)
        ok = abs(rate - p) <= half + 1 / n
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {args[0]} {name}: exact {p:.6f}, simulated {rate:.6f} ± {half:.6f} (99.9%, {n} games)")
sys.exit(1 if failures else 0)
