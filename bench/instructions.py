#!/usr/bin/env python3
"""Machine instructions per simulated game, counted by valgrind's callgrind: the one
speed figure a shared, noisy machine repeats exactly. Each binary plays a study twice
(N and 6N games, one thread) and the difference is divided by 5N, so start-up drops out.

callgrind 3.19 cannot read the DWARF 5 debug info Swift writes, so each binary is copied
and stripped of debug info first (objcopy --strip-debug; symbols stay).

Usage: python3 bench/instructions.py   (env: DICEHOST=.build/release/dicehost,
DICEHOST_BEFORE=older binaries, comma-separated)
Needs valgrind and binutils (apt-get install valgrind binutils)."""
import os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)
AFTER = os.environ.get("DICEHOST", ".build/release/dicehost")
BEFORE = [b for b in os.environ.get("DICEHOST_BEFORE", "").split(",") if b]

STUDIES = {
    "Pig (goal 100, hold 20)": (["sim", "examples/rules/pig.lua", "--set", "target=100", "--set", "hold=20",
                                 "--players", "Ann,Bob", "--seed", "1"], 200),
    "Craps (rounds=1)": (["sim", "rules/craps.lua", "--set", "rounds=1", "--players", "Ann", "--seed", "1"], 2000),
}


def instructions(binary, study, games):
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary] + study
                         + ["--games", str(games), "--threads", "1"], capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    if not found:
        sys.exit(f"callgrind gave no count for {binary}: {out.stderr.strip()[-300:]}")
    return int(found.group(1))


def per_game(binary, study, games):
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "dicehost")
        shutil.copy(binary, copy)
        subprocess.run(["objcopy", "--strip-debug", copy], check=True)
        return (instructions(copy, study, 6 * games) - instructions(copy, study, games)) / (5 * games)


def main():
    for tool in ("valgrind", "objcopy"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (apt-get install valgrind binutils)")
    binaries = [AFTER] + BEFORE
    print("instructions per game (callgrind, one thread, start-up excluded)\n")
    print(f"  {'':26s}" + "".join(f"{os.path.basename(os.path.dirname(b)) or b:>22s}" for b in binaries))
    for name, (study, games) in STUDIES.items():
        counts = [per_game(b, study, games) for b in binaries]
        line = f"  {name:26s}" + "".join(f"{c:22,.0f}" for c in counts)
        if BEFORE:
            line += "   " + ", ".join(f"{c / counts[0]:.2f}x fewer than {os.path.basename(os.path.dirname(b))}"
                                     for b, c in zip(BEFORE, counts[1:]))
        print(line)


main()
