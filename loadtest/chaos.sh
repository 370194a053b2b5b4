#!/usr/bin/env bash
# `make loadtest-chaos`: rooms of 4 bot clients play while a `dicehost serve` process is
# killed with SIGKILL every CHAOS_KILL_EVERY seconds and started again at once on the same
# store; then every room plays to its end and loadtest/chaos.py checks the clients against
# the store (see loadtest/README.md).
#   Variant A (CHAOS_VARIANT=sqlite, the default): one process on an SQLite store.
#   Variant B (CHAOS_VARIANT=postgres): two processes behind Debian's nginx routing by room
#   id (docs/scaling.md), on a throwaway PostgreSQL (scripts/throwaway-postgres.sh).
#   CHAOS_ROOMS=100 CHAOS_SECONDS=90 CHAOS_KILL_EVERY=15 CHAOS_GAME=race make loadtest-chaos
# `make test-chaos-short` runs the short one (10 rooms, 2 kills, debug build) inside `make test`.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1  # chaos.py imports client.py: no __pycache__ in loadtest/
cd "$(dirname "$0")/.."
variant=${CHAOS_VARIANT:-sqlite}
rooms=${CHAOS_ROOMS:-100}
seconds=${CHAOS_SECONDS:-90}
kill_every=${CHAOS_KILL_EVERY:-15}
end_seconds=${CHAOS_END_SECONDS:-120}
game=${CHAOS_GAME:-race}
bin=${DICEHOST:-.build/release/dicehost}
venv=.build-venv

. loadtest/generate.sh   # prepare_clients, free_port, process_cpu, generate
prepare_clients

work=$(mktemp -d /tmp/dicehost-chaos.XXXXXX)
cleanup_steps=()
cleanup() {
  for step in "${cleanup_steps[@]}"; do eval "$step" || true; done
  if [ -n "${CHAOS_KEEP:-}" ]; then echo "chaos: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

common=(--bin "$bin" --rules rules --rooms "$rooms" --seconds "$seconds" --kill-every "$kill_every"
        --end-seconds "$end_seconds" --game "$game" --work "$work")

case "$variant" in
sqlite)
  "$venv/bin/python" loadtest/chaos.py "${common[@]}" --store "$work/rooms.sqlite" --processes 1
  ;;
postgres)
  bash scripts/ensure-postgres.sh   # Debian's postgresql, installed as root when missing
  # Its own temp folder: the server runs as the postgres user, who cannot enter $work (0700).
  pgdir=$(mktemp -d /tmp/dicehost-chaos-pg.XXXXXX)
  cleanup_steps+=("bash scripts/throwaway-postgres.sh stop '$pgdir'")
  url=$(bash scripts/throwaway-postgres.sh start "$pgdir")
  ports=$(python3 -c 'import socket
ps = []
for _ in range(3):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ps.append(s)
print(",".join(str(s.getsockname()[1]) for s in ps))')
  a=${ports%%,*}; rest=${ports#*,}; b=${rest%%,*}; front=${rest#*,}
  bash loadtest/nginx-front.sh start "$work/nginx" "$front" "$a" "$b"
  cleanup_steps+=("bash loadtest/nginx-front.sh stop '$work/nginx'")
  "$venv/bin/python" loadtest/chaos.py "${common[@]}" --store "$url" --processes 2 --ports "$a,$b" \
    --front "ws://127.0.0.1:$front/ws" --check-epochs
  ;;
*) echo "chaos: CHAOS_VARIANT is sqlite or postgres, not $variant" >&2; exit 2 ;;
esac
