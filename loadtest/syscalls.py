"""The tally of loadtest/syscalls.sh: system calls and context switches per input answered,
by thread name (digits in names folded: `NIO-ELT-0-#1` and `NIO-ELT-0-#0` are one row).

    python loadtest/syscalls.py --threads WORK/threads.txt --inputs N [--strace WORK/strace.out]
"""
import argparse
import collections
import os
import re

SYSCALL = re.compile(r"^(\d+)\s+([a-z_0-9]+)\(")


# Linux keeps 15 characters of a thread's name (Dispatch keeps the end of its long ones).
KNOWN = {
    "r-initiated-qos": "Swift global executor (Dispatch user-initiated)",
    "oot.default-qos": "Swift global executor (Dispatch default)",
    "-qos.overcommit": "Dispatch overcommit (timers)",
    "NIO-SGLTN-N-#N": "NIO event loops",
    "SGLTN-TP-#N": "NIO shared thread pool",
    "TP-#N": "SQLite store thread",
    "rooms-N": "room threads",
    "rooms-watch": "room pool stall watch",
    "heavy-rooms-N": "heavy room thread",
}


def family(name):
    folded = re.sub(r"\d+", "N", name) or "?"
    return KNOWN.get(folded, folded)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", required=True, help="`TID SWEEP VOLUNTARY INVOLUNTARY UTIME STIME NAME` lines")
    parser.add_argument("--inputs", type=int, required=True, help="inputs answered (the client's count)")
    parser.add_argument("--strace", help="strace -f output")
    parser.add_argument("--cpu", help="the server's user and system CPU seconds before and after: 'U0 S0 U1 S1'")
    args = parser.parse_args()
    inputs = max(1, args.inputs)

    names, first, last = {}, {}, {}
    with open(args.threads) as f:
        for line in f:
            # `TID SWEEP VOLUNTARY INVOLUNTARY UTIME STIME NAME` (older runs: without the times).
            parts = line.split(None, 6)
            if len(parts) < 5 or not parts[2].isdigit() or not parts[3].isdigit():
                continue
            timed = len(parts) == 7 and parts[4].isdigit() and parts[5].isdigit()
            tid, sweep, voluntary, involuntary = parts[0], parts[1], int(parts[2]), int(parts[3])
            user, system = (int(parts[4]), int(parts[5])) if timed else (0, 0)
            names[tid] = (parts[6] if timed else " ".join(parts[4:])).strip()
            if sweep == "start":
                first[tid] = (voluntary, involuntary, user, system)
            last[tid] = (voluntary, involuntary, user, system)
    hz = os.sysconf("SC_CLK_TCK")
    switches = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for tid, now in last.items():
        before = first.get(tid, (0, 0, 0, 0))
        row = switches[family(names[tid])]
        for i in range(4):
            row[i] += now[i] - before[i]
        row[4] += 1

    calls = collections.defaultdict(collections.Counter)
    if args.strace:
        with open(args.strace) as f:
            for line in f:
                match = SYSCALL.match(line)
                if match:
                    calls[family(names.get(match.group(1), "?"))][match.group(2)] += 1

    print("per input answered (%d inputs):" % args.inputs)
    if args.cpu:
        u0, s0, u1, s1 = (float(x) for x in args.cpu.split())
        print("  server CPU %.0f us: user %.0f us, system %.0f us" % (1e6 * (u1 - u0 + s1 - s0) / inputs, 1e6 * (u1 - u0) / inputs, 1e6 * (s1 - s0) / inputs))
    rows = sorted(set(switches) | set(calls), key=lambda n: -(sum(calls[n].values()) + switches[n][0] + switches[n][1]))
    total_calls = collections.Counter()
    for name in rows:
        voluntary, involuntary, user, system, threads = switches.get(name, [0, 0, 0, 0, 0])
        total_calls.update(calls[name])
        line = "  %-48s %2d threads  switches %6.2f voluntary %6.2f involuntary  CPU %5.0f us (user %5.0f, system %4.0f)" % (
            name, threads, voluntary / inputs, involuntary / inputs, 1e6 * (user + system) / hz / inputs, 1e6 * user / hz / inputs, 1e6 * system / hz / inputs)
        if args.strace:
            top = ", ".join("%s %.2f" % (call, count / inputs) for call, count in calls[name].most_common(6))
            line += "  syscalls %6.2f: %s" % (sum(calls[name].values()) / inputs, top)
        print(line)
    voluntary = sum(r[0] for r in switches.values())
    involuntary = sum(r[1] for r in switches.values())
    print("  %-48s             switches %6.2f voluntary %6.2f involuntary" % ("all threads", voluntary / inputs, involuntary / inputs))
    if args.strace:
        print("  syscalls, all threads: %.2f: %s" % (sum(total_calls.values()) / inputs,
              ", ".join("%s %.2f" % (call, count / inputs) for call, count in total_calls.most_common(12))))


if __name__ == "__main__":
    main()
