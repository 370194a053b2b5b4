#!/usr/bin/env bash
# bench/rss-over-time.sh BIN ROOMS SECONDS [GENERATORS]: one `BIN serve rules` on a free
# loopback port, loadtest/client.py's Snap rooms (4 players at a person's pace) against it
# for SECONDS from GENERATORS processes (default 2), and the server's RSS and the load
# average sampled every 30 s (RSS_EVERY) into WORK/rss.tsv. Prints the series, the first and
# last sample and the slope of a line fitted to the samples after the first minute (the
# rooms are all made by then), in MiB per minute: flat is near 0. See bench/README.md.
# Needs .build-venv with websockets (loadtest/run.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 rooms=$2 seconds=$3 generators=${4:-2} every=${RSS_EVERY:-30}
work=$(mktemp -d /tmp/dicehost-rss.XXXXXX); mkdir -p "$work/logs"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve rules --host 127.0.0.1 --port "$port" --logs "$work/logs" > "$work/server.out" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 200); do python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),1)" 2>/dev/null && break; sleep 0.1; done
gpids=()
for g in $(seq "$generators"); do
  share=$(( rooms / generators + (g <= rooms % generators ? 1 : 0) ))
  .build-venv/bin/python loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$share" --seconds "$seconds" \
    --logs "$work/logs" --prefix "r${g}x" --seed "$g" --server-pid "$pid" > "$work/client$g.out" 2>&1 &
  gpids+=($!)
done
start=$(date +%s)
printf "seconds\trss_mib\tload1\n" > "$work/rss.tsv"
while :; do
  now=$(( $(date +%s) - start ))
  rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status")
  printf "%d\t%s\t%s\n" "$now" "$rss" "$(cut -d' ' -f1 /proc/loadavg)" >> "$work/rss.tsv"
  [ "$now" -ge "$seconds" ] && break
  sleep "$every"
done
for p in "${gpids[@]}"; do wait "$p" || true; done
echo "$work"
for g in $(seq "$generators"); do grep -iE "rooms:|inputs answered|latency|server CPU|checked|PROBLEMS" "$work/client$g.out" || true; done
python3 - "$work/rss.tsv" <<'PY'
import sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().split("\n")[1:] if line]
t = [float(r[0]) for r in rows]; m = [float(r[1]) for r in rows]
print("RSS (MiB) every sample: " + " ".join("%.0f" % x for x in m))
print("load average (1 min): " + " ".join(r[2] for r in rows))
pts = [(a, b) for a, b in zip(t, m) if a >= 60]
if len(pts) >= 2:
    n = len(pts); mt = sum(a for a, _ in pts) / n; mm = sum(b for _, b in pts) / n
    slope = sum((a - mt) * (b - mm) for a, b in pts) / max(1e-9, sum((a - mt) ** 2 for a, _ in pts))
    print("first %.0f MiB, after 60 s %.0f MiB, last %.0f MiB; slope after the first minute %.2f MiB a minute" % (m[0], pts[0][1], m[-1], slope * 60))
PY
