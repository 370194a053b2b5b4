"""Load test client for `dicehost serve` (see loadtest/README.md).

Opens ROOMS rooms of Snap with 4 players each, every player a bot with a person's
timing: on its turn it flips after 200-1000 ms (a slow one is flipped by the rules'
timer), now and then it calls snap, and after a game ends one player restarts it. For
DURATION seconds. Then it reports messages/s, the latency from an input to the
broadcast of its events (p50/p99), and checks every client's events: numbered from 0
with no gap, no repeat, in order, and equal to the room's log on the server.

    python loadtest/client.py --url ws://127.0.0.1:8080/ws --rooms 200 --seconds 60 --logs DIR [--logs DIR2]

With --game liars-dice the rooms play Liar's Dice (secret cups, per-seat views): each
client checks that no message before a reveal holds another seat's dice, compares its
events with its room's log as its seat may see it, and the latency is measured from an
input to the last seat's message about it. --server-pid reports the server's CPU time
per message; the load generator's own CPU time is reported too.
"""
import argparse
import asyncio
import glob
import json
import os
import random
import resource
import sys
import time

import websockets

PLAYERS = 4
GAME = "snap"
PROTOCOL = 2  # version 2: an input's ack rides in the acting client's events message (docs/protocol.md)
OPENING = None  # asyncio.Semaphore, made in main (it needs the running loop)
THINK = 1.0  # how much slower than the usual person the bots think (--think)


def seen_by(event, me):
    """The room log's event as seat `me` receives it (the server's SeatView), or None."""
    audience = event.get("to")
    if audience is None or me in audience:
        return event
    if event.get("type") == "roll":
        return {"t": event["t"], "type": "roll", "player": event["player"], "hidden": True, "dice": len(event.get("values", []))}
    return None


def canonical(event):
    """An event without its "text" (the room log adds the event's one-line form there)."""
    return json.dumps({k: v for k, v in event.items() if k != "text"}, sort_keys=True, ensure_ascii=False)


class Player:
    def __init__(self, room, name, url, stats, rng):
        self.room, self.name, self.url, self.stats, self.rng = room, name, url, stats, rng
        self.events = []          # canonical JSON of every event, in order
        self.problems = []
        self.seq = 0
        self.sent_at = {}         # seq -> monotonic time sent
        self.state = None
        self.ws = None
        self.turn_task = None
        self.done = False
        self.revealed = set()

    async def send(self, message):
        self.stats["sent"] += 1
        await self.ws.send(json.dumps(message))

    async def input(self, message):
        self.seq += 1
        message["seq"] = self.seq
        self.sent_at[self.seq] = time.monotonic()
        await self.send(message)

    def take_events(self, first, events):
        if GAME == "liars-dice":
            self.check_secrets(events)
            for event in events:
                self.events.append(canonical(event))
            return
        if first != len(self.events):
            self.problems.append("%s/%s: events from %d, expected %d (%s)" % (
                self.room, self.name, first, len(self.events), "a gap" if first > len(self.events) else "a repeat"))
            if first < len(self.events):
                events = events[len(self.events) - first:]
        for event in events:
            self.events.append(canonical(event))

    def check_secrets(self, events):
        """No event of another seat's roll with values, none addressed to another seat."""
        for event in events:
            audience = event.get("to")
            if audience is not None and self.name not in audience:
                self.problems.append("%s received an event for %s" % (self.name, audience))
            if event.get("type") == "roll" and event.get("player") != self.name and "values" in event:
                self.problems.append("%s received %s's roll values" % (self.name, event.get("player")))
            if event.get("type") == "reveal":
                self.revealed.add(event.get("player"))
            if event.get("type") == "roll" and event.get("player") != self.name:
                self.revealed.discard(event.get("player"))

    def check_view(self, state):
        for p in (state.get("view") or {}).get("players") or []:
            cup = p.get("cup")
            if p.get("name") != self.name and isinstance(cup, dict) and cup.get("kind") == "roll" and p.get("name") not in self.revealed:
                self.problems.append("%s saw %s's cup before a reveal" % (self.name, p.get("name")))

    async def run(self, create, joined_all, stop_at):
        # A few hundred opening handshakes at a time: thousands at once from one process
        # send their request heads later than the server's head deadline (10 s: 408).
        async with OPENING:
            connection = await websockets.connect(self.url + "?room=" + self.room, max_size=1 << 24, open_timeout=60,
                                                  ping_interval=None)
        async with connection as ws:
            self.ws = ws
            await self.send({"type": "hello", "version": PROTOCOL})
            await ws.recv()
            if create:
                if GAME == "liars-dice":
                    await self.send({"type": "create", "rules": "liars-dice.lua", "room": self.room, "seats": PLAYERS,
                                     "params": {"start_dice": 3}})
                else:
                    await self.send({"type": "create", "rules": "snap.lua", "room": self.room, "seats": PLAYERS,
                                     "params": {"flip_ms": 1500}})
                reply = json.loads(await ws.recv())
                if reply.get("type") != "created":
                    self.problems.append("create %s: %s" % (self.room, reply))
                    return
                joined_all.set()
            else:
                await joined_all.wait()
            await self.send({"type": "join", "room": self.room, "name": self.name})
            reader = asyncio.ensure_future(self.read(stop_at))
            try:
                await reader
            finally:
                self.done = True

    async def read(self, stop_at):
        ws = self.ws
        while True:
            left = stop_at - time.monotonic()
            if left <= 0:
                return
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=left)
            except asyncio.TimeoutError:
                return
            now = time.monotonic()
            self.stats["received"] += 1
            message = json.loads(text)
            kind = message.get("type")
            if kind == "events":
                self.take_events(message["first"], message["events"])
                cause = message.get("cause") or {}
                if GAME == "liars-dice" and cause.get("seq") is not None:
                    # Input -> the last seat's message: the latest arrival of the four.
                    key = (self.room, cause.get("player"), cause["seq"])
                    arrivals = self.stats["arrivals"].setdefault(key, [0, 0.0])
                    arrivals[0] += 1
                    arrivals[1] = max(arrivals[1], now)
                if cause.get("player") == self.name and cause.get("seq") in self.sent_at:
                    sent = self.sent_at.pop(cause["seq"])
                    self.stats["latencies"].append(now - sent)
                    self.stats["sent_times"][(self.room, self.name, cause["seq"])] = sent
                self.on_state(message["state"])
            elif kind == "state":
                if "events" in message and not self.events:
                    self.take_events(message["first"], message["events"])
                self.on_state(message["state"])
            elif kind == "error":
                self.stats["refused"] += 1
                self.sent_at.pop(message.get("seq"), None)

    def on_state(self, state):
        self.state = state
        if GAME == "liars-dice":
            self.check_view(state)
        if state.get("phase") == "playing" and state.get("current") == self.name:
            if self.turn_task is None or self.turn_task.done():
                self.turn_task = asyncio.ensure_future(self.take_turn())
        elif state.get("phase") == "over" and not any(p.get("name") == self.name and p.get("ready") for p in state.get("players") or []):
            # Another game starts once every seated player is ready (docs/protocol.md, "Another game").
            if self.turn_task is None or self.turn_task.done():
                self.turn_task = asyncio.ensure_future(self.restart())
        elif GAME == "snap" and state.get("phase") == "playing" and self.rng.random() < 0.02:
            asyncio.ensure_future(self.call_snap())

    async def take_turn(self):
        await asyncio.sleep(THINK * self.rng.uniform(0.2, 1.0))  # a person thinking
        if self.done or not self.state or self.state.get("current") != self.name:
            return
        if GAME == "liars-dice":
            view = self.state.get("view") or {}
            bid = view.get("bid")
            if view.get("phase") == "rolling":
                await self.safe(self.input({"type": "roll"}))
            elif bid is None:
                await self.safe(self.input({"type": "action", "name": "bid", "args": [1, self.rng.randint(2, 6)]}))
            elif bid["quantity"] < max(2, view.get("dice_in_play", 4) // 3) and self.rng.random() < 0.7:
                await self.safe(self.input({"type": "action", "name": "bid", "args": [bid["quantity"] + 1, bid["face"]]}))
            else:
                await self.safe(self.input({"type": "action", "name": "liar", "args": []}))
            return
        await self.safe(self.input({"type": "action", "name": "flip"}))

    async def call_snap(self):
        await asyncio.sleep(THINK * self.rng.uniform(0.1, 0.5))
        await self.safe(self.input({"type": "action", "name": "snap"}))

    async def restart(self):
        await asyncio.sleep(THINK * self.rng.uniform(0.5, 1.0))
        await self.safe(self.input({"type": "ready"}))

    async def safe(self, job):
        try:
            await job
        except Exception:
            pass  # the connection is closing at the end of the run


def room_logs(directories, me=None):
    """room id -> the events of its log file, in order (as seat `me` sees them, if given)."""
    logs = {}
    for directory in directories:
        for path in glob.glob(os.path.join(directory, "room-*.jsonl")):
            room = os.path.basename(path)[len("room-"):].rsplit("-", 1)[0]
            events = []
            with open(path, encoding="utf-8") as f:
                for line in f:
                    for event in json.loads(line).get("events", []):
                        if me is not None:
                            event = seen_by({k: v for k, v in event.items() if k != "text"}, me)
                            if event is None:
                                continue
                        events.append(canonical(event))
            logs.setdefault(room, []).append((directory, events))
    return logs


def process_cpu(pid):
    """User + system CPU seconds of process `pid` (Linux /proc), or 0."""
    if not pid:
        return 0.0
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--logs", action="append", default=[])
    parser.add_argument("--prefix", default="lt")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=["snap", "liars-dice"], default="snap")
    parser.add_argument("--server-pid", type=int, default=None)
    parser.add_argument("--protocol", type=int, choices=[1, 2], default=2,
                        help="the protocol version to say hello with (1: a separate ack message per input; for servers before version 2)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="scale the bots' thinking times (2: half as many inputs a second; Snap's 5 s flip timer takes over past about 5)")
    args = parser.parse_args()
    if not 0.1 <= args.think <= 20:
        parser.error("--think: a factor from 0.1 to 20 expected, got %g" % args.think)
    global GAME, OPENING, PROTOCOL, THINK
    THINK = args.think
    GAME = args.game
    PROTOCOL = args.protocol
    OPENING = asyncio.Semaphore(200)
    server_cpu_before = process_cpu(args.server_pid)
    own_before = resource.getrusage(resource.RUSAGE_SELF)
    rng = random.Random(args.seed)
    stats = {"sent": 0, "received": 0, "refused": 0, "latencies": [], "arrivals": {}, "sent_times": {}}
    players, jobs = [], []
    start = time.monotonic()
    stop_at = start + args.seconds
    for r in range(args.rooms):
        room = "%s%04d" % (args.prefix, r)
        joined_all = asyncio.Event()
        for s in range(PLAYERS):
            player = Player(room, "%s-%d" % (room, s + 1), args.url, stats, random.Random(rng.random()))
            players.append(player)
            jobs.append(player.run(s == 0, joined_all, stop_at))
    # Every client ends within two minutes of the run's end (an overloaded server, or a
    # room whose creator failed, must not hold the run for ever): late is a failure.
    results = await asyncio.gather(*[asyncio.wait_for(job, args.seconds + 120) for job in jobs], return_exceptions=True)
    elapsed = time.monotonic() - start
    server_cpu = process_cpu(args.server_pid) - server_cpu_before if args.server_pid else None
    own_after = resource.getrusage(resource.RUSAGE_SELF)
    own_cpu = (own_after.ru_utime - own_before.ru_utime) + (own_after.ru_stime - own_before.ru_stime)
    failures = [r for r in results if isinstance(r, Exception)]
    await asyncio.sleep(0.5)

    problems = [p for player in players for p in player.problems]
    logs = room_logs(args.logs)
    checked = 0
    per_process = {}
    for player in players:
        found = logs.get(player.room, [])
        if len(found) != 1:
            problems.append("%s: %d room logs found (expected exactly one)" % (player.room, len(found)))
            continue
        directory, logged = found[0]
        if GAME == "liars-dice":
            logged = dict(room_logs([directory], me=player.name)).get(player.room, [(directory, [])])[0][1]
        per_process.setdefault(directory, set()).add(player.room)
        if player.events != logged[:len(player.events)]:
            at = next((i for i, (a, b) in enumerate(zip(player.events, logged)) if a != b), min(len(player.events), len(logged)))
            problems.append("%s: its events differ from the room log at event %d" % (player.name, at))
        elif len(player.events) < 10:
            problems.append("%s: saw only %d events" % (player.name, len(player.events)))
        checked += 1

    events_seen = sum(len(p.events) for p in players)
    lat = stats["latencies"]
    print("rooms: %d x %d clients, %.1f s" % (args.rooms, PLAYERS, elapsed))
    print("messages: %d sent, %d received: %.0f messages/s (%.0f in, %.0f out)" % (
        stats["sent"], stats["received"], (stats["sent"] + stats["received"]) / elapsed,
        stats["sent"] / elapsed, stats["received"] / elapsed))
    print("inputs answered with a broadcast: %d; refused: %d; events seen by clients: %d" % (len(lat), stats["refused"], events_seen))
    print("latency input -> broadcast: p50 %.1f ms, p99 %.1f ms, max %.1f ms" % (
        percentile(lat, 50) * 1000, percentile(lat, 99) * 1000, (max(lat) if lat else float("nan")) * 1000))
    if GAME == "liars-dice":
        last = [stats["arrivals"][k][1] - sent for k, sent in stats["sent_times"].items()
                if k in stats["arrivals"] and stats["arrivals"][k][0] == PLAYERS]
        print("latency input -> the last seat's message: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d inputs seen by all %d seats)" % (
            percentile(last, 50) * 1000, percentile(last, 99) * 1000, (max(last) if last else float("nan")) * 1000, len(last), PLAYERS))
    messages = stats["sent"] + stats["received"]
    if server_cpu is not None:
        print("server CPU: %.1f s over %.1f s (%.0f%% of one core), %.1f us per message, %.0f us per input answered" % (
            server_cpu, elapsed, 100 * server_cpu / elapsed, 1e6 * server_cpu / max(1, messages), 1e6 * server_cpu / max(1, len(lat))))
    print("load generator CPU: %.1f s (%.0f%% of one core)" % (own_cpu, 100 * own_cpu / elapsed))
    # For loadtest/run.sh, which adds up several generators (LOADTEST_GENERATORS): one
    # line per generator, appended to the file it names.
    if os.environ.get("LOADTEST_TOTALS"):
        with open(os.environ["LOADTEST_TOTALS"], "a") as totals:
            totals.write("%d %d %s\n" % (len(lat), messages, ",".join("%.2f" % (x * 1000) for x in lat)))
    if len(args.logs) > 1:
        print("rooms per process: " + ", ".join("%s: %d" % (os.path.basename(d.rstrip("/")), len(r)) for d, r in sorted(per_process.items())))
    print("clients checked against the room logs: %d of %d" % (checked, len(players)))
    if failures:
        problems += ["a client failed: %r" % f for f in failures[:5]]
    if problems:
        print("PROBLEMS (%d):" % len(problems))
        for p in problems[:20]:
            print("  " + p)
        sys.exit(1)
    if GAME == "liars-dice":
        print("no message held another seat's dice before a reveal; every client's events equal its room's log as its seat sees it")
    else:
        print("no event lost, repeated or out of order; every client's view equals its room's log")


if __name__ == "__main__":
    asyncio.run(main())
