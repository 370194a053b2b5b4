#!/usr/bin/env python3
"""Simulation throughput against plain Lua, scaling over threads, and peak memory.
Run by `make bench` after a release build. Prints medians of several runs."""
import re, resource, statistics, subprocess, sys

RUNS = 3
SIM = [".build/release/dicehost", "sim", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann", "--seed", "1"]

def games_per_second(command, pattern):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return float(re.search(pattern, out).group(1))

def median_of(command, pattern):
    return statistics.median(games_per_second(command, pattern) for _ in range(RUNS))

def peak_rss_mib(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(command, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before) / 1024  # ru_maxrss is the largest child so far, in KiB

inline = median_of(["lua5.4", "bench/craps_inline.lua", "1000000"], r"([0-9.]+) games/s")
floor = median_of(["lua5.4", "bench/craps_api_floor.lua", "300000"], r"([0-9.]+) games/s")
bare = median_of(["lua5.4", "bench/craps_rules_bare.lua", "300000"], r"([0-9.]+) games/s")
# One and two threads alternate, so a noisy neighbour hits both alike; the speed-up is
# the median of the paired ratios.
PAIRS = 7
pairs = [(games_per_second(SIM + ["--games", "200000", "--threads", "1"], r"([0-9.]+) games/s"),
          games_per_second(SIM + ["--games", "200000", "--threads", "2"], r"([0-9.]+) games/s")) for _ in range(PAIRS)]
one = statistics.median(a for a, _ in pairs)
two = statistics.median(b for _, b in pairs)
speedup = statistics.median(b / a for a, b in pairs)
print(f"craps, one pass-line decision per game (medians of {RUNS} runs; threads: {PAIRS} pairs)")
print(f"  lua5.4 bench/craps_inline.lua       {inline:12.0f} games/s")
print(f"  lua5.4 bench/craps_api_floor.lua    {floor:12.0f} games/s   {floor / inline:6.1%} of inline: only the tables the API promises")
print(f"  lua5.4 bench/craps_rules_bare.lua   {bare:12.0f} games/s   {bare / inline:6.1%} of inline: the rule script itself, no host")
print(f"  dicehost sim --threads 1            {one:12.0f} games/s   {one / inline:6.1%} of inline (target 40%), {one / bare:6.1%} of bare")
print(f"  dicehost sim --threads 2            {two:12.0f} games/s   {speedup:6.2f}x one thread (target 1.8x; median of paired runs)")
small = peak_rss_mib(SIM + ["--games", "100000", "--threads", "2"])
large = peak_rss_mib(SIM + ["--games", "1000000", "--threads", "2"])
print(f"  peak memory, 100,000 games          {small:9.1f} MiB")
print(f"  peak memory, 1,000,000 games        {large:9.1f} MiB   (flat: no per-game growth)" if large < small * 1.25 + 2
      else f"  peak memory, 1,000,000 games        {large:9.1f} MiB   GROWS with the number of games")
sys.exit(0)
