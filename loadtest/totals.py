"""All load generators of a run together (loadtest/run.sh, loadtest/store-compare.sh).

Each client.py process appends one line to the LOADTEST_TOTALS file: the inputs it saw
answered, the messages it counted, and its latencies in ms. This prints them together,
with the server's CPU between two readings of /proc/PID/stat:

    python loadtest/totals.py TOTALS_FILE CPU_BEFORE CPU_AFTER GENERATORS
"""
import sys


def main():
    path, before, after, generators = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    inputs = messages = 0
    latencies = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            inputs += int(parts[0])
            messages += int(parts[1])
            if len(parts) > 2:
                latencies += [float(x) for x in parts[2].split(",")]
    cpu = after - before
    latencies.sort()

    def pick(p):
        return latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))] if latencies else float("nan")

    print("all %s generator(s): %d inputs answered, p50 %.1f ms, p99 %.1f ms; server CPU %.1f s: %.0f us per input, %.1f us per message"
          % (generators, inputs, pick(50), pick(99), cpu, 1e6 * cpu / max(1, inputs), 1e6 * cpu / max(1, messages)))


if __name__ == "__main__":
    main()
