#!/usr/bin/env bash
# bench/ws-floor/instructions.sh MODE ROOMS SECONDS: one `ws-floor --mode MODE` under valgrind's
# callgrind with client.py's rooms for SECONDS; prints the server's instructions (user space:
# no kernel, no waits; the same count on a loaded machine) and the inputs answered. Run it at
# two lengths and divide the difference of instructions by the difference of inputs (start-up
# and joins cancel out; the inputs as the frames received over four, answers after the client's
# window included), as loadtest/instructions.sh does for dicehost. Under valgrind the
# server's threads take turns on one core: keep ROOMS small (10) so that it keeps up.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=$1 rooms=$2 seconds=$3
swift build -c release --package-path bench/ws-floor > /dev/null
floor="$(swift build -c release --package-path bench/ws-floor --show-bin-path)/ws-floor"
work=$(mktemp -d /tmp/ws-floor-instructions.XXXXXX)
# callgrind 3.19 cannot read the DWARF 5 Swift writes: a stripped copy.
cp "$floor" "$work/ws-floor"; strip -g "$work/ws-floor"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
  "$work/ws-floor" --mode "$mode" --port "$port" > "$work/server.out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
.build-venv/bin/python bench/ws-floor/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" \
  --server-pid "$pid" --label "$mode" > "$work/client.out" 2>&1 || true
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
echo "$work"
echo "instructions: $(awk '/^(summary|totals):/ {print $2; exit}' "$work/callgrind.out")"
grep -E "^rooms|PROBLEMS" "$work/client.out"
