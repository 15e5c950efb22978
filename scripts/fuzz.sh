#!/usr/bin/env bash
# Runs every libFuzzer target in Fuzz/ for a bounded time, one after the other.
#
#   scripts/fuzz.sh [SECONDS]          # default 60 s per target
#   scripts/fuzz.sh 10                 # a short smoke run (CI)
#   PB_FUZZ_TARGETS="item-line configuration" scripts/fuzz.sh 300
#
# The targets are built first (scripts/fuzz/build.sh: swiftc with -sanitize=fuzzer,address, straight from
# Sources/; needs the same system libraries as the package). Each target starts from its checked-in seeds in
# Fuzz/corpus/<target>/ (never modified) plus what earlier runs found, kept in $PB_FUZZ_BUILD/corpus/<target>/.
#
# Exit status: 0 when no target crashed, 1 when one did (each crash's reproducer is printed: run the target on it
# to see the stack, e.g. `.build/fuzz/bin/item-line .build/fuzz/artifacts/item-line/crash-…`), 2 when the build
# failed.
#
# Environment: PB_FUZZ_BUILD (build and work directory, default .build/fuzz), PB_FUZZ_TARGETS (a subset),
# PB_FUZZ_FLAGS (more libFuzzer flags, e.g. "-jobs=2 -workers=2" or "-max_len=65536").
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 64 ;; esac
build=${PB_FUZZ_BUILD:-$root/.build/fuzz}
export PB_FUZZ_BUILD=$build

if [ -n "${PB_FUZZ_TARGETS:-}" ]; then
    read -r -a targets <<<"$PB_FUZZ_TARGETS"
else
    targets=()
    for file in "$root"/Fuzz/*.swift; do [ -e "$file" ] && targets+=("$(basename "$file" .swift)"); done
fi

"$root/scripts/fuzz/build.sh" "${targets[@]}" || { echo "fuzz: the build failed" >&2; exit 2; }

# A Swift runtime failure (overflow, bounds, precondition) must reach libFuzzer's handler as a plain signal:
# Swift's own backtracer would run first and confuse AddressSanitizer.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}

failed=()
summary=()
for target in "${targets[@]}"; do
    binary=$build/bin/$target
    work=$build/corpus/$target
    artifacts=$build/artifacts/$target/
    seeds=$root/Fuzz/corpus/$target
    log=$build/logs/$target.log
    mkdir -p "$work" "$artifacts" "$seeds" "$(dirname "$log")"
    flags=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$artifacts")
    [ -f "$root/Fuzz/$target.dict" ] && flags+=(-dict="$root/Fuzz/$target.dict")
    # shellcheck disable=SC2206 # word splitting of PB_FUZZ_FLAGS is wanted
    extra=(${PB_FUZZ_FLAGS:-})
    echo "fuzz: $target for ${seconds}s (log: $log)"
    before=$(ls "$artifacts" 2>/dev/null | wc -l)
    "$binary" "${flags[@]}" "${extra[@]}" "$work" "$seeds" >"$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(ls "$work" | wc -l)
    after=$(ls "$artifacts" 2>/dev/null | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        failed+=("$target")
        summary+=("$(printf '%-20s FAILED (exit %s) after %s runs' "$target" "$status" "${runs:-?}")")
        echo "fuzz: $target FAILED (exit $status). From its log:" >&2
        grep -E "ERROR|Fatal error|Precondition failed|runtime failure|SUMMARY|Test unit written" "$log" | head -12 >&2
        grep -o "Test unit written to .*" "$log" | sed 's/^Test unit written to /fuzz: reproducer: /' >&2
        echo "fuzz: reproduce with: SWIFT_BACKTRACE=enable=no $binary <reproducer>" >&2
    else
        summary+=("$(printf '%-20s ok: %s runs (%s/s), corpus %s' "$target" "${runs:-?}" "${rate:-?}" "$corpus")")
    fi
done

echo
printf 'fuzz: %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in: ${failed[*]}" >&2
    exit 1
fi
