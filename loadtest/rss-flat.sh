#!/usr/bin/env bash
# `make loadtest-rss`: does the server's memory stay flat under a long steady load?
# ROOMS rooms x 4 bot clients (Snap) against one release `dicehost serve` for SECONDS,
# the server's resident memory sampled every 10 s; prints the samples, the growth after
# the warm-up (a least-squares slope over the run after its first 2 minutes, and over its
# second half) and the clients' usual report (latency, every client checked against its room log).
#   RSS_ROOMS=1000 RSS_SECONDS=600 RSS_THINK=4 RSS_GENERATORS=2 RSS_GAME=snap make loadtest-rss
# RSS_THINK scales the bots' thinking (loadtest/client.py --think): a 2-core machine that
# also runs the generators cannot carry 1,000 rooms at a person's full pace (about 1,700
# inputs a second); at 4 the rooms make about 425 inputs a second.
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${RSS_ROOMS:-1000}
seconds=${RSS_SECONDS:-600}
think=${RSS_THINK:-4}
generators=${RSS_GENERATORS:-2}
game=${RSS_GAME:-snap}
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv

. loadtest/generate.sh   # prepare_clients, free_port, process_cpu, generate
prepare_clients
work=$(mktemp -d /tmp/dicehost-rss.XXXXXX)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

mkdir -p "$work/logs"
port=$(free_port)
"$bin" serve rules --port "$port" --logs "$work/logs" > "$work/server.out" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
grep -q "http://" "$work/server.out" || { echo "loadtest-rss: the server did not start:"; cat "$work/server.out"; exit 1; }

# One sample every 10 s: seconds since the start, VmRSS in KiB.
(start=$(date +%s); while kill -0 "$server" 2>/dev/null; do
   echo "$(( $(date +%s) - start )) $(awk '/VmRSS/ {print $2}' "/proc/$server/status" 2>/dev/null || echo 0)"
   sleep 10
 done) > "$work/rss.samples" &
sampler=$!

echo "== $rooms rooms x 4 clients ($game), ${seconds}s, bots thinking ${think}x as long, $generators generator(s)"
status=0
generate "ws://127.0.0.1:$port/ws" "$rooms" "$seconds" rss "$server" --game "$game" --think "$think" --logs "$work/logs" || status=1
kill "$sampler" 2>/dev/null || true
python3 loadtest/rss_trend.py "$work/rss.samples" 120 "$rooms" "$seconds" || status=1
exit $status
