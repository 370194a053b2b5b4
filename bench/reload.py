#!/usr/bin/env python3
"""Hot-reload latency: from saving a rule script to `dicehost play --watch` announcing
the new rules (which are active from that moment). Median of 15 saves."""
import os, random, select, statistics, subprocess, tempfile, time

RULES = """local r = rules {{ name = "Counter {n}", players = 1, dice = "1d6" }}
function r.setup(g) g.state.count = 0 end
function r.roll(g, p, roll) g.state.count = g.state.count + {n} end
return r
"""

def read_until(proc, text, deadline):
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.01)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            buffer += chunk
            if text.encode() in buffer:
                return True
    return False

with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "counter.lua")
    with open(path, "w") as f:
        f.write(RULES.format(n=0))
    proc = subprocess.Popen([".build/release/dicehost", "play", path, "--watch", "--seed", "1", "--players", "Ann"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert read_until(proc, "watching", time.monotonic() + 10)
    latencies = []
    for n in range(1, 16):
        time.sleep(random.uniform(0.01, 0.25))  # saves land anywhere in the 100 ms poll cycle
        started = time.monotonic()
        with open(path + ".tmp", "w") as f:
            f.write(RULES.format(n=n))
        os.replace(path + ".tmp", path)  # how editors save
        assert read_until(proc, f"reload Counter {n}", started + 5), f"save {n} not picked up"
        latencies.append((time.monotonic() - started) * 1000)
    proc.stdin.close()
    proc.wait()
print(f"save → new rules active: median {statistics.median(latencies):.0f} ms, max {max(latencies):.0f} ms "
      f"over {len(latencies)} saves (target: within 200 ms)")
