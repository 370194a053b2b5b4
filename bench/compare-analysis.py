#!/usr/bin/env python3
"""Same answers from two dicehost builds: `odds` and `solve` (--json) of every shipped game
and bench game, compared field by field with the timings and memory figures left out.
A change to how exploration plays positions must leave every fraction, double, count and
histogram unchanged: this is the check (issue 43, item 5).

    python3 bench/compare-analysis.py BEFORE_BINARY AFTER_BINARY [--timeout 120] [--only pig]

A case either build cannot finish within --timeout seconds is reported as skipped, not as
a difference. Exit status 1 when any case differs."""
import argparse, json, subprocess, sys, time

# (name, command and arguments after the binary)
CASES = [
    ("craps odds", ["odds", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann"]),
    ("craps solve", ["solve", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann"]),
    ("race odds", ["odds", "rules/race.lua"]),
    ("race solve", ["solve", "rules/race.lua"]),
    ("race-doubles odds", ["odds", "rules/race-doubles.lua"]),
    ("race-doubles solve", ["solve", "rules/race-doubles.lua"]),
    ("mia odds (1 life)", ["odds", "rules/mia.lua", "--players", "Ann,Bob", "--set", "lives=1"]),
    ("mia solve open (1 life)", ["solve", "rules/mia.lua", "--players", "Ann,Bob", "--set", "lives=1", "--open"]),
    ("liars-dice odds (1 die)", ["odds", "rules/liars-dice.lua", "--set", "start_dice=1"]),
    ("liars-dice odds (2 dice, no bluff)", ["odds", "rules/liars-dice.lua", "--set", "start_dice=2", "--set", "bluff=0"]),
    ("liars-dice solve open (1 die)", ["solve", "rules/liars-dice.lua", "--set", "start_dice=1", "--open"]),
    ("snap odds", ["odds", "rules/snap.lua"]),
    ("labyrinth odds", ["odds", "rules/labyrinth.lua"]),
    ("pig odds (to 20)", ["odds", "examples/rules/pig.lua"]),
    ("pig solve (to 20)", ["solve", "examples/rules/pig.lua", "--set", "target=20"]),
    ("pig solve (to 30)", ["solve", "examples/rules/pig.lua", "--set", "target=30"]),
    ("pig solve 3 players (to 10)", ["solve", "examples/rules/pig.lua", "--players", "Ann,Bob,Cy", "--set", "target=10"]),
    ("liars-dice-openspiel odds", ["odds", "examples/rules/liars-dice-openspiel.lua"]),
    ("yacht-turn odds", ["odds", "bench/games/yacht-turn.lua"]),
    ("yacht-turn solve", ["solve", "bench/games/yacht-turn.lua"]),
    ("yacht-turn-sets odds", ["odds", "bench/games/yacht-turn-sets.lua"]),
    ("yacht-turn-sets solve", ["solve", "bench/games/yacht-turn-sets.lua"]),
    ("zombie odds (target 1)", ["odds", "bench/games/zombie.lua", "--set", "target=1"]),
    ("zombie solve (target 1)", ["solve", "bench/games/zombie.lua", "--set", "target=1"]),
    ("perudo odds (1 die)", ["odds", "bench/games/perudo.lua", "--set", "start_dice=1"]),
    ("perudo solve open (1 die)", ["solve", "bench/games/perudo.lua", "--set", "start_dice=1", "--open"]),
    ("knucklebones odds (1 row)", ["odds", "bench/games/knucklebones.lua", "--set", "rows=1"]),
]

# Figures of the run, not of the game.
VOLATILE = {"explore_seconds", "solve_seconds", "lua_memory_peak", "process_memory_peak",
            "exploreSeconds", "solveSeconds", "luaMemoryPeak", "processMemoryPeak", "seconds",
            # how many keep outcomes were shared instead of played (solve under unordered_dice)
            "sharedKeptRolls"}


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def run(binary, args, timeout):
    start = time.monotonic()
    try:
        done = subprocess.run([binary] + args + ["--json", "--quiet"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, timeout
    seconds = time.monotonic() - start
    # An error is an answer too: the same message (and status) from both builds.
    if done.returncode != 0:
        return {"status": done.returncode, "error": done.stderr.strip().splitlines()[-1:]}, seconds
    return strip(json.loads(done.stdout)), seconds


def differences(a, b, path=""):
    if type(a) != type(b):
        return [f"{path}: {a!r} against {b!r}"]
    if isinstance(a, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += differences(a.get(k), b.get(k), f"{path}.{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} against {b!r}"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--only", default="", help="run only the cases whose name contains this")
    options = parser.parse_args()
    failed = 0
    for name, args in CASES:
        if options.only not in name:
            continue
        before, t0 = run(options.before, args, options.timeout)
        if before is None:
            print(f"skipped  {name}: the first build took more than {options.timeout:.0f} s")
            continue
        after, t1 = run(options.after, args, options.timeout)
        if after is None:
            print(f"skipped  {name}: the second build took more than {options.timeout:.0f} s")
            continue
        found = differences(before, after)
        status = "same" if not found else "DIFFERS"
        print(f"{status:8s} {name}: {t0:.1f} s, then {t1:.1f} s" + (" (both refused alike)" if "error" in before and not found else ""))
        for line in found[:10]:
            print("    " + line)
        failed += bool(found)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
