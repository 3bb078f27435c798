#!/bin/sh
# Installs the Debian packages, builds acpx twice (warnings as errors; then
# AddressSanitizer + UBSan) and runs the whole test suite on each build.
# Ends with one line "tests: N passed, N failed, N skipped". A suite
# skipped (exit 77: its launcher or tool missing) counts as failed too,
# since this script installs everything every suite needs; set
# ACPX_ALLOW_SKIP=1 on a machine that lacks something on purpose.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
since() { echo "$(($(date +%s) - $1)) s"; }  # seconds since a date +%s
start=$(date +%s)
sh "$src/scripts/install-deps.sh" || exit 1
echo "=== packages installed in $(since "$start")"
total_pass=0 total_fail=0 total_skip=0
run_suite() {  # name, builddir, configure options...
    name=$1 build=$2; shift 2
    t0=$(date +%s)
    echo "=== $name: build"
    if ! sh "$src/scripts/build.sh" "$build" "$@"; then
        echo "=== $name: build FAILED"; total_fail=$((total_fail + 1)); return
    fi
    # The test programs build on every core (TESTS= runs none); the tests
    # then run one at a time: each launches its own ranks on the node.
    log="$build/test-suite.log"
    make -C "$build" -j"$(nproc)" check TESTS= || echo "=== $name: test programs FAILED to build"
    rm -f "$log"  # that run's empty summary must not stand for the tests'
    t1=$(date +%s)
    echo "=== $name: built with its tests in $(since "$t0"); make check"
    make -C "$build" -j1 check
    echo "=== $name: tests ran in $(since "$t1")"
    p=$(sed -n 's/^# PASS: *//p' "$log" | head -1)
    f=$(sed -n 's/^# FAIL: *//p' "$log" | head -1)
    e=$(sed -n 's/^# ERROR: *//p' "$log" | head -1)
    k=$(sed -n 's/^# SKIP: *//p' "$log" | head -1)
    [ -s "$log" ] && grep -q '^# FAIL' "$log" || { p=0; f=1; }
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0} + ${e:-0}))
    total_skip=$((total_skip + ${k:-0}))
    if [ "${k:-0}" != 0 ]; then
        echo "=== $name: skipped suites (this machine should run them):"
        grep '^SKIP: ' "$log" || true
        [ "${ACPX_ALLOW_SKIP:-0}" = 1 ] || total_fail=$((total_fail + k))
    fi
    if [ "${f:-0}" != 0 ] || [ "${e:-0}" != 0 ]; then cat "$log"; fi
}
run_suite "release build" "$src/_build" --enable-werror
# ASan: UCX's malloc/mmap hooks must be off, or they fight ASan's.
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none UCX_MEM_EVENTS=no
# Leaks fail the tests; test/lsan.supp names the few that are the
# libraries' own (PMIx), never acpx's.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$src/test/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite "asan+ubsan build" "$src/_build-asan" --enable-werror --enable-sanitizers
echo "=== all done in $(since "$start")"
echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
