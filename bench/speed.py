#!/usr/bin/env python3
"""Simulation speed against the tools a designer would pick instead, in one run:
`dicehost sim` for Pig (goal 100, hold at 20 or at the goal, two players) and Craps
(pass line, rounds=1, one player) against the same game as a plain Lua loop, a plain
Python loop, and (Pig) OpenSpiel's C++ `pig` driven from Python with the same policy.

Rates are games per CPU second (user + system time; for dicehost the CPU time of a
one-game run, its start-up, is taken off, as the baselines time only their own loops):
the machine may be shared, and CPU time is what a busy neighbour disturbs least. Each figure is the median of
RUNS runs on one thread. With DICEHOST_BEFORE=path/to/an/older/dicehost the older binary
is measured in the same run (same scripts), and the table shows after/before.
Then: two threads against one (wall clock, paired runs) and peak memory over many games.

OpenSpiel is installed with pip into .build-bench-venv (gitignored) on first use; when
that fails the row says so and the rest runs.
Usage: python3 bench/speed.py   (env: RUNS=5, DICEHOST=.build/release/dicehost,
DICEHOST_BEFORE=..., BENCH_MEMORY_GAMES=1000000)"""
import os, re, resource, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
RUNS = int(os.environ.get("RUNS", "5"))
AFTER = os.environ.get("DICEHOST", ".build/release/dicehost")
BEFORE = os.environ.get("DICEHOST_BEFORE")
VENV = os.path.join(ROOT, ".build-bench-venv")
MEMORY_GAMES = int(os.environ.get("BENCH_MEMORY_GAMES", "1000000"))

PIG = ["sim", "examples/rules/pig.lua", "--set", "target=100", "--set", "hold=20", "--players", "Ann,Bob", "--seed", "1"]
CRAPS = ["sim", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann", "--seed", "1"]


def printed_rate(command):
    """The games/s a baseline script prints (it times itself in CPU seconds)."""
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return float(re.search(r"([0-9.]+) games/s", out).group(1))


def median(measure):
    return statistics.median(measure() for _ in range(RUNS))


def cpu_seconds(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def dicehost(binary, study, games):
    """Games per CPU second of the games themselves: the CPU time of a one-game run (process
    start, loading the script, printing) is taken off, as the baselines time only their
    loops."""
    command = [binary] + study + ["--threads", "1", "--games"]
    start = median(lambda: cpu_seconds(command + ["1"]))
    return median(lambda: (games - 1) / max(cpu_seconds(command + [str(games)]) - start, 1e-9))


def openspiel_python():
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        if subprocess.run([sys.executable, "-m", "venv", VENV], capture_output=True).returncode != 0:
            return None, "python3 -m venv failed"
    check = [python, "-c", "import pyspiel"]
    if subprocess.run(check, capture_output=True).returncode != 0:
        install = subprocess.run([python, "-m", "pip", "install", "-q", "open_spiel"], capture_output=True, text=True)
        if install.returncode != 0 or subprocess.run(check, capture_output=True).returncode != 0:
            last = (install.stderr.strip().splitlines() or ["unknown error"])[-1]
            return None, f"pip install open_spiel failed: {last}"
    return python, None


def table(title, rows, dicehost_after, dicehost_before):
    print(title)
    print(f"  {'':44s} {'games/CPU-s':>12s} {'DiceHost/it':>9s}")
    for name, rate, note in rows:
        if rate is None:
            print(f"  {name:44s} {'skipped':>12s}            {note}")
        else:
            print(f"  {name:44s} {rate:12,.0f} {dicehost_after / rate:8.2f}x  {note}")
    if dicehost_before:
        print(f"  DiceHost after / before: {dicehost_after / dicehost_before:.2f}x")
    print()


def main():
    python, why = openspiel_python()
    print(f"medians of {RUNS} runs, one thread, games per CPU second (higher is better)\n")

    pig_after = dicehost(AFTER, PIG, 5000)
    pig_before = dicehost(BEFORE, PIG, 2000) if BEFORE else None
    pig_rows = [("dicehost sim (this build)", pig_after, "")]
    if BEFORE:
        pig_rows.append(("dicehost sim (DICEHOST_BEFORE)", pig_before, BEFORE))
    pig_rows += [
        ("plain Lua loop (bench/pig_inline.lua)", median(lambda: printed_rate(["lua5.4", "bench/pig_inline.lua", "200000"])), ""),
        ("rules under a bare Lua host (pig_rules_bare)", median(lambda: printed_rate(["lua5.4", "bench/pig_rules_bare.lua", "20000"])), ""),
        ("plain Python loop (bench/pig.py)", median(lambda: printed_rate([sys.executable, "bench/pig.py", "20000"])), ""),
        ("OpenSpiel pig from Python (pig_openspiel.py)",
         median(lambda: printed_rate([python, "bench/pig_openspiel.py", "5000"])) if python else None, why or ""),
    ]
    table("Pig: goal 100, hold at 20 or at the goal, two players", pig_rows, pig_after, pig_before)

    craps_after = dicehost(AFTER, CRAPS, 100000)
    craps_before = dicehost(BEFORE, CRAPS, 50000) if BEFORE else None
    craps_rows = [("dicehost sim (this build)", craps_after, "")]
    if BEFORE:
        craps_rows.append(("dicehost sim (DICEHOST_BEFORE)", craps_before, BEFORE))
    craps_rows += [
        ("plain Lua loop (bench/craps_inline.lua)", median(lambda: printed_rate(["lua5.4", "bench/craps_inline.lua", "1000000"])), ""),
        ("rules under a bare Lua host (craps_rules_bare)", median(lambda: printed_rate(["lua5.4", "bench/craps_rules_bare.lua", "300000"])), ""),
        ("plain Python loop (bench/craps.py)", median(lambda: printed_rate([sys.executable, "bench/craps.py", "200000"])), ""),
    ]
    table("Craps: pass line, rounds=1, one player", craps_rows, craps_after, craps_before)

    # Two threads against one: wall clock, alternating so a noisy neighbour hits both alike.
    def wall(threads):
        out = subprocess.run([AFTER] + CRAPS + ["--games", "300000", "--threads", str(threads)],
                             check=True, capture_output=True, text=True).stdout
        return float(re.search(r"([0-9.]+) games/s", out).group(1))
    pairs = [(wall(1), wall(2)) for _ in range(RUNS)]
    print(f"threads (craps, wall clock, {RUNS} paired runs): 2 threads = "
          f"{statistics.median(b / a for a, b in pairs):.2f}x one thread "
          f"(needs 2 idle cores; this machine's load average now: {os.getloadavg()[0]:.1f})")

    def peak_rss_mib(games):
        # GNU time's %M: this child's own peak (ru_maxrss of RUSAGE_CHILDREN is the largest so far).
        run = subprocess.run(["/usr/bin/time", "-f", "%M", AFTER] + CRAPS + ["--games", str(games), "--threads", "2"],
                             check=True, capture_output=True, text=True)
        return int(run.stderr.strip().splitlines()[-1]) / 1024
    small, large = peak_rss_mib(100000), peak_rss_mib(MEMORY_GAMES)
    verdict = "flat" if large < small * 1.25 + 2 else "GROWS with the number of games"
    print(f"peak memory (craps, 2 threads): {small:.1f} MiB at 100,000 games, {large:.1f} MiB at {MEMORY_GAMES:,} games: {verdict}")


main()
