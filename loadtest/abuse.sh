#!/usr/bin/env bash
# `make loadtest-abuse`: a healthy room and a ping against 0, 2 and 4 abusive rooms
# (loadtest/abuse.py), on a release build of `dicehost serve loadtest/abuse`.
#   ABUSE_SECONDS=12 ABUSE_ROOMS=0,2,4 make loadtest-abuse
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv
if ! "$venv/bin/python" -c "import websockets" >/dev/null 2>&1; then
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "websockets>=12,<16"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=$(mktemp)
"$bin" serve loadtest/abuse --port "$port" > "$out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do grep -q "http://" "$out" 2>/dev/null && break; sleep 0.1; done
"$venv/bin/python" loadtest/abuse.py --url "ws://127.0.0.1:$port/ws" --pid "$pid" \
  --seconds "${ABUSE_SECONDS:-12}" --abusers "${ABUSE_ROOMS:-0,2,4}"
