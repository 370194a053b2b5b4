"""Load client for bench/ws-floor: rooms of four at a person's pace (as loadtest/client.py's
Snap bots), against `ws-floor --mode ...`.

Each room's seats take turns: the seat whose turn it is sends a "flip" 200-1000 ms after the
answer to the previous turn (a person thinking); on every answer a seat that is not on turn
calls "snap" with probability 0.02, 100-500 ms later (loadtest/client.py's Snap bots do the
same on each `events` message). The server answers every input with one frame to each of
the room's four connections. After every connection has joined, the server's CPU time
(user and system apart, /proc/PID/stat) is sampled; again at the end: the figures are per
input answered in between (start-up and joins excluded). Latency: an input to the last of
its room's four frames. Checked: every frame of an input reaches all four seats, each seat
sees each seat's inputs in the order that seat sent them (inputs of
different seats may cross on their way to the server).

    .build-venv/bin/python bench/ws-floor/client.py --url ws://127.0.0.1:PORT/ws --rooms 50 --seconds 20 --server-pid PID
"""
import argparse
import asyncio
import json
import os
import random
import sys
import time

import websockets

PLAYERS = 4


def cpu(pid):
    """(user, system) CPU seconds of process `pid` from /proc."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Room:
    def __init__(self, name, url, rng, run):
        self.name, self.url, self.rng, self.run = name, url, rng, run
        self.seats = []
        self.current = 0
        self.seq = 0

    async def connect(self):
        for seat in range(PLAYERS):
            async with self.run.opening:
                ws = await websockets.connect(self.url + "?room=" + self.name, open_timeout=60, ping_interval=None,
                                              max_size=1 << 20)
            self.seats.append(ws)

    async def send(self, seat, name):
        self.seq += 1
        message = {"type": "action", "name": name, "room": self.name, "seat": seat, "seq": self.seq}
        self.run.sent[(self.name, self.seq)] = [time.monotonic(), 0, 0.0]
        try:
            await self.seats[seat].send(json.dumps(message))
        except websockets.ConnectionClosed:
            pass

    async def flip_later(self, seat):
        await asyncio.sleep(self.rng.uniform(0.2, 1.0))
        if time.monotonic() < self.run.stop_at:
            await self.send(seat, "flip")

    async def snap_later(self, seat):
        await asyncio.sleep(self.rng.uniform(0.1, 0.5))
        if time.monotonic() < self.run.stop_at:
            await self.send(seat, "snap")

    async def read(self, seat):
        ws = self.seats[seat]
        last_seq = {}  # sender's seat -> the last of its inputs answered (a sender's inputs in order)
        while True:
            left = self.run.stop_at + 2 - time.monotonic()
            if left <= 0:
                return
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=left)
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                return
            now = time.monotonic()
            self.run.frames += 1
            cause = json.loads(text)["cause"]
            before = last_seq.get(cause["seat"], 0)
            if cause["seq"] <= before:
                self.run.problems.append("%s seat %d: seat %d's input %d after its %d" % (self.name, seat, cause["seat"], cause["seq"], before))
            last_seq[cause["seat"]] = cause["seq"]
            sent = self.run.sent.get((self.name, cause["seq"]))
            if sent is None:
                continue
            sent[1] += 1
            sent[2] = max(sent[2], now)
            if sent[1] == PLAYERS:
                self.run.answered(sent)
            if cause["name"] == "flip" and (cause["seat"] + 1) % PLAYERS == seat:
                asyncio.ensure_future(self.flip_later(seat))
            elif cause["seat"] != seat and self.rng.random() < 0.02:
                asyncio.ensure_future(self.snap_later(seat))


class Run:
    def __init__(self, args):
        self.pid = args.server_pid
        self.opening = asyncio.Semaphore(200)
        self.sent = {}
        self.frames = 0
        self.problems = []
        self.latencies = []
        self.window_inputs = 0
        self.window_start = None
        self.stop_at = None

    def answered(self, sent):
        if self.window_start is not None and sent[0] >= self.window_start and sent[2] <= self.stop_at:
            self.window_inputs += 1
            self.latencies.append(sent[2] - sent[0])


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--server-pid", type=int, required=True)
    parser.add_argument("--label", default="ws-floor")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    run = Run(args)
    rng = random.Random(args.seed)
    rooms = [Room("r%04d" % r, args.url, random.Random(rng.random()), run) for r in range(args.rooms)]
    await asyncio.gather(*[room.connect() for room in rooms])
    # Every connection joined: the window starts (start-up and joins are not counted).
    run.window_start = time.monotonic()
    run.stop_at = run.window_start + args.seconds
    user0, sys0 = cpu(run.pid)
    own0 = os.times()
    readers = [asyncio.ensure_future(room.read(seat)) for room in rooms for seat in range(PLAYERS)]
    for room in rooms:
        asyncio.ensure_future(room.flip_later(0))
    await asyncio.sleep(args.seconds)
    user1, sys1 = cpu(run.pid)
    own1 = os.times()
    await asyncio.gather(*readers)
    for room in rooms:
        for ws in room.seats:
            await ws.close()
    unanswered = sum(1 for sent in run.sent.values() if sent[1] < PLAYERS and sent[0] < run.stop_at - 1)
    if unanswered:
        run.problems.append("%d inputs (sent over a second before the end) not answered to all four seats" % unanswered)
    n = max(1, run.window_inputs)
    user, system = user1 - user0, sys1 - sys0
    own = (own1.user - own0.user) + (own1.system - own0.system)
    print("rooms: %d x %d, %.0f s after the joins; inputs answered: %d (%.0f/s), frames received: %d" % (
        args.rooms, PLAYERS, args.seconds, run.window_inputs, run.window_inputs / args.seconds, run.frames))
    print("server CPU per input: %.0f us (user %.0f, system %.0f); %.0f%% of one core" % (
        1e6 * (user + system) / n, 1e6 * user / n, 1e6 * system / n, 100 * (user + system) / args.seconds))
    print("latency input -> last frame: p50 %.2f ms, p99 %.2f ms" % (
        1000 * percentile(run.latencies, 50), 1000 * percentile(run.latencies, 99)))
    print("load generator CPU: %.1f s (%.0f%% of one core)" % (own, 100 * own / args.seconds))
    # For run.sh: one line it collects.
    print("RESULT %s inputs=%d user_us=%.1f sys_us=%.1f p50_ms=%.2f p99_ms=%.2f" % (
        args.label, run.window_inputs, 1e6 * user / n, 1e6 * system / n,
        1000 * percentile(run.latencies, 50), 1000 * percentile(run.latencies, 99)))
    if run.problems:
        print("PROBLEMS (%d):" % len(run.problems))
        for p in run.problems[:10]:
            print("  " + p)
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
