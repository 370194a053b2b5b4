#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL server binaries are present for the tests that run a
# throwaway server (scripts/throwaway-postgres.sh). As root with apt-get it installs
# them; otherwise it says how, and those tests are skipped (they print why).
set -euo pipefail
have_postgres() {
  { command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; } || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
}
have_postgres && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "dicehost: installing postgresql (for the room store tests on PostgreSQL)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  exit 0
fi
echo "dicehost: PostgreSQL is not installed: the PostgreSQL store tests will be skipped. Install it with:" >&2
echo "    sudo apt-get install postgresql" >&2
exit 0
