"""Issue 47's release figures from one session of loadtest/release-figures.sh.

    python3 loadtest/release_figures.py --floor RESULTS --floor-rooms 50 --floor-seconds 15 \\
        --abuse ABUSE_OUT --store STORE_OUT

RESULTS is bench/ws-floor/run.sh's results file (one RESULT line per mode and round); ABUSE_OUT
the reports of loadtest/abuse.sh one after another; STORE_OUT loadtest/store-compare.sh's.
Prints medians with every round beside them. Capacity: rooms = cores x 1,000,000 us / (CPU us
per input x inputs a room a second), the inputs a room a second being those of DiceHost's
long runs (answered, over rooms x seconds): the load generator's pace.
"""
import argparse
import re
import statistics

TARGETS = {"dicehost": 2.0, "liars": 2.5}  # ratio to the Hummingbird floor, with the store


def floor_runs(path):
    runs = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0] != "RESULT":
                continue
            values = {k: float(v) for k, v in (a.split("=") for a in fields[2:])}
            values["cpu"] = values["user_us"] + values["sys_us"]
            runs.setdefault(fields[1], []).append(values)
    return runs


def show_floor(runs, rooms, seconds, short):
    median = {m: statistics.median(r["cpu"] for r in rs) for m, rs in runs.items()}
    print("Server CPU per input (bench/ws-floor/run.sh %d rooms x 4, %g s; DiceHost: a %g s run less a %g s run):" % (rooms, seconds, seconds, short))
    floor = median.get("hummingbird")
    for mode, rs in runs.items():
        line = "  %-17s median %5.0f us (rounds %s; load %s; p99 %s ms)" % (
            mode, median[mode], " ".join("%.0f" % r["cpu"] for r in rs),
            " ".join("%.1f" % r.get("load", float("nan")) for r in rs), " ".join("%g" % r["p99_ms"] for r in rs))
        if floor and mode not in ("hummingbird",):
            line += "; %.2fx the Hummingbird floor" % (median[mode] / floor)
            if mode in TARGETS:
                line += " (target <= %gx: %s)" % (TARGETS[mode], "met" if median[mode] / floor <= TARGETS[mode] else "not met")
        if "checked" in rs[0]:
            line += "; clients equal to their room log: %s" % ", ".join("%d of %d" % (r["checked"], r["clients"]) for r in rs)
        print(line)
    for with_store, without in (("dicehost", "dicehost-nostore"), ("liars", "liars-nostore")):
        if with_store in runs and without in runs:
            pairs = [a["cpu"] - b["cpu"] for a, b in zip(runs[with_store], runs[without])]
            print("  the store's own CPU per input, %s - %s: %.0f us (difference of medians; per round %s)" % (
                with_store, without, median[with_store] - median[without], " ".join("%.0f" % p for p in pairs)))
    print("Capacity implied (rooms = cores x 1e6 / (us per input x inputs a room a second)):")
    for mode, rs in runs.items():
        if "long_inputs" not in rs[0]:
            continue
        pace = statistics.median(r["long_inputs"] for r in rs) / rooms / seconds
        print("  %-17s %.2f inputs a room a second: %5.0f rooms on 2 cores, %6.0f on 16" % (
            mode, pace, 2e6 / (median[mode] * pace), 16e6 / (median[mode] * pace)))
    if floor and "dicehost" in runs:
        pace = statistics.median(r["long_inputs"] for r in runs["dicehost"]) / rooms / seconds
        print("  %-17s at Snap's pace: %5.0f rooms on 2 cores, %6.0f on 16" % ("hummingbird", 2e6 / (floor * pace), 16e6 / (floor * pace)))


def show_abuse(path):
    rows = {}
    loads = []
    cpu_per_message = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\| (\d+) \| ([\d.]+|nan) / ([\d.]+|nan) / ([\d.]+|nan) \| ([\d.]+|nan) / ([\d.]+|nan) / ([\d.]+|nan) \|", line)
            if m:
                rows.setdefault(int(m.group(1)), []).append((float(m.group(3)), float(m.group(6))))
            m = re.match(r"load average before: ([\d.]+)", line)
            if m:
                loads.append(m.group(1))
            m = re.search(r"= (\d+) us a message", line)
            if m:
                cpu_per_message.append(int(m.group(1)))
    print("Abuse (loadtest/abuse.sh, %d runs; load average at each start %s):" % (len(loads), ", ".join(loads)))
    for n, values in sorted(rows.items()):
        print("  %d abusive rooms: healthy input p99 median %.1f ms (runs %s), ping p99 median %.1f ms%s" % (
            n, statistics.median(v[0] for v in values), " ".join("%.1f" % v[0] for v in values),
            statistics.median(v[1] for v in values), "" if n == 0 else
            " (target < 50 ms: %s)" % ("met" if statistics.median(v[0] for v in values) < 50 else "not met")))
    if cpu_per_message:
        print("  server CPU per message (20 rooms rolling): median %d us (%s)" % (
            statistics.median(cpu_per_message), " ".join(map(str, cpu_per_message))))


def show_store(path):
    runs = []
    with open(path) as f:
        for line in f:
            m = re.match(r"== store: (\w+),.*load average ([\d.]+)", line)
            if m:
                runs.append({"store": m.group(1), "load": m.group(2)})
            m = re.match(r"all \d+ generator\(s\): (\d+) inputs answered, p50 ([\d.]+) ms, p99 ([\d.]+) ms; server CPU ([\d.]+) s: (\d+) us per input, ([\d.]+) us per message", line)
            if m and runs:
                runs[-1].update(inputs=int(m.group(1)), p99=float(m.group(3)), per_input=int(m.group(5)), per_message=float(m.group(6)))
            m = re.match(r"server CPU per input applied .*: (\d+) us", line)
            if m and runs:
                runs[-1]["applied"] = int(m.group(1))
            m = re.match(r"clients checked against the room logs: (\d+) of (\d+)", line)
            if m and runs:
                runs[-1]["checked"] = "%s of %s" % m.groups()
    print("Store on and off (loadtest/store-compare.sh, whole runs, joins included):")
    by_store = {}
    for r in runs:
        by_store.setdefault(r["store"], []).append(r)
        print("  %-6s load %-5s inputs %5s  CPU per input answered %5s us, applied %5s us, per message %6s us; p99 %s ms; clients checked %s" % (
            r["store"], r["load"], r.get("inputs"), r.get("per_input"), r.get("applied"), r.get("per_message"), r.get("p99"), r.get("checked")))
    medians = {s: statistics.median(r.get("per_input", float("nan")) for r in rs) for s, rs in by_store.items()}
    for s, m in medians.items():
        print("  %s: median CPU per input answered %.0f us" % (s, m))
    if "sqlite" in medians and "none" in medians:
        print("  the store's own CPU per input (sqlite - none, medians): %.0f us" % (medians["sqlite"] - medians["none"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--floor")
    parser.add_argument("--floor-rooms", type=int, default=50)
    parser.add_argument("--floor-seconds", type=float, default=15)
    parser.add_argument("--short-seconds", type=float, default=5)
    parser.add_argument("--abuse")
    parser.add_argument("--store")
    args = parser.parse_args()
    if args.floor:
        show_floor(floor_runs(args.floor), args.floor_rooms, args.floor_seconds, args.short_seconds)
    if args.abuse:
        show_abuse(args.abuse)
    if args.store:
        show_store(args.store)


if __name__ == "__main__":
    main()
