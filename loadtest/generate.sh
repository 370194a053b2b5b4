# Shell functions for the load scripts (sourced by loadtest/run.sh, store-compare.sh and
# chaos.sh). They read $work (the run's temp folder), $venv and $generators.

# The clients' Python (websockets in $venv) and open files for every connection: each is
# an open file on both ends, and 10,000 players need far more than the usual 1,024.
prepare_clients() {
  if ! "$venv/bin/python" -c "import websockets" >/dev/null 2>&1; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "websockets>=12,<16"
  fi
  ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# CPU seconds (user + system) a process has used, from /proc/PID/stat.
process_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"; }

# Runs $generators client.py processes against URL, the rooms split between them (each
# its own room prefix), and prints each one's report, then for all of them: inputs
# answered, the server's CPU per input (server PID given) and the latency percentiles.
#   generate URL ROOMS SECONDS PREFIX SERVER_PID [client.py options...]
generate() {
  local url=$1 total=$2 secs=$3 prefix=$4 server=$5; shift 5
  local totals="$work/$prefix.totals" gpids=() status=0 before after
  : > "$totals"
  before=$(process_cpu "$server")
  for g in $(seq "$generators"); do
    local share=$(( total / generators + (g <= total % generators ? 1 : 0) ))
    local tag=$prefix; [ "$generators" -gt 1 ] && tag="${prefix}g$g"
    LOADTEST_TOTALS="$totals" "$venv/bin/python" loadtest/client.py --url "$url" --rooms "$share" --seconds "$secs" \
      --prefix "$tag" --seed "$g" --server-pid "$server" "$@" > "$work/$tag.client.out" 2>&1 &
    gpids+=($!)
  done
  for p in "${gpids[@]}"; do wait "$p" || status=1; done
  after=$(process_cpu "$server")
  for g in $(seq "$generators"); do
    local tag=$prefix; [ "$generators" -gt 1 ] && { tag="${prefix}g$g"; echo "-- generator $g"; }
    cat "$work/$tag.client.out"
  done
  python3 loadtest/totals.py "$totals" "$before" "$after" "$generators"
  return $status
}

