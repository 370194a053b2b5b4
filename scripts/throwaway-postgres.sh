#!/usr/bin/env bash
# A throwaway PostgreSQL server in a temp folder, for tests (no Docker, no system cluster):
#
#   url=$(scripts/throwaway-postgres.sh start DIR [PID])   # DIR: an empty folder from mktemp -d
#   ...                                                     # postgres://dicehost:PASSWORD@127.0.0.1:PORT/dicehost
#   scripts/throwaway-postgres.sh stop DIR                  # stops it and deletes DIR
#
# With PID (a test process), the server is also stopped and DIR deleted once that process
# has ended, however it ended (a test run that crashes leaves no server behind).
# It listens on 127.0.0.1 at a free port and on a Unix socket in DIR, and asks for the
# password printed in the URL over TCP (scram-sha-256), so a wrong password is refused.
# Debian's binaries (`apt-get install postgresql`, scripts/ensure-postgres.sh) are found
# through pg_config or /usr/lib/postgresql/*/bin. initdb refuses to run as root: as root
# the server runs as the `postgres` user Debian's package creates (else `nobody`), and DIR
# is handed to that user. Exit status 3 (and a line on stderr) when PostgreSQL is not installed.
set -euo pipefail

usage() { echo "usage: $0 start DIR [PID] | stop DIR" >&2; exit 2; }
[ $# = 2 ] || [ $# = 3 ] || usage
command=$1
dir=$2
watch_pid=${3:-}
case "$watch_pid" in ''|*[!0-9]*) [ -z "$watch_pid" ] || usage ;; esac
case "$dir" in /*) ;; *) dir="$(pwd)/$dir" ;; esac
# The server's user may not enter the caller's folder (root's home is 0700).
cd /

bindir=""
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
  bindir=$(pg_config --bindir)
else
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ]; then bindir=$candidate; break; fi
  done
fi
if [ -z "$bindir" ]; then
  echo "throwaway-postgres: PostgreSQL is not installed (no initdb from pg_config or in /usr/lib/postgresql/*/bin); apt-get install postgresql" >&2
  exit 3
fi

# As root, everything runs as an unprivileged user (initdb and postgres refuse root).
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}
owner=$(id -un)
if [ "$(id -u)" = 0 ]; then
  if id postgres >/dev/null 2>&1; then owner=postgres; else owner=nobody; fi
fi

case "$command" in
start)
  # The server and the watcher outlive this script: they must not hold the caller's
  # descriptors beyond stdin/out/err (Foundation's Process learns that its child ended
  # when a descriptor it handed it is closed by everyone who has it).
  for fd in $(ls /proc/$$/fd 2>/dev/null); do
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  [ -d "$dir" ] || { echo "throwaway-postgres: $dir is not a folder (make one with mktemp -d)" >&2; exit 2; }
  [ -z "$(ls -A "$dir")" ] || { echo "throwaway-postgres: $dir is not empty" >&2; exit 2; }
  # The Unix socket's path must fit in 107 bytes.
  [ ${#dir} -lt 80 ] || { echo "throwaway-postgres: $dir is too long a path for a Unix socket" >&2; exit 2; }
  password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  if command -v python3 >/dev/null 2>&1; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  else
    port=$((20000 + RANDOM % 40000))
  fi
  if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir"; fi
  chmod 700 "$dir"
  printf '%s\n' "$password" > "$dir/password"
  if [ "$(id -u)" = 0 ]; then chown "$owner" "$dir/password"; fi
  as_owner "$bindir/initdb" -D "$dir/data" -U dicehost --pwfile="$dir/password" \
    --no-sync --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  # fsync off: a throwaway server for tests, nothing in it needs to outlive a crash.
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start </dev/null >"$dir/pg_ctl.log" 2>&1 || { cat "$dir/pg_ctl.log" "$dir/server.log" >&2; exit 1; }
  as_owner "$bindir/createdb" -h "$dir" -p "$port" -U dicehost dicehost
  if [ -n "$watch_pid" ]; then
    # Detached, its output nowhere: the caller reading this script's output is not kept waiting.
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" stop "$3"' \
      watcher "$watch_pid" "$0" "$dir" </dev/null >/dev/null 2>&1 &
  fi
  echo "postgres://dicehost:$password@127.0.0.1:$port/dicehost"
  ;;
stop)
  if [ -d "$dir/data" ]; then as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
  ;;
*) usage ;;
esac
