#!/usr/bin/env bash
# Runs the fuzz targets (see fuzz/README.md). Called by `make fuzz`, `make fuzz-smoke`
# and `make fuzz-crashes` from the repository root.
#   fuzz/run.sh fuzz [TARGET...]     each target for $FUZZ_SECONDS (default 60) on its corpus
#   fuzz/run.sh smoke [TARGET...]    each target over its kept corpus once
#   fuzz/run.sh crashes [TARGET...]  replay the saved reproducers in fuzz/crashes/
# Exit status 1 when a target crashed (its reproducer is in fuzz/crashes/TARGET/).
set -u
# libFuzzer, not the Swift runtime's backtracer, must catch a trap: it saves the input.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
cd "$(dirname "$0")"
mode=${1:-fuzz}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(transcript repl notation set-params sim-merge script replay-log sensor-recording serve)
seconds=${FUZZ_SECONDS:-60}
bin=${FUZZ_BIN:-.build-fuzz/release}
scratch=${FUZZ_SCRATCH:-.build-fuzz/corpus}
failed=()
for t in "${targets[@]}"; do
    exe="$bin/fuzz-$t"
    [ -x "$exe" ] || { echo "fuzz-$t: not built (make fuzz-build)"; failed+=("$t"); continue; }
    log=$(mktemp)
    case $mode in
    fuzz)
        mkdir -p "$scratch/$t" "crashes/$t"
        # New inputs go to the first folder (scratch); the kept corpus is only read.
        dict=; [ -f "dict/$t.dict" ] && dict="-dict=dict/$t.dict"
        "$exe" -max_total_time="$seconds" $dict -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1 \
            -artifact_prefix="crashes/$t/" ${FUZZ_FLAGS:-} "$scratch/$t" "corpus/$t" >"$log" 2>&1
        status=$?
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        ;;
    smoke)
        mkdir -p "$scratch"
        "$exe" -runs=0 -timeout=10 -detect_leaks=0 -artifact_prefix="$scratch/smoke-$t-" "corpus/$t" >"$log" 2>&1
        status=$?
        runs=$(ls "corpus/$t" | wc -l)
        ;;
    crashes)
        files=$(find "crashes/$t" -type f ! -name '*.md' 2>/dev/null | sort)
        [ -n "$files" ] || { echo "fuzz-$t: no saved crashes"; rm -f "$log"; continue; }
        status=0; runs=0
        for f in $files; do
            runs=$((runs + 1))
            if ! "$exe" -timeout=10 -detect_leaks=0 "$f" >"$log.one" 2>&1; then
                status=1; echo "fuzz-$t: still crashes: $f"; grep -m1 -E "Fatal error|ERROR:|invariant" "$log.one" | sed 's/^/    /'
            fi
        done
        rm -f "$log.one"
        ;;
    *) echo "usage: fuzz/run.sh fuzz|smoke|crashes [TARGET...]"; exit 2 ;;
    esac
    if [ "$status" -eq 0 ]; then
        echo "fuzz-$t: ${runs:-?} runs, no crash"
    else
        failed+=("$t")
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        reason=$(grep -m1 -E "Fatal error|ERROR: libFuzzer|ERROR: AddressSanitizer|invariant broken|deadly signal|timeout" "$log")
        echo "fuzz-$t: ${runs:-?} runs, CRASHED${artifact:+: $artifact}"
        [ -n "$reason" ] && echo "    $reason"
        [ "$mode" = crashes ] || { echo "    full log: $log"; continue; }
    fi
    rm -f "$log"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "crashed: ${failed[*]} (reproduce: fuzz/.build-fuzz/release/fuzz-TARGET FILE)"
    exit 1
fi
