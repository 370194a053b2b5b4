#!/usr/bin/env bash
# bench/ws-floor/syscalls.sh MODE ROOMS SECONDS: the kernel floor. One `ws-floor --mode MODE`
# with client.py's rooms for SECONDS (at least 20); 5 s in, `strace -c -f` counts the server's
# system calls for 10 s; prints them per input answered (the client's inputs per second times
# the 10 s traced). MODE dicehost: DICEHOST_BIN serve rules with loadtest/client.py's Snap rooms.
# strace slows the server: compare calls, not times.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=$1 rooms=$2 seconds=$3
work=$(mktemp -d /tmp/ws-floor-syscalls.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
if [ "$mode" = dicehost ]; then
  mkdir -p "$work/logs"
  "${DICEHOST_BIN:-.build/release/dicehost}" serve rules --host 127.0.0.1 --port "$port" --logs "$work/logs" > "$work/server.out" 2>&1 &
else
  swift build -c release --package-path bench/ws-floor > /dev/null
  "$(swift build -c release --package-path bench/ws-floor --show-bin-path)/ws-floor" --mode "$mode" --port "$port" > "$work/server.out" 2>&1 &
fi
pid=$!
for _ in $(seq 300); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
if [ "$mode" = dicehost ]; then
  .build-venv/bin/python loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --logs "$work/logs" \
    --prefix p --game snap > "$work/client.out" 2>&1 &
else
  .build-venv/bin/python bench/ws-floor/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" \
    --server-pid "$pid" --label "$mode" > "$work/client.out" 2>&1 &
fi
client=$!
sleep 5
timeout 10 strace -c -f -p "$pid" -o "$work/strace.out" 2> /dev/null || true
wait "$client" || true
kill "$pid"; wait "$pid" 2>/dev/null || true
echo "$work"
# Inputs per second: ws-floor's client prints them; loadtest/client.py's answered inputs over its run.
rate=$(python3 - "$work/client.out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
floor = re.search(r"rooms: .*?, ([\d.]+) s after the joins; inputs answered: (\d+)", text)
dicehost = re.search(r"rooms: .*?clients, ([\d.]+) s", text), re.search(r"inputs answered with a broadcast: (\d+)", text)
seconds, inputs = (floor.groups() if floor else (dicehost[0].group(1), dicehost[1].group(1)))
print("%.1f" % (int(inputs) / float(seconds)))
PY
)
echo "inputs answered: $rate/s; system calls in the 10 s traced, per input:"
awk -v inputs="$(echo "$rate * 10" | bc -l)" '
  $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" { name = $NF; calls = $4; printf "  %-16s %8d calls  %6.2f per input\n", name, calls, calls / inputs; total += calls }
  END { printf "  %-16s %8d calls  %6.2f per input\n", "total", total, total / inputs }' "$work/strace.out"
