"""Abusive rooms against a healthy one (`make loadtest-abuse`, see loadtest/README.md).

Against a running `dicehost serve loadtest/abuse`: for each count of abusive rooms
(default 0, 2, 4), that many rooms each send an input that runs to the instruction
budget every ~0.6 s, while a healthy room rolls every 100 ms and a connection in no room
pings every 100 ms. Reports the healthy room's input round trip (send -> ack) and the
ping round trip, p50/p99/max, and the server's CPU per message (from /proc/PID/stat):
with no abusive room, 20 rooms rolling 10 times a second each.

    python loadtest/abuse.py --url ws://127.0.0.1:PORT/ws --pid PID [--seconds 12] [--abusers 0,2,4]
"""
import argparse
import asyncio
import json
import os
import time

import websockets

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def pct(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def hello(url):
    ws = await websockets.connect(url, max_size=1 << 24)
    await ws.send(json.dumps({"type": "hello", "version": 1}))
    while json.loads(await ws.recv())["type"] != "hello":
        pass
    return ws


async def seated(url, name):
    ws = await hello(url)
    await ws.send(json.dumps({"type": "create", "rules": "busy.lua", "seats": 1}))
    room = None
    while room is None:
        m = json.loads(await ws.recv())
        if m["type"] == "created":
            room = m["room"]
    await ws.send(json.dumps({"type": "join", "room": room, "name": name}))
    while json.loads(await ws.recv())["type"] != "joined":
        pass
    return ws


class Counter:
    def __init__(self):
        self.messages = 0


async def abuser(url, index, stop, counter):
    ws = await seated(url, f"abuser{index}")
    seq = 0

    async def reader():
        async for _ in ws:
            counter.messages += 1

    task = asyncio.create_task(reader())
    while not stop.is_set():
        seq += 1
        await ws.send(json.dumps({"type": "action", "seq": seq, "name": "spin"}))
        counter.messages += 1
        try:
            await asyncio.wait_for(stop.wait(), 0.6)
        except asyncio.TimeoutError:
            pass
    task.cancel()
    await ws.close()


async def roller(url, name, stop, counter, rtts, period):
    """Rolls every `period` s; the time from sending to its ack goes to `rtts`."""
    ws = await seated(url, name)
    sent = {}
    seq = 0

    async def reader():
        async for text in ws:
            counter.messages += 1
            m = json.loads(text)
            if m["type"] in ("ack", "error") and m.get("seq") in sent and rtts is not None:
                rtts.append(time.monotonic() - sent.pop(m["seq"]))

    task = asyncio.create_task(reader())
    while not stop.is_set():
        seq += 1
        sent[seq] = time.monotonic()
        await ws.send(json.dumps({"type": "roll", "seq": seq}))
        counter.messages += 1
        try:
            await asyncio.wait_for(stop.wait(), period)
        except asyncio.TimeoutError:
            pass
    await asyncio.sleep(0.5)
    task.cancel()
    await ws.close()


async def pinger(url, stop, counter, rtts):
    ws = await hello(url)
    sent = {}
    n = 0

    async def reader():
        async for text in ws:
            counter.messages += 1
            m = json.loads(text)
            if m["type"] == "pong" and m.get("id") in sent:
                rtts.append(time.monotonic() - sent.pop(m["id"]))

    task = asyncio.create_task(reader())
    while not stop.is_set():
        n += 1
        sent[n] = time.monotonic()
        await ws.send(json.dumps({"type": "ping", "id": n}))
        counter.messages += 1
        try:
            await asyncio.wait_for(stop.wait(), 0.1)
        except asyncio.TimeoutError:
            pass
    await asyncio.sleep(0.5)
    task.cancel()
    await ws.close()


async def phase(url, pid, abusers, seconds):
    stop = asyncio.Event()
    counter = Counter()
    rolls, pings = [], []
    tasks = [asyncio.create_task(abuser(url, i, stop, counter)) for i in range(abusers)]
    await asyncio.sleep(0.3)
    cpu0 = cpu_seconds(pid)
    tasks.append(asyncio.create_task(roller(url, "healthy", stop, counter, rolls, 0.1)))
    tasks.append(asyncio.create_task(pinger(url, stop, counter, pings)))
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    cpu = cpu_seconds(pid) - cpu0
    return rolls, pings, cpu, counter.messages


async def settle(pid, limit=60.0):
    """Waits until the server uses under a tenth of a core (the abusive rooms' queued
    inputs run on after their clients stop), so the throughput phase measures its own
    rooms only. Returns the seconds waited and whether it settled."""
    waited = 0.0
    while waited < limit:
        c0 = cpu_seconds(pid)
        await asyncio.sleep(0.5)
        waited += 0.5
        if cpu_seconds(pid) - c0 < 0.05:
            return waited, True
    return waited, False


async def throughput(url, pid, rooms, seconds):
    stop = asyncio.Event()
    counter = Counter()
    tasks = [asyncio.create_task(roller(url, f"p{i}", stop, counter, None, 0.1)) for i in range(rooms)]
    await asyncio.sleep(1.0)
    cpu0, m0 = cpu_seconds(pid), counter.messages
    await asyncio.sleep(seconds)
    cpu, messages = cpu_seconds(pid) - cpu0, counter.messages - m0
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return cpu, messages


def ms(x):
    return f"{x * 1000:.1f}"


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--abusers", default="0,2,4")
    parser.add_argument("--rooms", type=int, default=20)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}, cores: {os.cpu_count()}")
    print("| abusive rooms | healthy input p50 / p99 / max (ms) | ping p50 / p99 / max (ms) | inputs | pings | server CPU in the phase (s) |")
    print("|---|---|---|---|---|---|")
    for n in [int(x) for x in args.abusers.split(",")]:
        rolls, pings, cpu, _ = await phase(args.url, args.pid, n, args.seconds)
        print(f"| {n} | {ms(pct(rolls, 50))} / {ms(pct(rolls, 99))} / {ms(max(rolls, default=float('nan')))} "
              f"| {ms(pct(pings, 50))} / {ms(pct(pings, 99))} / {ms(max(pings, default=float('nan')))} "
              f"| {len(rolls)} | {len(pings)} | {cpu:.2f} |", flush=True)
        await asyncio.sleep(1)
    waited, settled = await settle(args.pid)
    print(f"\nwaited {waited:.1f} s for the server's CPU to settle after the abusive rooms"
          + ("" if settled else " (it did not: the figure below includes their work)"))
    cpu, messages = await throughput(args.url, args.pid, args.rooms, args.seconds)
    print(f"CPU per message: {args.rooms} rooms rolling 10/s for {args.seconds:.0f} s: {messages} messages (in + out), "
          f"{cpu:.2f} s of server CPU = {cpu / max(messages, 1) * 1e6:.0f} us a message")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


asyncio.run(main())
