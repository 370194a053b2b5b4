#!/usr/bin/env bash
# `make test`, one stage at a time, quietly: a stage's whole output goes to
# .build/test-logs/STAGE.log and only a line is printed ("ok   swift-test  812 passed  (4 min 44 s)").
# A failing stage prints its log, then the totals so far, and exits 1 (make stops there).
#   scripts/test-stage.sh --start            forget the totals of an earlier run
#   scripts/test-stage.sh STAGE COMMAND...   run one stage
#   scripts/test-stage.sh --totals           print "N passed, M failed" (make test's last line)
# The counts: a stage whose output ends in a count (Swift Testing's "Test run with N tests",
# dicehost test's "N passed, M failed", check-lua's "N Lua files parse") adds that count;
# rules-fuzz adds one per rule script fuzzed; any other stage counts as one test.
set -uo pipefail

logs=.build/test-logs
totals=$logs/totals
mkdir -p "$logs"

print_totals() {
  local passed=0 failed=0 p f
  if [ -f "$totals" ]; then
    while read -r p f; do passed=$((passed + p)); failed=$((failed + f)); done < "$totals"
  fi
  echo "$passed passed, $failed failed"
}

case "${1:-}" in
  --start) rm -f "$totals" "$logs"/*.log; exit 0 ;;
  --totals) print_totals; exit 0 ;;
  ""|-*) echo "usage: scripts/test-stage.sh STAGE COMMAND... | --start | --totals" >&2; exit 2 ;;
esac

stage=$1
shift
log=$logs/$stage.log
start=$(date +%s)
"$@" > "$log" 2>&1
status=$?
seconds=$(( $(date +%s) - start ))
if [ $seconds -ge 60 ]; then took="$((seconds / 60)) min $((seconds % 60)) s"; else took="$seconds s"; fi

# What the stage counted (passed, failed), from the last count its output gives.
passed='' failed=''
if line=$(grep -aE 'Test run with [0-9]+ tests?' "$log" | tail -1) && [ -n "$line" ]; then
  total=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<< "$line")
  failed=$(grep -acE '^.{0,4}Test .*\) failed' "$log" || true)
  if grep -qE ' passed after ' <<< "$line"; then failed=0; fi
  passed=$((total - failed))
elif line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1) && [ -n "$line" ]; then
  read -r passed _ failed _ <<< "$line"
elif line=$(grep -aE '^check-lua: [0-9]+ Lua files parse' "$log" | tail -1) && [ -n "$line" ]; then
  passed=$(awk '{print $2}' <<< "$line"); failed=0
elif [ "$stage" = rules-fuzz ]; then
  passed=$(grep -acE '^fuzzed ' "$log" || true); failed=0
fi
if [ -z "$passed" ]; then
  if [ $status = 0 ]; then passed=1 failed=0; else passed=0 failed=1; fi
fi
if [ $status != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
echo "$passed $failed" >> "$totals"

if [ $status = 0 ]; then
  printf 'ok   %-14s %6s passed  (%s)\n' "$stage" "$passed" "$took"
  exit 0
fi
# The SwiftPM notice about a dependency's unhandled file is noise in a failure too.
grep -av 'found [0-9]* file(s) which are unhandled' "$log" | grep -avE '^ +/.*swift-distributed-tracing' 
echo "FAIL $stage (exit status $status after $took; the whole output: $log)"
print_totals
exit 1
