#!/usr/bin/env python3
"""Exact odds and dice distributions: time and memory, release build.
Run by `make bench-odds` (or `python3 bench/odds.py` after `swift build -c release`).
Prints, per case, the CPU seconds of the whole process (user + system: the machine may be
shared, so wall time overstates), the peak resident memory, and what odds reports."""
import json, resource, subprocess, sys, time

DICEHOST = ".build/release/dicehost"

def run(args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run([DICEHOST] + args, check=True, capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, wall, cpu

def best_cpu(args, runs=5):
    return min(run(args)[2] for _ in range(runs))

print("dicehost dice (whole process, best of 5 runs; process start included)")
for notation in ["2d6", "4d6kh3", "20d6kh3", "100d6", "1d6!"]:
    print(f"  {notation:10s} {best_cpu(['dice', notation, '--json']) * 1000:8.1f} ms CPU")

CASES = [
    ("craps, pass line", ["rules/craps.lua", "--set", "rounds=1", "--players", "Ann"]),
    ("race to 25, two players", ["rules/race.lua"]),
    ("race with doubles, to 25", ["rules/race-doubles.lua"]),
    ("examples pig (to 20, hold at 10)", ["examples/rules/pig.lua"]),
    ("pig to 100, hold at 20 (doubles)", ["bench/odds/pig-hold.lua", "--precision", "double"]),
]
only = sys.argv[1:]
print("dicehost odds (one run each)")
for title, args in CASES:
    if only and not any(o in title for o in only):
        continue
    out, wall, cpu = run(["odds"] + args + ["--json", "--quiet"])
    r = json.loads(out)
    wins = ", ".join(f"{name} {v.get('fraction', '')[:40]} ({v['decimal']:.10f})" for name, v in r["wins"].items())
    print(f"  {title}: {r['states']} positions, {r['transitions']} transitions, largest component {r['largest_component']}, "
          f"{'exact' if r['exact'] else 'doubles ±%.1e' % r['error_bound']}")
    print(f"    {cpu:.2f} s CPU ({wall:.2f} s wall; explore {r['explore_seconds']:.2f} s, solve {r['solve_seconds']:.2f} s wall), "
          f"memory {r['process_memory_peak'] / 2**20:.0f} MiB (Lua heap {r['lua_memory_peak'] / 2**20:.1f} MiB)")
    print(f"    {wins}")
