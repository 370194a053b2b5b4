#!/usr/bin/env bash
# loadtest/syscalls.sh BIN ROOMS SECONDS: one `BIN serve rules` on a free loopback port,
# loadtest/client.py's Snap rooms against it for SECONDS, the server traced by `strace -f`
# the whole time (attached before the first client connects). Prints, per input answered
# and by thread name (/proc/PID/task/*/comm, sampled every half second): the system calls
# (futex, epoll_wait, write, read, writev, pwrite64, fsync, ...) and the context switches
# (voluntary: the thread waited; involuntary: it was preempted) from /proc/PID/task/*/status.
# Also the server's user and system CPU per input (/proc/PID/stat). Joins and game set-ups count too: run it at two lengths and take the difference per input
# for the marginal figures. strace's own stops slow the server (and add switches):
# SYSCALLS_STRACE=0 counts only the context switches, untraced. SYSCALLS_STORE=none serves
# without a room store (the store's share, by difference). CPU is also split by thread
# (user/system from /proc/PID/task/*/stat, clock ticks: coarse). PROFILE_GAME=liars-dice
# plays Liar's Dice. Needs .build-venv with websockets (loadtest/run.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1 rooms=$2 seconds=$3
work=$(mktemp -d /tmp/dicehost-syscalls.XXXXXX); mkdir -p "$work/logs"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve rules --host 127.0.0.1 --port "$port" --logs "$work/logs" ${SYSCALLS_STORE:+--store "$SYSCALLS_STORE"} > "$work/server.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "http://" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
# Every thread's name, context switches and CPU ticks:
# `TID SWEEP VOLUNTARY INVOLUNTARY UTIME STIME NAME` lines.
snapshot() {
  for task in /proc/"$pid"/task/*; do
    printf '%s %s %s %s %s %s\n' "${task##*/}" "$1" \
      "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$task/status" 2>/dev/null)" \
      "$(awk '/^nonvoluntary_ctxt_switches/ {print $2}' "$task/status" 2>/dev/null)" \
      "$(awk '{ split($0, a, ") "); split(a[2], f, " "); print f[12], f[13] }' "$task/stat" 2>/dev/null)" \
      "$(cat "$task/comm" 2>/dev/null)"
  done >> "$work/threads.txt" 2>/dev/null || true
}
snapshot start
# User and system CPU seconds of the server (/proc/PID/stat, clock ticks).
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ split($0, a, ") "); split(a[2], f, " "); printf "%.2f %.2f", f[12] / hz, f[13] / hz }' "/proc/$pid/stat"; }
cpu_start=$(cpu)
tracer=
if [ "${SYSCALLS_STRACE:-1}" != 0 ]; then
  strace -f -qq -o "$work/strace.out" -p "$pid" &
  tracer=$!
  sleep 1 # strace attaches to every thread before the clients come
fi
( while kill -0 "$pid" 2>/dev/null; do snapshot run; sleep 0.5; done ) &
sampler=$!
.build-venv/bin/python loadtest/client.py --url "ws://127.0.0.1:$port/ws" --rooms "$rooms" --seconds "$seconds" --logs "$work/logs" --prefix s \
  --server-pid "$pid" --game "${PROFILE_GAME:-snap}" > "$work/client.out" 2>&1 || true
snapshot end
cpu_end=$(cpu)
[ -n "$tracer" ] && { kill -INT "$tracer" 2>/dev/null || true; wait "$tracer" 2>/dev/null || true; }
kill "$pid"; wait "$pid" 2>/dev/null || true
kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
echo "$work"
grep -E "inputs answered|server CPU|problem|checked" "$work/client.out" || true
inputs=$(awk '/inputs answered with a broadcast:/ {sub(";", "", $6); print $6}' "$work/client.out")
.build-venv/bin/python loadtest/syscalls.py --threads "$work/threads.txt" --inputs "${inputs:-0}" \
  --cpu "$cpu_start $cpu_end" ${tracer:+--strace "$work/strace.out"}
