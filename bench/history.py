#!/usr/bin/env python3
"""What a long game costs per input: `dicehost play` and `dicehost replay` on N inputs.

Each input must cost the same however long the game (issue 25, item 11). For N inputs
of Craps played on for ever (`--set rounds=0`, one player, `roll` after `roll`) it times
`play --log` writing the log and `replay` checking it, and N typos at the prompt; CPU
seconds (user + system) and peak memory of the child, medians of `--runs` runs. The
per-input column is what must stay flat as N grows.

    python3 bench/history.py                         # 5,000 / 20,000 / 100,000
    python3 bench/history.py --sizes 1000000 --runs 1
    DICEHOST_BEFORE=/tmp/dicehost-before python3 bench/history.py

Every file goes to a fresh temporary folder, removed afterwards.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, args, stdin_path=None):
    """CPU seconds and peak RSS (MiB) of one child run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin_path or os.devnull, "rb") as stdin:
        # The child's peak RSS is ru_maxrss of the waited child: run it under /usr/bin/time
        # so each run's own peak is read, not the largest of all children so far.
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", binary] + args, stdin=stdin, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_kib = int(proc.stderr.decode().strip().splitlines()[-1])
    return cpu, peak_kib / 1024, proc.returncode


def measure(binary, n, runs, folder):
    inputs = os.path.join(folder, f"rolls-{n}.txt")
    typos = os.path.join(folder, f"typos-{n}.txt")
    with open(inputs, "w") as f:
        f.write("roll\n" * n)
    with open(typos, "w") as f:
        f.write("fly\n" * n)
    rows = {}
    play_args = ["play", "rules/craps.lua", "--set", "rounds=0", "--players", "Ann", "--seed", "1"]
    for name, make in [
        ("play --log", lambda log: (play_args + ["--log", log], inputs)),
        ("replay", lambda log: (["replay", log], None)),
        ("play, typos", lambda log: (play_args, typos)),
    ]:
        results = []
        for i in range(runs):
            log = os.path.join(folder, f"log-{n}.jsonl")
            if name == "play --log" and os.path.exists(log):
                os.remove(log)
            args, stdin = make(log)
            results.append(run(binary, args, stdin))
        rows[name] = (statistics.median(r[0] for r in results), max(r[1] for r in results), results[-1][2])
    return rows


def label(binary):
    """The binary's path as short as it goes: relative inside the checkout, else as given."""
    inside = os.path.abspath(binary).startswith(ROOT + os.sep)
    return (os.path.relpath(binary, ROOT) if inside else binary)[-33:]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--binary", default=None)
    options = parser.parse_args()
    binaries = [options.binary or next(
        (p for p in (os.path.join(ROOT, ".build/release/dicehost"), os.path.join(ROOT, ".build/debug/dicehost")) if os.path.exists(p)))]
    binaries += [b for b in os.environ.get("DICEHOST_BEFORE", "").split(",") if b]
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {options.runs} runs; CPU seconds (user + system), peak RSS")
    print(f"{'binary':<34}{'what':<14}{'inputs':>9}{'CPU s':>10}{'µs/input':>10}{'peak MiB':>10}{'exit':>6}")
    for binary in binaries:
        for n in (int(s) for s in options.sizes.split(",")):
            folder = tempfile.mkdtemp(prefix="dicehost-history-")
            try:
                for name, (cpu, peak, status) in measure(binary, n, options.runs, folder).items():
                    print(f"{label(binary):<34}{name:<14}{n:>9,}{cpu:>10.2f}{cpu / n * 1e6:>10.1f}{peak:>10.0f}{status:>6}")
            finally:
                shutil.rmtree(folder)


if __name__ == "__main__":
    main()
