#!/usr/bin/env bash
# loadtest/instructions.sh BIN ROOMS SECONDS: one `BIN serve rules` under valgrind's
# callgrind, loadtest/client.py's rooms against it for SECONDS; prints the server's
# instructions (user space: no kernel, no waits) and the inputs it answered. Run it with two
# lengths and take the difference per input (start-up, joins and set-ups cancel out); see
# bench/README.md. callgrind 3.19 cannot read the DWARF 5 Swift writes: BIN is copied and
# `strip -g`ed first. The server is BIN's dicehost-server beside it, run under callgrind itself
# (`dicehost serve` execs it, and callgrind does not follow an exec). PROFILE_GAME=liars-dice
# plays Liar's Dice; PROFILE_PROTOCOL=1 version 1; PROFILE_STORE=none serves with --store none.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 rooms=$2 seconds=$3
work=$(mktemp -d /tmp/dicehost-instructions.XXXXXX); mkdir -p "$work/logs"
server=$(dirname "$bin")/dicehost-server
[ -x "$server" ] || { echo "instructions.sh: $server is not built (swift build -c release --product dicehost-server)" >&2; exit 2; }
cp "$server" "$work/dicehost-server"; strip -g "$work/dicehost-server"
store=(); [ -n "${PROFILE_STORE:-}" ] && store=(--store "$PROFILE_STORE")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
  "$work/dicehost-server" rules "${store[@]}" --host 127.0.0.1 --port "$port" --logs "$work/logs" > "$work/server.out" 2>&1 &
pid=$!
for _ in $(seq 600); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
.build-venv/bin/python loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --logs "$work/logs" --prefix i \
  --game "${PROFILE_GAME:-snap}" --protocol "${PROFILE_PROTOCOL:-2}" > "$work/client.out" 2>&1 || true
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
echo "$work"
echo "instructions: $(awk '/^(summary|totals):/ {print $2; exit}' "$work/callgrind.out")"
grep -E "inputs answered|checked" "$work/client.out"
