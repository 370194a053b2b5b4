#!/usr/bin/env bash
# bench/ws-floor/run.sh ROOMS SECONDS: the floor under a served input (issue 32). Builds
# ws-floor in release, then, ROUNDS times (default 3), interleaved: each mode of ws-floor on a
# free loopback port with bench/ws-floor/client.py's rooms of four for SECONDS, and DiceHost's
# own release `serve rules` with loadtest/client.py's Snap rooms (the same rooms and pace).
# Prints per mode the medians: server CPU per input answered, user and system apart, and the
# latency input -> last frame (DiceHost: input -> its broadcast, as loadtest/client.py times it).
# ws-floor's CPU is sampled after every connection joined; DiceHost's is the difference of a
# SHORT_SECONDS run (default 5) and a SECONDS run, so start-up and joins cancel out.
# DICEHOST_BIN: the dicehost to compare (default .build/release/dicehost; none: skipped).
# MODES: which to run (default "hummingbird nio hummingbird-eventloop dicehost"). DiceHost's
# modes: dicehost (Snap, the SQLite store in the run's log folder, as `serve` defaults),
# dicehost-nostore (Snap, --store none), liars (Liar's Dice rooms of loadtest/client.py
# --game liars-dice, SQLite) and liars-nostore. Each result line carries the load average.
# Needs .build-venv with websockets (loadtest/run.sh makes it). See bench/ws-floor/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
rooms=${1:-50} seconds=${2:-20}
rounds=${ROUNDS:-3} short=${SHORT_SECONDS:-5}
modes=${MODES:-hummingbird nio hummingbird-eventloop dicehost}
dicehost=${DICEHOST_BIN:-.build/release/dicehost}
# Modes named base-MODE (base-dicehost, base-liars-nostore, ...) run DICEHOST_BASE_BIN, an
# earlier build, in the same rounds: before and after side by side on the same load.
base=${DICEHOST_BASE_BIN:-}
py=.build-venv/bin/python
[ -x "$py" ] || { echo "run.sh: $py not found; make it with: python3 -m venv .build-venv && .build-venv/bin/pip install websockets" >&2; exit 2; }
# WS_FLOOR_BIN: a ws-floor already built (skips the build and its planning, minutes on a loaded machine).
if [ -n "${WS_FLOOR_BIN:-}" ]; then
  floor=$WS_FLOOR_BIN
else
  swift build -c release --package-path bench/ws-floor
  floor="$(swift build -c release --package-path bench/ws-floor --show-bin-path)/ws-floor"
fi
work=$(mktemp -d /tmp/ws-floor.XXXXXX)
tick=$(getconf CLK_TCK)
echo "work: $work; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# user and system clock ticks of a process (the fields after the command name's parenthesis).
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12, $13}'; }
wait_listening() {
  for _ in $(seq 300); do grep -q "http://" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "run.sh: the server did not start; see $1" >&2; return 1
}

floor_run() { # MODE ROUND
  local mode=$1 round=$2 port pid load
  load=$(cut -d' ' -f1 /proc/loadavg)
  port=$(free_port)
  "$floor" --mode "$mode" --port "$port" > "$work/$mode-$round.server" 2>&1 &
  pid=$!
  wait_listening "$work/$mode-$round.server"
  "$py" bench/ws-floor/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --server-pid "$pid" \
    --label "$mode" > "$work/$mode-$round.client" 2>&1 || echo "run.sh: $mode round $round reported problems: $work/$mode-$round.client" >&2
  kill "$pid"; wait "$pid" 2>/dev/null || true
  grep '^RESULT' "$work/$mode-$round.client" | sed "s/\$/ load=$load/" >> "$work/results" || true
}

dicehost_once() { # SECONDS NAME GAME STORE BIN: prints "inputs user_ticks system_ticks p50_ms p99_ms checked clients"
  local secs=$1 name=$2 game=$3 store=$4 bin=$5 port pid before after extra=()
  mkdir -p "$work/$name-logs"
  port=$(free_port)
  [ "$store" = none ] && extra=(--store none)
  "$bin" serve rules --host 127.0.0.1 --port "$port" --logs "$work/$name-logs" "${extra[@]}" > "$work/$name.server" 2>&1 &
  pid=$!
  wait_listening "$work/$name.server"
  before=$(ticks "$pid")
  "$py" loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$secs" --logs "$work/$name-logs" \
    --prefix p --game "$game" > "$work/$name.client" 2>&1 || true
  # A short run's clients see fewer than the 10 events loadtest/client.py asks of a run: not a problem.
  if grep -A30 '^PROBLEMS' "$work/$name.client" | grep -v '^PROBLEMS' | grep -qv 'saw only'; then
    echo "run.sh: $name reported problems: $work/$name.client" >&2
  fi
  after=$(ticks "$pid")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  awk -v b="$before" -v a="$after" '
    /^inputs answered/ { sub(";", "", $6); inputs = $6 }
    /^latency input -> broadcast/ { p50 = $6; p99 = $9 }
    /^clients checked against the room logs/ { checked = $7; clients = $9 }
    END { split(b, x, " "); split(a, y, " "); print inputs, y[1] - x[1], y[2] - x[2], p50, p99, checked + 0, clients + 0 }' "$work/$name.client"
}

dicehost_run() { # MODE ROUND
  local mode=$1 round=$2 game=snap store=sqlite s l load bin=$dicehost
  case "$mode" in base-*) bin=$base ;; esac
  case "$mode" in liars*|base-liars*) game=liars-dice ;; esac
  case "$mode" in *-nostore) store=none ;; esac
  load=$(cut -d' ' -f1 /proc/loadavg)
  s=$(dicehost_once "$short" "$mode-short-$round" "$game" "$store" "$bin")
  l=$(dicehost_once "$seconds" "$mode-long-$round" "$game" "$store" "$bin")
  # The long run's clients are checked against its room logs (loadtest/client.py); a client
  # not equal to its room's log is one of its PROBLEMS, reported above.
  echo "$s $l" | awk -v tick="$tick" -v mode="$mode" -v load="$load" '{
    n = $8 - $1; if (n < 1) n = 1
    printf "RESULT %s inputs=%d user_us=%.1f sys_us=%.1f p50_ms=%s p99_ms=%s checked=%d clients=%d load=%s long_inputs=%d\n", mode, n,
      1e6 * ($9 - $2) / tick / n, 1e6 * ($10 - $3) / tick / n, $11, $12, $13, $14, load, $8 }' >> "$work/results"
}

for round in $(seq "$rounds"); do
  for mode in $modes; do
    if [ "$mode" != "${mode#base-}" ]; then
      if [ -n "$base" ] && [ -x "$base" ]; then dicehost_run "$mode" "$round"; else echo "run.sh: $mode needs DICEHOST_BASE_BIN (an earlier build's dicehost); skipped" >&2; fi
    elif [ "$mode" != "${mode#dicehost}" ] || [ "$mode" != "${mode#liars}" ]; then
      if [ -x "$dicehost" ]; then dicehost_run "$mode" "$round"; else echo "run.sh: $dicehost not built; DiceHost skipped (DICEHOST_BIN=...)" >&2; fi
    else
      floor_run "$mode" "$round"
    fi
  done
  echo "round $round done; load average $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" "$rooms" "$seconds" "$rounds" <<'PY'
import statistics, sys
path, rooms, seconds, rounds = sys.argv[1:]
runs = {}
for line in open(path):
    fields = line.split()
    values = dict(f.split("=") for f in fields[2:])
    runs.setdefault(fields[1], []).append({k: float(v) for k, v in values.items()})
print("%s rooms x 4, %s s, medians of %s rounds (per input answered; server CPU from /proc):" % (rooms, seconds, rounds))
print("%-22s %8s %8s %8s %9s %9s %9s %6s  %s" % ("mode", "CPU us", "user us", "sys us", "inputs", "p50 ms", "p99 ms", "load", "rounds' CPU us; clients equal to their room log"))
for mode, rs in runs.items():
    med = lambda k: statistics.median(r[k] for r in rs)
    totals = [r["user_us"] + r["sys_us"] for r in rs]
    checked = ", ".join("%d of %d" % (r["checked"], r["clients"]) for r in rs if "checked" in r)
    print("%-22s %8.0f %8.0f %8.0f %9.0f %9.2f %9.2f %6.2f  %s%s" % (mode, statistics.median(totals), med("user_us"), med("sys_us"),
          med("inputs"), med("p50_ms"), med("p99_ms"), med("load") if all("load" in r for r in rs) else float("nan"),
          " ".join("%.0f" % t for t in totals), "; " + checked if checked else ""))
PY
