"""Chaos test for `dicehost serve` with its room store (see loadtest/README.md).

Starts the server process(es) itself, opens ROOMS rooms with 4 bot clients each (Race
to Space by default, or Snap) playing at a person's pace, and every KILL_EVERY seconds
kills a server process with SIGKILL and starts it again at once on the same store and
port. Clients behave like the page (Sources/DiceHostServer/Web/reconnect.js): when the
connection drops they reconnect with back-off (0.5 s doubling to 10 s, jittered), join
again with their token, and send again every input not acknowledged yet, with its `seq`.
After the chaos no process is killed any more and every room plays its game to the end.

Then, from the store (read after the servers are stopped), it checks and prints:
  - every client's events equal its room's log (the store's events, as its seat may see
    them), and a sample of the rooms exported as a game log replays (`dicehost replay`);
  - no acknowledged input is missing from the store (each seat's last_seq, the count of
    its inputs, and the stored input behind each acknowledged one's events);
  - every room played a game to its end after the chaos;
  - p99 input -> broadcast latency outside the failover windows;
  - failover time, kill -> room playable again (every seat joined again): median, max;
  - with --check-epochs (PostgreSQL): never two owners appending to one room.
Exit status 1 when any check fails.

    python loadtest/chaos.py --bin .build/release/dicehost --rules rules \
        --store /tmp/x/rooms.sqlite --rooms 100 --seconds 90 --kill-every 15
"""
import argparse
import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client  # noqa: E402  (loadtest/client.py: the event forms and the bot base)
import websockets  # noqa: E402

PLAYERS = 4
FIRST_WAIT, MOST_WAIT = 0.5, 10.0
# With several processes on PostgreSQL: a process that reached a room another process
# still holds (its lease not lapsed yet), or that lost the room, says so; the page
# reconnects then, and so do these clients.
MOVED_CODES = ("owned-elsewhere", "moved")  # the page's reconnect back-off (reconnect.js)


class ServerProcess:
    """One `dicehost serve` on a fixed port, started again on the same store after a kill."""

    def __init__(self, name, argv, port, work):
        self.name, self.argv, self.port, self.work = name, argv, port, work
        self.process = None
        self.starts = 0
        self.restart_seconds = []

    def start(self):
        self.starts += 1
        out = open(os.path.join(self.work, "%s.%d.out" % (self.name, self.starts)), "w")
        self.out_path = out.name
        self.process = subprocess.Popen(self.argv + ["--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT)
        out.close()

    async def listening(self, timeout=120):
        """Waits until the process printed its address (it reopens its rooms first)."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            with open(self.out_path, encoding="utf-8", errors="replace") as f:
                if "http://" in f.read():
                    return time.monotonic() - began
            if self.process.poll() is not None:
                break
            await asyncio.sleep(0.05)
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            raise RuntimeError("%s did not start (exit %s): %s" % (self.name, self.process.poll(), f.read()[-2000:]))

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log_text(self):
        texts = []
        for n in range(1, self.starts + 1):
            path = os.path.join(self.work, "%s.%d.out" % (self.name, n))
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
        return "".join(texts)


class Run:
    """What every client shares: the phase, the kills, the latency samples."""

    def __init__(self, args):
        self.args = args
        self.phase = "setup"       # setup -> chaos -> end -> done
        self.kills = []            # (time, process name)
        self.latencies = []        # (sent, received)
        self.end_started = None
        self.stop = asyncio.Event()
        self.refused = {}
        self.reconnects = 0


class Room:
    def __init__(self, room_id):
        self.id = room_id
        self.players = []
        self.created = asyncio.Event()
        self.finished_after_chaos = False
        self.over = False


class ChaosPlayer(client.Player):
    """A bot seat that survives its server being killed, as the page does."""

    def __init__(self, room, seat, url, run, rng):
        super().__init__(room.id, "%s-%d" % (room.id, seat + 1), url, {"sent": 0}, rng)
        self.table, self.seat, self.run_state = room, seat, run
        self.token = None
        self.events = {}           # event index -> canonical JSON
        self.next_event = None     # index the next `events` message must start at (this connection)
        self.unacked = {}          # seq -> message
        self.acked = {}            # seq -> input kind ("roll", "restart", an action name)
        self.acked_first = {}      # seq -> (index of the first event its broadcast carried, how many)
        self.first_sent = {}       # seq -> monotonic time first sent
        self.rejoins = []          # monotonic times this seat was back (joined again and its state received)
        self.joined_once = asyncio.Event()
        self.last_seq_seen = 0
        self.duplicates = 0
        self.resent = 0
        self.holes = 0
        self.drops = []            # monotonic times this seat's connection dropped
        self.fatal = False

    # ---- sending ----
    async def input(self, message):
        self.seq += 1
        message["seq"] = self.seq
        self.unacked[self.seq] = message
        self.first_sent[self.seq] = time.monotonic()
        await self.send(message)

    async def send(self, message):
        if self.ws is None:
            return  # disconnected: sent again after the rejoin
        try:
            await self.ws.send(json.dumps(message))
        except Exception:
            pass

    # ---- the connection, again and again ----
    async def run(self):
        wait = FIRST_WAIT
        first = True
        while not self.run_state.stop.is_set() and not self.fatal:
            if not first:
                await asyncio.sleep(wait * (0.5 + self.rng.random() / 2))
                wait = min(wait * 2, MOST_WAIT)
            first = False
            try:
                async with client.OPENING:
                    ws = await websockets.connect(self.url + "?room=" + self.room, max_size=1 << 24,
                                                  open_timeout=30, ping_interval=None, close_timeout=1)
            except Exception:
                continue
            self.run_state.reconnects += 0 if self.token is None else 1
            try:
                self.ws = ws
                await ws.send(json.dumps({"type": "hello", "version": 1}))
                hello = json.loads(await ws.recv())
                if hello.get("type") != "hello":
                    continue
                wait = FIRST_WAIT  # the server said hello: the next drop starts from the short wait
                if self.token is None:
                    if self.seat == 0 and not self.table.created.is_set():
                        await ws.send(json.dumps(self.create_message()))
                        reply = json.loads(await ws.recv())
                        if reply.get("type") != "created":
                            self.problems.append("create %s: %s" % (self.room, reply))
                            return
                        self.table.created.set()
                    await self.table.created.wait()
                    await ws.send(json.dumps({"type": "join", "room": self.room, "name": self.name}))
                else:
                    await ws.send(json.dumps({"type": "join", "room": self.room, "token": self.token}))
                await self.read(ws)
            except (websockets.ConnectionClosed, OSError, asyncio.TimeoutError):
                pass
            finally:
                if self.ws is not None and not self.run_state.stop.is_set():
                    self.drops.append(time.monotonic())
                self.ws = None
                self.next_event = None
                try:
                    await ws.close()
                except Exception:
                    pass

    def create_message(self):
        if self.run_state.args.game == "snap":
            return {"type": "create", "rules": "snap.lua", "room": self.room, "seats": PLAYERS, "params": {"flip_ms": 1500}}
        return {"type": "create", "rules": "race.lua", "room": self.room, "seats": PLAYERS}

    async def read(self, ws):
        async for text in ws:
            now = time.monotonic()
            message = json.loads(text)
            kind = message.get("type")
            if kind == "joined":
                rejoined = self.token is not None
                self.token = message["token"]
                if rejoined:
                    last = message.get("lastSeq", 0)
                    self.last_seq_seen = max(self.last_seq_seen, last)
                    # Every input not acknowledged yet goes again with its seq: one the
                    # store has (seq <= lastSeq) is answered `ack` duplicate.
                    for seq in sorted(self.unacked):
                        self.resent += 1
                        await self.send(self.unacked[seq])
            elif kind == "state":
                if "events" in message:
                    self.take_state_events(message["first"], message["events"])
                    if self.joined_once.is_set():
                        self.rejoins.append(now)
                    self.joined_once.set()
                self.on_state(message["state"])
            elif kind == "events":
                self.take_events(message["first"], message["events"])
                cause = message.get("cause") or {}
                seq = cause.get("seq")
                if cause.get("player") == self.name and seq is not None:
                    self.acked_first.setdefault(seq, (message["first"], len(message["events"])))
                    sent = self.sent_at.pop(seq, None)
                    if sent is not None:
                        self.run_state.latencies.append((sent, now))
                self.note_end(message["events"])
                self.on_state(message["state"])
            elif kind == "ack":
                seq = message["seq"]
                sent = self.unacked.pop(seq, None)
                if message.get("duplicate"):
                    self.duplicates += 1
                if sent is not None:
                    self.acked[seq] = sent.get("name") or sent["type"]
                    if not message.get("duplicate") and seq in self.first_sent:
                        self.sent_at[seq] = self.first_sent[seq]
            elif kind == "error":
                code = message.get("code")
                self.run_state.refused[code] = self.run_state.refused.get(code, 0) + 1
                if message.get("seq") is not None:
                    self.unacked.pop(message["seq"], None)
                if code in MOVED_CODES and message.get("seq") is None:
                    return  # the room is (still) owned by another process: reconnect after the back-off
                if code in ("no-room", "store-failed", "bad-token"):
                    self.problems.append("%s: %s %s" % (self.name, code, message.get("message")))
                    self.fatal = True
                    return

    # ---- events, checked as they come ----
    def take_state_events(self, first, events):
        for offset, event in enumerate(events):
            self.remember(first + offset, client.canonical(event))
        if self.events and first > max(self.events) + 1:
            self.holes += first - (max(self.events) + 1)
        self.next_event = first + len(events)

    def take_events(self, first, events):
        if self.next_event is not None and first != self.next_event:
            self.problems.append("%s: events from %d on this connection, expected %d (%s)" % (
                self.name, first, self.next_event, "a gap" if first > self.next_event else "a repeat"))
        for offset, event in enumerate(events):
            self.remember(first + offset, client.canonical(event))
        self.next_event = first + len(events)

    def remember(self, index, text):
        known = self.events.get(index)
        if known is not None and known != text:
            self.problems.append("%s: event %d changed after a reconnect: %s, now %s" % (self.name, index, known, text))
        self.events[index] = text

    def note_end(self, events):
        if any(e.get("type") in ("win", "draw") for e in events):
            if self.run_state.phase in ("end", "done"):
                self.table.finished_after_chaos = True

    # ---- the bot ----
    def on_state(self, state):
        self.state = state
        phase = state.get("phase")
        if phase == "playing" and state.get("current") == self.name:
            if self.turn_task is None or self.turn_task.done():
                self.turn_task = asyncio.ensure_future(self.take_turn())
        elif phase == "over" and not self.table.finished_after_chaos and not self.is_ready(state):
            if self.turn_task is None or self.turn_task.done():
                self.turn_task = asyncio.ensure_future(self.restart())
        elif self.run_state.args.game == "snap" and phase == "playing" and self.rng.random() < 0.02:
            asyncio.ensure_future(self.call_snap())

    def think(self, low, high):
        if self.run_state.phase == "end":
            return self.rng.uniform(0.02, 0.1)
        return self.rng.uniform(low, high)

    async def take_turn(self):
        await asyncio.sleep(self.think(0.2, 1.0))  # a person thinking
        if self.run_state.stop.is_set() or not self.state or self.state.get("current") != self.name:
            return
        if self.state.get("phase") != "playing" or any(m.get("type") in ("roll", "action") for m in self.unacked.values()):
            return  # the last one is not answered yet (a reconnect sends it again)
        if self.run_state.args.game == "snap":
            await self.input({"type": "action", "name": "flip"})
        else:
            await self.input({"type": "roll"})

    def is_ready(self, state):
        return any(p.get("name") == self.name and p.get("ready") for p in state.get("players") or [])

    async def restart(self):
        # Another game starts once every seated player is ready (docs/protocol.md, "Another game").
        await asyncio.sleep(self.think(0.5, 1.0))
        if self.run_state.stop.is_set() or not self.state or self.state.get("phase") != "over" or self.is_ready(self.state):
            return
        if any(m.get("type") == "ready" for m in self.unacked.values()):
            return
        await self.input({"type": "ready"})


# ---- the store, read after the run ----
def read_sqlite(path):
    """room -> {"header": events, "inputs": [(n, line, events)], "seats": {seat: (name, last_seq)}, "closed": reason}"""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    rooms = {}
    for room_id, header, closed in db.execute("SELECT id, header, closed_reason FROM rooms"):
        rooms[room_id] = {"header": header, "inputs": [], "seats": {}, "closed": closed}
    columns = {row[1] for row in db.execute("PRAGMA table_info(inputs)")}
    # Store format 3 says how each input is held: a REPL line, or a typed input as JSON.
    kind = "kind" if "kind" in columns else "'line'"
    for room_id, n, line, t, events, how in db.execute("SELECT room, n, input, t, events, %s FROM inputs ORDER BY room, n" % kind):
        rooms[room_id]["inputs"].append((n, line, t, events, how))
    # A seat's last sequence number: its row's, or (store format 2) the highest one an input
    # of that seat carries in its own row, as the server reads it back.
    seats_query = ("SELECT s.room, s.seat, s.name, MAX(s.last_seq, COALESCE((SELECT MAX(i.seq) FROM inputs i "
                   "WHERE i.room = s.room AND i.seat = s.seat), 0)) FROM seats s"
                   if "seq" in columns else "SELECT room, seat, name, last_seq FROM seats")
    for room_id, seat, name, last_seq in db.execute(seats_query):
        rooms[room_id]["seats"][name] = last_seq
    db.close()
    return rooms


def read_postgres(url):
    """The same from PostgreSQL, through psql (one query per table, tab-separated)."""
    def query(sql):
        out = subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-F", "\t", "-c", sql], check=True,
                             capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]
    rooms = {}
    for room_id, header, closed in query("SELECT id, coalesce(header, ''), coalesce(closed_reason, '') FROM rooms"):
        rooms[room_id] = {"header": header or None, "inputs": [], "seats": {}, "closed": closed or None}
    for room_id, n, line, t, events, how in query("SELECT room, n, input, t, events, kind FROM inputs ORDER BY room, n"):
        rooms[room_id]["inputs"].append((int(n), line, int(t), events, how))
    for room_id, seat, name, last_seq in query("SELECT room, seat, name, last_seq FROM seats"):
        rooms[room_id]["seats"][name] = int(last_seq)
    return rooms


def check_epochs(url):
    """Never two owners appending to one room: each input row carries the epoch of the
    lease it was written under and the process (owner) that wrote it. Along a room's
    inputs the epoch never goes back (an old owner writing after a newer one took the room
    would show as a smaller epoch after a larger one), and each (room, epoch) has one owner."""
    problems = []
    rows = subprocess.run(["psql", url, "-X", "-q", "-A", "-t", "-F", "\t", "-c",
                           "SELECT room, n, epoch, owner FROM inputs ORDER BY room, n"], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    last = {}
    owners = {}
    for line in rows:
        room, n, epoch, owner = line.split("\t")
        epoch = int(epoch)
        if room in last and epoch < last[room][1]:
            problems.append("room %s: input %s written with epoch %d after input %d with epoch %d (two owners)" % (
                room, n, epoch, last[room][0], last[room][1]))
        last[room] = (int(n), epoch)
        owners.setdefault((room, epoch), set()).add(owner)
    for (room, epoch), who in owners.items():
        if len(who) > 1:
            problems.append("room %s: epoch %d written by %d processes: %s" % (room, epoch, len(who), ", ".join(sorted(who))))
    return problems, len(owners)


def stored_input(row):
    """(seat, what) of a stored input: what is "roll", an action's name, "restart", "tick", ...;
    seat is None for the room's own inputs. Rows are typed JSON (store format 3 writes every
    input so) or, from older servers, REPL lines (`as Ann roll`, `restart`)."""
    if row[4] == "json":
        try:
            value = json.loads(row[1])
        except ValueError:
            return (None, None)
        what = value.get("name") if value.get("type") == "action" else value.get("type")
        return (value.get("seat"), what)
    words = row[1].split()
    if len(words) >= 3 and words[0] == "as":
        return (words[1], words[2])
    return (None, words[0] if words else None)


def room_log(stored):
    """The room's events in order (header's, then each input's) and its export as a game log."""
    if stored["header"] is None:
        return [], None
    header = json.loads(stored["header"])
    events = list(header.get("events", []))
    lines = [stored["header"]]
    typed_log = header.get("dicehost_log", 1) >= 2  # game log format 2: typed inputs, commands as "command"
    for n, line, t, text, how in stored["inputs"]:
        evs = json.loads(text)
        events += evs
        if not typed_log:
            entry = {"n": n, "input": line}
        elif how == "json":
            entry = {"n": n, "input": json.loads(line)}
        else:
            entry = {"n": n, "command": line}
        entry.update({"t": t, "events": evs})
        lines.append(json.dumps(entry, ensure_ascii=False))
    return events, "\n".join(lines) + "\n"


def check(run, rooms, stored, args, work):
    problems = []
    players = [p for r in rooms for p in r.players]
    problems += [p for player in players for p in player.problems]
    compared = holes = 0
    missing_inputs = 0
    for room in rooms:
        found = stored.get(room.id)
        if found is None:
            problems.append("room %s is not in the store" % room.id)
            continue
        if found["closed"]:
            problems.append("room %s was closed: %s" % (room.id, found["closed"]))
        ns = [i[0] for i in found["inputs"]]
        if ns != list(range(1, len(ns) + 1)):
            problems.append("room %s: stored inputs are not numbered 1..%d without a gap" % (room.id, len(ns)))
        events, _ = room_log(found)
        # Which stored input each event index came from (None: the start).
        origin = [None] * len(json.loads(found["header"]).get("events", [])) if found["header"] else []
        for row in found["inputs"]:
            origin += [stored_input(row)] * len(json.loads(row[3]))
        for player in room.players:
            logged = [client.seen_by({k: v for k, v in e.items() if k != "text"}, player.name) for e in events]
            for index, text in sorted(player.events.items()):
                if index >= len(logged) or logged[index] is None:
                    problems.append("%s: event %d is not in the room's stored log (%d events)" % (player.name, index, len(logged)))
                    break
                if client.canonical(logged[index]) != text:
                    problems.append("%s: event %d differs from the room's stored log" % (player.name, index))
                    break
                compared += 1
            holes += player.holes
            if len(player.events) < 10:
                problems.append("%s: saw only %d events" % (player.name, len(player.events)))
            # No acknowledged input missing.
            last_seq = found["seats"].get(player.name)
            if last_seq is None:
                problems.append("%s: no seat in the store" % player.name)
                continue
            # A `ready` is no game input: the store keeps the new game it starts, as `restart`.
            stored_kinds = [seq for seq, k in player.acked.items() if k != "ready"]
            if stored_kinds and max(stored_kinds) > last_seq:
                problems.append("%s: seq %d acknowledged, the store's last_seq is %d" % (player.name, max(stored_kinds), last_seq))
                missing_inputs += 1
            for kind in ("roll", "flip", "snap"):
                acked = sum(1 for k in player.acked.values() if k == kind)
                stored_count = sum(1 for i in found["inputs"] if stored_input(i) == (player.name, kind))
                if acked > stored_count:
                    problems.append("%s: %d %s inputs acknowledged, %d stored" % (player.name, acked, kind, stored_count))
                    missing_inputs += 1
            # The broadcast of an acknowledged input carries its events (after those of the
            # timers that fired before it, stored as `tick` inputs): the store has the
            # input behind one of them.
            for seq, (first, count) in player.acked_first.items():
                kind = player.acked.get(seq)
                if kind is None or kind in ("restart", "ready") or count == 0:
                    continue
                if (player.name, kind) not in origin[first:first + count]:
                    problems.append("%s: seq %d's broadcast (events %d..%d) holds no stored %s %s: %r" % (
                        player.name, seq, first, first + count - 1, player.name, kind,
                        sorted(set(map(str, origin[first:first + count])))))
                    missing_inputs += 1
        # Every new game a client saw begin (a `start` event after the first game's) is in the store.
        starts = {index for p in room.players for index, text in p.events.items() if json.loads(text).get("type") == "start"}
        stored_restarts = sum(1 for i in found["inputs"] if stored_input(i)[1] == "restart")
        if len(starts) - 1 > stored_restarts:
            problems.append("room %s: %d new games seen, %d stored" % (room.id, len(starts) - 1, stored_restarts))
        if not room.finished_after_chaos:
            problems.append("room %s: no game ended after the chaos (state: %s)" % (
                room.id, (room.players[0].state or {}).get("phase")))

    # A sample of rooms exported as game logs and replayed by `dicehost replay`.
    replayed = 0
    sample = rooms if len(rooms) <= args.replay_rooms else random.Random(1).sample(rooms, args.replay_rooms)
    for room in sample:
        found = stored.get(room.id)
        if not found:
            continue
        _, text = room_log(found)
        if text is None:
            continue
        path = os.path.join(work, "replay-%s.jsonl" % room.id)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        done = subprocess.run([args.bin, "replay", path], capture_output=True, text=True)
        if done.returncode != 0:
            problems.append("dicehost replay of room %s failed: %s" % (room.id, (done.stdout + done.stderr)[-400:]))
        replayed += 1
    return problems, compared, holes, replayed, missing_inputs


def failovers(run, rooms):
    """For every kill and room: kill -> every seat of the room joined again (its state received)."""
    times, late = [], 0
    windows = []
    for index, (killed, name) in enumerate(run.kills):
        following = run.kills[index + 1][0] if index + 1 < len(run.kills) else float("inf")
        worst = 0.0
        for room in rooms:
            # A room is hit by a kill when its seats' connections dropped then (behind a
            # balancer, only the rooms of the killed process).
            hit = [p for p in room.players if any(killed <= d <= killed + 5 for d in p.drops)]
            if not hit:
                continue
            back = []
            for player in hit:
                after = [t for t in player.rejoins if t > killed]
                back.append(after[0] if after else None)
            if any(b is None or b > following for b in back):
                late += 1
                continue
            seconds = max(back) - killed
            times.append(seconds)
            worst = max(worst, seconds)
        windows.append((killed, killed + worst))
    return times, late, windows


async def chaos(args, servers, url):
    run = Run(args)
    rng = random.Random(args.seed)
    client.OPENING = asyncio.Semaphore(200)
    rooms = []
    for r in range(args.rooms):
        room = Room("%s%04d" % (args.prefix, r))
        for s in range(PLAYERS):
            room.players.append(ChaosPlayer(room, s, url, run, random.Random(rng.random())))
        rooms.append(room)
    tasks = [asyncio.ensure_future(p.run()) for room in rooms for p in room.players]
    started = time.monotonic()
    try:
        await asyncio.wait_for(asyncio.gather(*[p.joined_once.wait() for r in rooms for p in r.players]), 120)
    except asyncio.TimeoutError:
        print("chaos: not every seat joined within 120 s")
    print("setup: %d rooms x %d seats joined in %.1f s" % (len(rooms), PLAYERS, time.monotonic() - started))

    run.phase = "chaos"
    chaos_start = time.monotonic()
    victim = 0
    while True:
        next_kill = chaos_start + args.kill_every * (len(run.kills) + 1)
        if next_kill > chaos_start + args.seconds:
            break
        await asyncio.sleep(max(0, next_kill - time.monotonic()))
        server = servers[victim % len(servers)]
        victim += 1
        index = len(run.kills)
        killed = time.monotonic()
        server.kill()
        run.kills.append((killed, server.name))
        server.start()
        ready = await server.listening()
        server.restart_seconds.append(ready)
        print("kill %d: %s killed at %.1f s, listening again after %.2f s" % (index + 1, server.name, killed - chaos_start, ready))
    await asyncio.sleep(max(0, chaos_start + args.seconds - time.monotonic()))

    # The end: no more kills; every room plays its game to the end.
    run.phase = "end"
    run.end_started = time.monotonic()
    for room in rooms:
        for p in room.players:
            if p.state:
                p.on_state(p.state)
    deadline = run.end_started + args.end_seconds
    while time.monotonic() < deadline and not all(r.finished_after_chaos for r in rooms):
        await asyncio.sleep(0.5)
    print("end: %d of %d rooms played a game to its end within %.1f s after the chaos" % (
        sum(r.finished_after_chaos for r in rooms), len(rooms), time.monotonic() - run.end_started))
    # Let the last acks arrive.
    await asyncio.sleep(1.0)
    run.phase = "done"
    run.stop.set()
    for p in (p for r in rooms for p in r.players):
        if p.ws is not None:
            try:
                await p.ws.close()
            except Exception:
                pass
    await asyncio.wait(tasks, timeout=15)
    for t in tasks:
        t.cancel()
    return run, rooms, chaos_start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=".build/release/dicehost")
    parser.add_argument("--rules", default="rules")
    parser.add_argument("--store", required=True, help="an SQLite file, or postgres://…")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--ports", default="", help="the servers' ports, comma-separated (default: free ones)")
    parser.add_argument("--front", default="", help="ws://… of a balancer in front of the processes")
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=90, help="how long the chaos lasts")
    parser.add_argument("--kill-every", type=float, default=15)
    parser.add_argument("--end-seconds", type=float, default=120, help="how long the rooms get to finish their games after it")
    parser.add_argument("--game", choices=["race", "snap"], default="race")
    parser.add_argument("--prefix", default="ch")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--replay-rooms", type=int, default=20)
    parser.add_argument("--check-epochs", action="store_true")
    parser.add_argument("--work", default="")
    args = parser.parse_args()

    work = args.work or tempfile.mkdtemp(prefix="dicehost-chaos.")
    ports = [int(p) for p in args.ports.split(",") if p] or [client_free_port() for _ in range(args.processes)]
    servers = [ServerProcess("serve%d" % (i + 1), [args.bin, "serve", args.rules, "--store", args.store], ports[i], work)
               for i in range(args.processes)]
    load = os.getloadavg()
    print("chaos: %d process(es), store %s, %d rooms x %d clients (%s), kill every %g s for %g s; load average %.1f" % (
        len(servers), "PostgreSQL" if args.store.startswith("postgres") else "SQLite", args.rooms, PLAYERS, args.game,
        args.kill_every, args.seconds, load[0]))
    for server in servers:
        server.start()
    loop = asyncio.new_event_loop()
    try:
        for server in servers:
            loop.run_until_complete(server.listening())
        url = args.front or "ws://127.0.0.1:%d/ws" % servers[0].port
        run, rooms, chaos_start = loop.run_until_complete(chaos(args, servers, url))
    finally:
        for server in servers:
            server.stop()
    loop.close()

    stored = read_postgres(args.store) if args.store.startswith("postgres") else read_sqlite(args.store)
    problems, compared, holes, replayed, missing = check(run, rooms, stored, args, work)
    times, late, windows = failovers(run, rooms)
    outside = [r - s for s, r in run.latencies if not any(s < b + 0.0 and r > a for a, b in windows)]
    inside = len(run.latencies) - len(outside)
    players = [p for r in rooms for p in r.players]
    acked = sum(len(p.acked) for p in players)
    inputs = sum(len(s["inputs"]) for k, s in stored.items() if k.startswith(args.prefix))

    print("kills: %d (%s)" % (len(run.kills), ", ".join(
        "%s restarted in %s s" % (s.name, "/".join("%.2f" % x for x in s.restart_seconds)) for s in servers)))
    print("reconnects: %d; inputs acknowledged: %d; sent again after a reconnect: %d (%d of them answered duplicate: stored before the kill); stored inputs (with timer ticks): %d; refused: %s" % (
        run.reconnects, acked, sum(p.resent for p in players), sum(p.duplicates for p in players), inputs,
        ", ".join("%s %d" % kv for kv in sorted(run.refused.items())) or "none"))
    if times:
        print("failover, kill -> every seat of the room back: median %.2f s, max %.2f s (%d room-kills)%s" % (
            client.percentile(times, 50), max(times), len(times),
            "; %d not back before the next kill" % late if late else ""))
    print("latency input -> broadcast outside the failover windows: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d inputs; %d in the windows left out)" % (
        client.percentile(outside, 50) * 1000, client.percentile(outside, 99) * 1000,
        (max(outside) if outside else float("nan")) * 1000, len(outside), inside))
    print("events compared with the store's room logs: %d (seat by seat; %d events of earlier games not resent after a reconnect)" % (compared, holes))
    print("dicehost replay: %d room logs exported from the store replayed" % replayed)
    if args.check_epochs and args.store.startswith("postgres"):
        epoch_problems, owners = check_epochs(args.store)
        problems += epoch_problems
        print("owners: %d (room, epoch) pairs; epochs never go back along a room's inputs: %s" % (owners, "yes" if not epoch_problems else "NO"))
    for server in servers:
        text = server.log_text()
        for line in text.splitlines():
            if " is closed" in line or "cannot" in line:
                problems.append("%s said: %s" % (server.name, line[:300]))
    print("load average at the end: %.1f" % os.getloadavg()[0])
    if late:
        problems.append("%d room-kills: a room not playable again before the next kill" % late)
    if problems:
        print("PROBLEMS (%d):" % len(problems))
        for p in problems[:30]:
            print("  " + p)
        print("chaos: FAILED (work folder %s)" % work)
        sys.exit(1)
    print("chaos: every client's events equal its room's stored log; no acknowledged input missing; every room played to its end")


def client_free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


if __name__ == "__main__":
    main()
