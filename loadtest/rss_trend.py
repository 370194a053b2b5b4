"""The server's resident memory over a long run (loadtest/rss-flat.sh).

    python loadtest/rss_trend.py SAMPLES WARMUP_SECONDS ROOMS RUN_SECONDS

SAMPLES holds lines "SECONDS KIB". Prints every minute's sample, then the growth between
WARMUP_SECONDS and RUN_SECONDS (samples taken while the clients close are left out), and
over the second half of the run: a least-squares slope in KiB a minute and what it adds
over that part, as a share of the memory at its start. Exits 1 when there are too few
samples to say.
"""
import sys


def main():
    path, warmup, rooms, run = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    samples = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and int(parts[1]) > 0:
                samples.append((float(parts[0]), int(parts[1])))
    for t, kib in samples:
        if int(t) % 60 < 10:
            print("  %4d s  %8.1f MiB  (%.0f KiB a room)" % (t, kib / 1024, kib / max(1, rooms)))
    ok = trend(samples, warmup, run, "after the %d s warm-up" % warmup)
    ok = trend(samples, run / 2, run, "over the second half") and ok
    if not ok:
        sys.exit(1)


def trend(samples, start, end, what):
    steady = [(t, kib) for t, kib in samples if start <= t <= end]
    if len(steady) < 3:
        print("rss %s: too few samples to say (%d)" % (what, len(steady)))
        return False
    n = len(steady)
    mean_t = sum(t for t, _ in steady) / n
    mean_k = sum(k for _, k in steady) / n
    slope = sum((t - mean_t) * (k - mean_k) for t, k in steady) / max(1e-9, sum((t - mean_t) ** 2 for t, _ in steady))
    span = steady[-1][0] - steady[0][0]
    grown = slope * span
    print("rss %s: %.1f MiB at %d s, %.1f MiB at %d s (peak %.1f MiB); trend %+.1f KiB a minute, %+.1f MiB (%+.1f%%) over %d s"
          % (what, steady[0][1] / 1024, steady[0][0], steady[-1][1] / 1024, steady[-1][0], max(k for _, k in steady) / 1024,
             slope * 60, grown / 1024, 100 * grown / steady[0][1], span))
    return True

if __name__ == "__main__":
    main()
