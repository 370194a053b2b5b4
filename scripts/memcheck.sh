#!/usr/bin/env bash
# `make test-memcheck` (not in `make test`): analyses and a short game under valgrind's
# memcheck, so that an out-of-bounds write or an uninitialised read in the C helpers
# (CLuaSupport: the position codec and index, the allocator, snapshots) fails loudly. The
# runs cross the position index's growth points (1,022 and 2,046 keys) and the codec's both
# ways. Needs valgrind (apt-get install valgrind). A few minutes on a debug build.
#   DICEHOST=.build/release/dicehost bash scripts/memcheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DICEHOST:-.build/debug/dicehost}
command -v valgrind >/dev/null || { echo "memcheck: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
[ -x "$bin" ] || { echo "memcheck: $bin is not built (swift build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the Swift binary's DWARF ("possibly corrupted debuginfo"):
# symbols are kept, the debug sections dropped.
objcopy --strip-debug "$bin" "$work/dicehost"
failed=0
check() {
  if valgrind -q --error-exitcode=99 --leak-check=no "$work/dicehost" "$@" > "$work/out" 2> "$work/err"; then
    echo "memcheck: clean: dicehost $*"
  else
    status=$?
    if [ "$status" -eq 99 ] || grep -q "^==[0-9]*== [A-Z]" "$work/err"; then
      echo "memcheck: ERRORS: dicehost $*"; grep "^==" "$work/err" | head -60; failed=1
    else
      echo "memcheck: dicehost $* exited $status without memory errors:"; tail -5 "$work/err"; failed=1
    fi
  fi
}
check solve examples/rules/pig.lua --set target=14 --players Ann,Bob    # 2,304 positions
check odds rules/race.lua
check sim examples/rules/pig.lua --games 20 --seed 1
exit "$failed"
