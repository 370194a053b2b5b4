"""What an idle room holds in a `dicehost serve` (issue 32): RSS per room.

    python3 bench/idle-rooms.py BIN [--rooms 1000] [--games snap,liars-dice] [--settle 15]

For each game, a fresh `BIN serve rules` on a free loopback port; its RSS is read once it
has settled with no room (N = 0). Then ROOMS rooms are made, 4 seats each, by 4 clients
that join (the game starts), play 4 inputs in turn, and leave. The RSS is read again once
the server has settled with every room idle (N = ROOMS): the difference over ROOMS is what
an idle room costs, an upper bound, since malloc keeps some of what the making used.
The private (anonymous) memory from /proc/PID/smaps_rollup is reported beside the RSS.
Snap rooms are not quiet when idle: the rules' timer turns a slow player's card, so an
empty Snap room keeps playing (one input every flip_ms, 5 s by default).

With `--connections N` it first measures what a closed connection leaves behind, on a
server of its own: N clients say hello and leave, and the RSS is read before and after
(a WebSocket connection's NIO channel outlived it once: issue 32).

Needs the websockets package (.build-venv, made by loadtest/run.sh, has it); `make
bench-idle-rooms` builds the release binary and runs this. See bench/README.md.
"""
import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import websockets

SEATS = 4
INPUTS = 4


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def anonymous_kib(pid):
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Anonymous:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for_port(port, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not listen on port %d within %d s" % (port, seconds))


async def receive(ws, want):
    """Messages until one whose type is in `want`; returns it (the last state seen kept)."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message.get("type") in want:
            return message


class Seat:
    def __init__(self, name, ws):
        self.name, self.ws, self.state, self.seq = name, ws, None, 0

    async def read(self):
        try:
            async for text in self.ws:
                message = json.loads(text)
                if "state" in message and isinstance(message["state"], dict):
                    self.state = message["state"]
        except websockets.ConnectionClosed:
            pass


async def play_room(url, game, room, opening):
    """Makes one room, seats 4 players, plays INPUTS inputs, and leaves."""
    seats = []
    async with opening:
        for s in range(SEATS):
            ws = await websockets.connect(url + "?room=" + room, max_size=1 << 24, open_timeout=60, ping_interval=None)
            await ws.send(json.dumps({"type": "hello", "version": 1}))
            await receive(ws, {"welcome", "hello"})
            seats.append(Seat("%s-%d" % (room, s + 1), ws))
        rules = {"snap": "snap.lua", "liars-dice": "liars-dice.lua"}[game]
        await seats[0].ws.send(json.dumps({"type": "create", "rules": rules, "room": room, "seats": SEATS}))
        reply = await receive(seats[0].ws, {"created", "error"})
        if reply["type"] != "created":
            raise RuntimeError("create %s: %s" % (room, reply))
        for seat in seats:
            await seat.ws.send(json.dumps({"type": "join", "room": room, "name": seat.name}))
            await receive(seat.ws, {"joined", "error"})
    readers = [asyncio.ensure_future(seat.read()) for seat in seats]
    played = 0
    deadline = time.monotonic() + 60
    while played < INPUTS and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        state = seats[0].state
        if not state or state.get("phase") != "playing":
            continue
        current = next((s for s in seats if s.name == state.get("current")), None)
        if current is None:
            continue
        current.seq += 1
        if game == "snap":
            message = {"type": "action", "name": "flip", "seq": current.seq}
        else:
            view = (current.state or {}).get("view") or {}
            if view.get("phase") == "rolling":
                message = {"type": "roll", "seq": current.seq}
            else:
                bid = view.get("bid")
                quantity = 1 if bid is None else bid["quantity"] + 1
                message = {"type": "action", "name": "bid", "args": [quantity, 3], "seq": current.seq}
        seen = state.get("current"), len(json.dumps(state))
        await current.ws.send(json.dumps(message))
        played += 1
        # Wait until the state moved on before the next input.
        while time.monotonic() < deadline and (seats[0].state.get("current"), len(json.dumps(seats[0].state))) == seen:
            await asyncio.sleep(0.02)
    for seat in seats:
        await seat.ws.close()
    await asyncio.gather(*readers)
    return played


async def make_rooms(url, game, rooms):
    opening = asyncio.Semaphore(50)
    results = await asyncio.gather(*[play_room(url, game, "idle%05d" % r, opening) for r in range(rooms)],
                                   return_exceptions=True)
    failures = [r for r in results if isinstance(r, Exception)]
    inputs = sum(r for r in results if not isinstance(r, Exception))
    return inputs, failures


async def hello_and_leave(url, count):
    """`count` clients, 50 at a time, each saying hello and closing."""
    opening = asyncio.Semaphore(50)

    async def one():
        async with opening:
            ws = await websockets.connect(url, open_timeout=60, ping_interval=None)
            await ws.send(json.dumps({"type": "hello", "version": 1}))
            await receive(ws, {"hello"})
            await ws.close()
    await asyncio.gather(*[one() for _ in range(count)])


def closed_connections(binary, count, settle_seconds):
    """KiB of RSS a closed connection leaves (after a first round of 200 warmed the server up)."""
    work = tempfile.mkdtemp(prefix="dicehost-idle-rooms.")
    port = free_port()
    out = open(os.path.join(work, "server.out"), "w")
    server = subprocess.Popen([binary, "serve", "rules", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        url = "ws://127.0.0.1:%d/ws" % port
        asyncio.run(hello_and_leave(url, 200))
        rss0 = settle(server.pid, settle_seconds)
        asyncio.run(hello_and_leave(url, count))
        rss1 = settle(server.pid, settle_seconds)
        return (rss1 - rss0) / max(1, count)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        out.close()


def settle(pid, seconds):
    """Waits until the RSS stops moving (two reads a second apart within 1%), at most `seconds`."""
    end = time.monotonic() + seconds
    last = rss_kib(pid)
    time.sleep(min(3, seconds))
    while time.monotonic() < end:
        time.sleep(1)
        now = rss_kib(pid)
        if abs(now - last) <= max(64, last // 100):
            return now
        last = now
    return rss_kib(pid)


def run(binary, game, rooms, settle_seconds, sweep_wait):
    work = tempfile.mkdtemp(prefix="dicehost-idle-rooms.")
    os.mkdir(os.path.join(work, "logs"))
    port = free_port()
    out = open(os.path.join(work, "server.out"), "w")
    # With --logs, the room store is a fresh rooms.sqlite there (as a served room has by default).
    server = subprocess.Popen([binary, "serve", "rules", "--host", "127.0.0.1", "--port", str(port),
                               "--logs", os.path.join(work, "logs")],
                              stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        rss0 = settle(server.pid, settle_seconds)
        anon0 = anonymous_kib(server.pid)
        started = time.monotonic()
        inputs, failures = asyncio.run(make_rooms("ws://127.0.0.1:%d/ws" % port, game, rooms))
        made_in = time.monotonic() - started
        done = time.monotonic()
        rss1 = settle(server.pid, settle_seconds)
        anon1 = anonymous_kib(server.pid)
        # The server's sweep (every 30 s) gives freed memory back to the system: read again after one.
        if sweep_wait > 0:
            time.sleep(max(0, done + sweep_wait - time.monotonic()))
        rss2, anon2 = rss_kib(server.pid), anonymous_kib(server.pid)
        return {"game": game, "rooms": rooms, "inputs": inputs, "failures": failures, "seconds": made_in,
                "rss0": rss0, "rss1": rss1, "rss2": rss2, "anon0": anon0, "anon1": anon1, "anon2": anon2, "work": work}
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()  # a server busy closing thousands of rooms may take long to stop
            server.wait()
        out.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--games", default="snap,liars-dice")
    parser.add_argument("--settle", type=float, default=15, help="the most seconds to wait for the RSS to settle")
    parser.add_argument("--sweep-wait", type=float, default=35,
                        help="read the RSS again this many seconds after the rooms were made (past the server's 30 s sweep); 0: not")
    parser.add_argument("--connections", type=int, default=0,
                        help="first measure what this many closed connections leave (hello, then close); 0: not")
    args = parser.parse_args()
    failed = False
    if args.connections > 0:
        print("closed connections: %.2f KiB of RSS each (%d said hello and left)" % (
            closed_connections(args.binary, args.connections, args.settle), args.connections))
    for game in args.games.split(","):
        r = run(args.binary, game, args.rooms, args.settle, args.sweep_wait)
        per_room = (r["rss1"] - r["rss0"]) / max(1, args.rooms)
        per_room_anon = (r["anon1"] - r["anon0"]) / max(1, args.rooms)
        print("%s: %d rooms made in %.1f s (%d inputs played); RSS %d MiB with no room, %d MiB with %d idle rooms: "
              "%.0f KiB a room (private memory %.0f KiB a room)" % (
                  game, args.rooms, r["seconds"], r["inputs"], r["rss0"] // 1024, r["rss1"] // 1024, args.rooms,
                  per_room, per_room_anon))
        if args.sweep_wait > 0:
            print("  %.0f s after: RSS %d MiB, %.0f KiB a room (private memory %.0f KiB a room)" % (
                args.sweep_wait, r["rss2"] // 1024, (r["rss2"] - r["rss0"]) / max(1, args.rooms),
                (r["anon2"] - r["anon0"]) / max(1, args.rooms)))
        if r["failures"]:
            failed = True
            print("  %d rooms failed, e.g. %r" % (len(r["failures"]), r["failures"][0]))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
