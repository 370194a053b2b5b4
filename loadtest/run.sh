#!/usr/bin/env bash
# `make loadtest`: 200 rooms x 4 bot clients against one `dicehost serve` for a minute
# (Snap, then Liar's Dice with per-seat views and secrecy checks), then against two server processes behind Debian's nginx routing rooms by consistent
# hashing of the room id (docs/scaling.md). Prints messages/s, latency, server memory,
# and checks every client's events against its room's log.
#   LOADTEST_ROOMS=200 LOADTEST_SECONDS=60 LOADTEST_NGINX_SECONDS=30 make loadtest
# LOADTEST_GENERATORS=N splits the rooms over N client processes (one Python process
# drives about 1,000 connections); the server's CPU per input is printed for all of them.
# LOADTEST_PHASES="snap liars nginx" picks the parts to run (nginx is installed only for its part).
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${LOADTEST_ROOMS:-200}
seconds=${LOADTEST_SECONDS:-60}
nginx_seconds=${LOADTEST_NGINX_SECONDS:-30}
generators=${LOADTEST_GENERATORS:-1}
phases=${LOADTEST_PHASES:-snap liars nginx}
phase() { case " $phases " in *" $1 "*) return 0;; *) return 1;; esac; }
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv

. loadtest/generate.sh   # prepare_clients, free_port, process_cpu, generate
prepare_clients
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((rooms * 4 + 256)) ]; then
  echo "loadtest: the open-files limit is $(ulimit -n), below the $((rooms * 4 + 256)) that $rooms rooms x 4 clients need (raise ulimit -Hn)" >&2
fi

work=$(mktemp -d /tmp/dicehost-loadtest.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx/nginx.pid" ] && kill "$(cat "$work/nginx/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a server on a free port with its own log folder; sets $port and $pid.
start_server() {
  local logs=$1
  mkdir -p "$logs"
  port=$(free_port)
  "$bin" serve rules --port "$port" --logs "$logs" > "$logs.out" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do grep -q "http://" "$logs.out" 2>/dev/null && return 0; sleep 0.1; done
  echo "loadtest: the server did not start:"; cat "$logs.out"; exit 1
}

# Samples a process's resident memory every second; the peak goes to $1.
watch_memory() {
  local pid=$1 out=$2 peak=0
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss && echo "$peak" > "$out"
    sleep 1
  done
}

if phase snap; then
  echo "== one server: $rooms rooms x 4 clients, ${seconds}s"
  start_server "$work/one"
  one_pid=$pid
  watch_memory "$one_pid" "$work/one.rss" & pids+=($!)
  generate "ws://127.0.0.1:$port/ws" "$rooms" "$seconds" one "$one_pid" --logs "$work/one"
  echo "server memory: peak resident $(( $(cat "$work/one.rss") / 1024 )) MiB (after the run: $(( $(awk '/VmRSS/ {print $2}' /proc/$one_pid/status) / 1024 )) MiB)"
  kill "$one_pid"
  wait "$one_pid" 2>/dev/null || true
  replayed=0
  for log in $(ls "$work"/one/room-*.jsonl | head -20); do
    "$bin" replay "$log" > "$work/replay.out" 2>&1 || { echo "loadtest: dicehost replay $log failed:"; tail -5 "$work/replay.out"; exit 1; }
    replayed=$((replayed + 1))
  done
  echo "dicehost replay: $replayed room logs replayed, every event matches ($(tail -1 "$work/replay.out"))"

fi

if phase liars; then
  echo "== one server, Liar's Dice (secret cups: a view per seat per message): $rooms rooms x 4 clients, ${seconds}s"
  start_server "$work/liars"
  liars_pid=$pid
  watch_memory "$liars_pid" "$work/liars.rss" & pids+=($!)
  generate "ws://127.0.0.1:$port/ws" "$rooms" "$seconds" liars "$liars_pid" --logs "$work/liars" --game liars-dice
  echo "server memory: peak resident $(( $(cat "$work/liars.rss") / 1024 )) MiB"
  kill "$liars_pid"
  wait "$liars_pid" 2>/dev/null || true
  for log in $(ls "$work"/liars/room-*.jsonl | head -10); do
    "$bin" replay "$log" > "$work/replay.out" 2>&1 || { echo "loadtest: dicehost replay $log failed:"; tail -5 "$work/replay.out"; exit 1; }
  done
  echo "dicehost replay: 10 Liar's Dice room logs replayed, every event (private ones too) matches"

fi

if phase nginx; then
echo "== two servers behind nginx (hash \$arg_room consistent): $rooms rooms x 4 clients, ${nginx_seconds}s"
start_server "$work/a"; a_port=$port
start_server "$work/b"; b_port=$port
front=$(free_port)
bash loadtest/nginx-front.sh start "$work/nginx" "$front" "$a_port" "$b_port"
"$venv/bin/python" loadtest/client.py --url "ws://127.0.0.1:$front/ws" --rooms "$rooms" --seconds "$nginx_seconds" \
  --logs "$work/a" --logs "$work/b" --prefix two
echo "each room's log is in one process's folder only: the routing kept every room on one process"
fi
