#!/usr/bin/env bash
# loadtest/profile.sh BIN ROOMS SECONDS [perf]: one `BIN serve rules` on a free loopback
# port, loadtest/client.py's Snap rooms against it for SECONDS; with `perf`, the server is
# sampled (`perf record -F 1999 -g`) into WORK/perf.data. Prints WORK and the client's
# figures (server CPU per message and per input answered). PROFILE_GAME=liars-dice plays
# Liar's Dice rooms (a view per seat) instead of Snap. PROFILE_PROTOCOL=1 says hello with
# protocol version 1 (a server from before version 2 refuses 2).
# Needs .build-venv with websockets (loadtest/run.sh makes it). See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 rooms=$2 seconds=$3 mode=${4:-}
work=$(mktemp -d /tmp/dicehost-profile.XXXXXX); mkdir -p "$work/logs"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve rules --host 127.0.0.1 --port "$port" --logs "$work/logs" > "$work/server.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
rss_start=$(rss)
if [ "$mode" = perf ]; then
  perf record -F 1999 -g -p "$pid" -o "$work/perf.data" -- sleep "$seconds" > "$work/perf.out" 2>&1 &
  perfpid=$!
fi
.build-venv/bin/python loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --logs "$work/logs" --prefix p --server-pid "$pid" \
  --game "${PROFILE_GAME:-snap}" --protocol "${PROFILE_PROTOCOL:-2}" > "$work/client.out" 2>&1 || true
[ "$mode" = perf ] && wait "$perfpid" || true
rss_end=$(rss)
kill "$pid"; wait "$pid" 2>/dev/null || true
echo "$work"
grep -iE "cpu|messages|input|latency|problem|checked" "$work/client.out" | head -14
echo "server RSS: $((rss_start / 1024)) MiB at start, $((rss_end / 1024)) MiB after the run: $(( (rss_end - rss_start) / rooms )) KiB a room (its clients gone, the rooms idle)"
