#!/usr/bin/env bash
# `make loadtest-store`: the same Snap load (LOADTEST_ROOMS rooms x 4 bot clients for
# LOADTEST_SECONDS) against one `dicehost serve` with its room store (SQLite, every input
# written before its ack) and then with `--store none` (rooms in memory), and with
# PostgreSQL on loopback when asked: messages/s, latency and the server's CPU per input
# and per message of each, and the store's transactions.
#   LOADTEST_ROOMS=1000 LOADTEST_SECONDS=30 LOADTEST_GENERATORS=2 LOADTEST_STORES="sqlite none postgres" make loadtest-store
# LOADTEST_GENERATORS=N splits the rooms over N client.py processes (one Python process
# drives about 1,000 connections). postgres needs serve --store postgres://… and a
# throwaway server (scripts/throwaway-postgres.sh), which runs with fsync and
# synchronous_commit on here (the throwaway default is off), so a commit is on disk as with SQLite.
set -euo pipefail
cd "$(dirname "$0")/.."
rooms=${LOADTEST_ROOMS:-200}
seconds=${LOADTEST_SECONDS:-30}
generators=${LOADTEST_GENERATORS:-1}
stores=${LOADTEST_STORES:-sqlite none}
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv

. loadtest/generate.sh   # prepare_clients, free_port, process_cpu, generate
prepare_clients
work=$(mktemp -d /tmp/dicehost-store-compare.XXXXXX)
pid= pgdir=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  [ -n "$pgdir" ] && bash scripts/throwaway-postgres.sh stop "$pgdir" || true
  rm -rf "$work"
}
trap cleanup EXIT

run=0 failed=
for store in $stores; do
  # A store may come more than once (interleaved runs: LOADTEST_STORES="sqlite none sqlite none").
  run=$((run + 1)); tag="$store$run"
  logs="$work/$tag"
  mkdir -p "$logs"
  port=$(free_port)
  case "$store" in
  none) extra=(--store none) ;;
  sqlite) extra=(--store "$logs/rooms.sqlite") ;;
  postgres)
    bash scripts/ensure-postgres.sh   # Debian's postgresql, installed as root when missing
    pgdir=$(mktemp -d /tmp/dicehost-store-pg.XXXXXX)
    url=$(bash scripts/throwaway-postgres.sh start "$pgdir")
    psql "$url" -X -q -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" -c "SELECT pg_reload_conf()" >/dev/null
    extra=(--store "$url") ;;
  *) echo "loadtest: LOADTEST_STORES takes sqlite, none and postgres, not $store" >&2; exit 2 ;;
  esac
  "$bin" serve rules --port "$port" --logs "$logs" "${extra[@]}" > "$logs.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q "http://" "$logs.out" 2>/dev/null && break; sleep 0.1; done
  grep -q "http://" "$logs.out" || { echo "loadtest: the server did not start:"; cat "$logs.out"; exit 1; }
  echo "== store: $store, $rooms rooms x 4 clients, ${seconds}s, $generators generator(s); load average $(cut -d' ' -f1 /proc/loadavg)"
  cpu_before=$(process_cpu "$pid")
  generate "ws://127.0.0.1:$port/ws" "$rooms" "$seconds" "$tag" "$pid" --logs "$logs" || failed="$failed $tag"
  cpu_after=$(process_cpu "$pid")
  # Every input the rooms applied, the rules' timers (`tick`) included: the room logs' lines
  # after each header. An overloaded server answers few of the clients' inputs while its
  # timers go on, so CPU per input answered alone would mislead.
  processed=$(cat "$logs"/room-*.jsonl 2>/dev/null | grep -vc '"dicehost_log"' || true)
  python3 -c 'import sys; cpu, n = float(sys.argv[2]) - float(sys.argv[1]), int(sys.argv[3]); print("server CPU per input applied (room logs, timer ticks included): %.0f us (%d inputs, %.1f s)" % (1e6 * cpu / max(1, n), n, cpu))' "$cpu_before" "$cpu_after" "$processed"
  echo "load average after: $(cut -d' ' -f1 /proc/loadavg)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  case "$store" in
  sqlite)
    echo "store: $(du -k "$logs/rooms.sqlite" | cut -f1) KiB, $(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from inputs').fetchone()[0], 'inputs in', c.execute('select count(*) from rooms').fetchone()[0], 'rooms')" "$logs/rooms.sqlite")" ;;
  postgres)
    echo "store: $(psql "$url" -X -q -A -t -c "select count(*) || ' inputs in ' || (select count(*) from rooms) || ' rooms' from inputs")"
    bash scripts/throwaway-postgres.sh stop "$pgdir"; pgdir= ;;
  esac
done
# Every run is made (interleaved runs are compared), then a run with problems fails the script.
if [ -n "${failed:-}" ]; then echo "loadtest: these runs had problems (above):$failed"; exit 1; fi
