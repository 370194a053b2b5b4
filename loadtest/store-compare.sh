#!/usr/bin/env bash
# `make loadtest-store`: the same Snap load (LOADTEST_ROOMS rooms x 4 bot clients for
# LOADTEST_SECONDS) against one `dicehost serve` with its room store (SQLite, every input
# written before its ack) and then with `--store none` (rooms in memory): messages/s,
# latency and the server's CPU per message of each, and the store's transactions.
#   LOADTEST_ROOMS=200 LOADTEST_SECONDS=30 make loadtest-store
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${LOADTEST_ROOMS:-200}
seconds=${LOADTEST_SECONDS:-30}
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv

if ! "$venv/bin/python" -c "import websockets" >/dev/null 2>&1; then
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "websockets>=12,<16"
fi
ulimit -n 65536 2>/dev/null || ulimit -n 4096 2>/dev/null || true
work=$(mktemp -d /tmp/dicehost-store-compare.XXXXXX)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for store in sqlite none; do
  logs="$work/$store"
  mkdir -p "$logs"
  port=$(free_port)
  if [ "$store" = none ]; then extra=(--store none); else extra=(--store "$logs/rooms.sqlite"); fi
  "$bin" serve rules --port "$port" --logs "$logs" "${extra[@]}" > "$logs.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "http://" "$logs.out" 2>/dev/null && break; sleep 0.1; done
  grep -q "http://" "$logs.out" || { echo "loadtest: the server did not start:"; cat "$logs.out"; exit 1; }
  echo "== store: $store, $rooms rooms x 4 clients, ${seconds}s"
  "$venv/bin/python" loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --logs "$logs" \
    --prefix "$store" --server-pid "$pid"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  if [ "$store" = sqlite ]; then
    echo "store: $(du -k "$logs/rooms.sqlite" | cut -f1) KiB, $(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from inputs').fetchone()[0], 'inputs in', c.execute('select count(*) from rooms').fetchone()[0], 'rooms')" "$logs/rooms.sqlite")"
  fi
done
