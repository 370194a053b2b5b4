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
# A store of its own for each run (rooms.sqlite in a fresh --logs folder): with the default
# (dicehost-rooms.sqlite here) a run reopened every earlier run's rooms, and a run right
# after another found the store still locked by the server that was stopping.
logs=$(mktemp -d)
"$bin" serve loadtest/abuse --port "$port" --logs "$logs" > "$out" 2>&1 &
pid=$!
stop_server() {
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -rf "$out" "$logs"
}
trap stop_server EXIT
for _ in $(seq 100); do grep -q "http://" "$out" 2>/dev/null && break; sleep 0.1; done
status=0
"$venv/bin/python" loadtest/abuse.py --url "ws://127.0.0.1:$port/ws" --pid "$pid" \
  --seconds "${ABUSE_SECONDS:-12}" --abusers "${ABUSE_ROOMS:-0,2,4}" || status=$?
if [ "$status" -ne 0 ]; then
  # Say why: the server's own words (it may have stopped), not only the client's traceback.
  if kill -0 "$pid" 2>/dev/null; then echo "abuse: the server (pid $pid) is still running; its output:" >&2
  else wait "$pid" 2>/dev/null && code=0 || code=$?; echo "abuse: the server (pid $pid) stopped (exit status $code); its output:" >&2; fi
  tail -n 40 "$out" >&2
fi
exit "$status"
