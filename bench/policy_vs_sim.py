#!/usr/bin/env python3
"""A best-play policy written by `dicehost solve --policy`, used as the bot of a rule script
in `dicehost sim`: the simulated win rate must agree with the value `solve` computed, within
the simulation's 99.9% interval (issue 26). Both seats play the policy.
`python3 bench/policy_vs_sim.py [GAMES] [TARGET]` after `swift build -c release`
(default 10^6 games of examples/rules/pig.lua to 30; minutes)."""
import json, math, os, shutil, subprocess, sys, tempfile, time

DICEHOST = os.path.abspath(".build/release/dicehost")
GAMES = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
TARGET = sys.argv[2] if len(sys.argv) > 2 else "30"

folder = tempfile.mkdtemp(prefix="policy-vs-sim-")
try:
    shutil.copy("examples/rules/pig.lua", os.path.join(folder, "pig.lua"))
    policy = os.path.join(folder, "pig_best.lua")
    started = time.time()
    solved = json.loads(subprocess.run([DICEHOST, "solve", os.path.join(folder, "pig.lua"), "--set", "target=" + TARGET,
                                        "--policy", policy, "--json", "--quiet"],
                                       check=True, capture_output=True, text=True).stdout)
    solve_seconds = time.time() - started
    variant = os.path.join(folder, "pig-played-best.lua")
    with open(variant, "w") as f:
        f.write('local pig = require("pig")\nlocal best = require("pig_best")\n'
                'return rules.extend(pig, { bot = function(g, p) return best.move(g, p) end })\n')
    started = time.time()
    sim = json.loads(subprocess.run([DICEHOST, "sim", variant, "--set", "target=" + TARGET, "--games", str(GAMES),
                                     "--seed", "26", "--json"], check=True, capture_output=True, text=True).stdout)["result"]
    sim_seconds = time.time() - started
    n = sim["games"]
    failures = 0
    for seat, name in enumerate(solved["players"]):
        p = solved["wins"][name]
        rate = sim["wins"][seat] / n
        half = 3.29 * math.sqrt(p * (1 - p) / n)
        ok = abs(rate - p) <= half + 1 / n
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} Pig to {TARGET}, {name}: solve {p:.6f}, simulated with the policy {rate:.6f} "
              f"± {half:.6f} (99.9%, {n} games, {sim['errors']} errors)")
    print(f"solve {solve_seconds:.1f} s wall, sim {sim_seconds:.1f} s wall ({n / sim_seconds:,.0f} games/s)")
    sys.exit(1 if failures or sim["errors"] else 0)
finally:
    shutil.rmtree(folder, ignore_errors=True)
