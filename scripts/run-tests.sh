#!/bin/sh
# Installs the Debian packages, builds acpx three times (warnings as
# errors; AddressSanitizer + UBSan; ThreadSanitizer) and runs the test
# suites on each build: every suite on the first; on the sanitizer build,
# the suites that reach each code path once (sanitizer_suites below); two
# suites at a time, two that time or load the CPUs alone (run_suite); on
# the ThreadSanitizer build, the rounds the progress agent carries
# (tsan_suites). --long runs every suite on
# both (the benchmarks' suites, every rank count and transport variant
# under the sanitizers too) and the long-only suites (long_suites below):
# before a release, or nightly.
# Ends with one line "tests: N passed, N failed, N skipped". A suite
# skipped (exit 77: its launcher or tool missing) counts as failed too,
# since this script installs everything every suite needs; set
# ACPX_ALLOW_SKIP=1 on a machine that lacks something on purpose.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
long=0
case "${1:-}" in
    --long) long=1 ;;
    "") ;;
    *) echo "usage: run-tests.sh [--long]" >&2; exit 2 ;;
esac
# Under the sanitizers: each launcher and bootstrap (acprun, PMIx), each
# transport (UCX shared memory and TCP, libfabric shm and TCP), CMA
# denied, two nodes (the basic layer's too: a put by message sent from its
# source in pieces), the launcher's faults, the in-process tests, and ACP
# programs built by the installed acpcc (a few seconds).
# The rest repeat those paths at other rank counts or time benchmarks.
sanitizer_suites="test/suites/basic_acprun_np3.sh test/suites/basic_acprun_np3_tcp.sh
    test/suites/basic_mpirun_np3.sh test/suites/basic_cma_denied_np3.sh
    test/suites/basic_ofi_shm_np3.sh test/suites/basic_ofi_tcp_np3.sh test/suites/basic_cma_denied_ofi_np3.sh
    test/launcher/launcher_test test/basic/copy_bytes_test test/basic/heap_test test/basic/cma_access_test test/basic/huge_pages_test
    test/basic/ofi_wire_test test/collectives/model_test test/collectives/lists_test
    test/suites/middle_acprun_np4.sh test/suites/middle_ucx_np4_two_hosts.sh test/suites/basic_ucx_np4_two_hosts.sh
    test/suites/middle_ofi_tcp_np3.sh test/suites/middle_cma_denied_np3.sh test/suites/middle_timeout_np2.sh
    test/suites/middle_timeout_calls_np2.sh test/suites/middle_timeout_np3.sh test/suites/middle_cma_denied_split_np2.sh
    test/suites/bench_copy_quick.sh test/suites/bench_quiet_check.sh
    test/suites/acp_programs.sh test/suites/layers.sh test/suites/config_table.sh"
# Only with --long: they test a benchmark's own guard, not the runtime,
# and take over a minute with the machine to themselves.
long_suites="test/suites/bench_placement.sh"
since() { echo "$(($(date +%s) - $1)) s"; }  # seconds since a date +%s
start=$(date +%s)
sh "$src/scripts/install-deps.sh" || exit 1
echo "=== packages installed in $(since "$start")"
total_pass=0 total_fail=0 total_skip=0
# The suites a build would run (its TESTS), one a line.
suites_of() {
    printf 'acpx-print-tests:\n\t@for t in $(TESTS); do echo $$t; done\n' |
        make -s -C "$1" -f Makefile -f - acpx-print-tests
}
# Adds the counts of the make check that wrote $log to the totals; prints
# its log when something failed or was skipped.
count_log() {  # name, log
    p=$(sed -n 's/^# PASS: *//p' "$2" | head -1)
    f=$(sed -n 's/^# FAIL: *//p' "$2" | head -1)
    e=$(sed -n 's/^# ERROR: *//p' "$2" | head -1)
    k=$(sed -n 's/^# SKIP: *//p' "$2" | head -1)
    [ -s "$2" ] && grep -q '^# FAIL' "$2" || { p=0; f=1; }
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0} + ${e:-0}))
    total_skip=$((total_skip + ${k:-0}))
    if [ "${k:-0}" != 0 ]; then
        echo "=== $1: skipped suites (this machine should run them):"
        grep '^SKIP: ' "$2" || true
        [ "${ACPX_ALLOW_SKIP:-0}" = 1 ] || total_fail=$((total_fail + k))
    fi
    if [ "${f:-0}" != 0 ] || [ "${e:-0}" != 0 ]; then cat "$2"; fi
}
run_suite() {  # name, builddir, which (all | sanitizer), configure options...
    name=$1 build=$2 which=$3; shift 3
    t0=$(date +%s)
    echo "=== $name: build"
    if ! sh "$src/scripts/build.sh" "$build" "$@"; then
        echo "=== $name: build FAILED"; total_fail=$((total_fail + 1)); return
    fi
    # The test programs build on every core (TESTS= runs none).
    log="$build/test-suite.log"
    make -C "$build" -j"$(nproc)" check TESTS= || echo "=== $name: test programs FAILED to build"
    t1=$(date +%s)
    echo "=== $name: built with its tests in $(since "$t0"); make check"
    chosen=$(suites_of "$build")
    if [ "$long" != 1 ]; then
        chosen=$(echo "$chosen" | while read -r t; do
            case " $(echo $long_suites) " in *" $t "*) ;; *) echo "$t" ;; esac
        done)
    fi
    if [ "$which" != all ]; then
        chosen=$(echo "$chosen" | while read -r t; do
            case " $(echo $sanitizer_suites) " in *" $t "*) echo "$t" ;; esac
        done)
        echo "=== $name: $(echo "$chosen" | wc -l) of $(suites_of "$build" | wc -l) suites (run-tests.sh --long: all)"
    fi
    # Two suites at a time (each launches its own ranks, in namespaces of
    # its own where it needs them), the middle layer's first: they are the
    # longest, and two slots end together when the short ones come last.
    # The placement probe's suite, which times pairs of cores, and the
    # quiet check's, which loads every CPU, one at a time after them.
    alone_re='^test/suites/bench_(placement|quiet_check)\.sh$'
    shared=$( (echo "$chosen" | grep -E -v "$alone_re" | grep '^test/suites/middle_'
               echo "$chosen" | grep -E -v "$alone_re" | grep -v '^test/suites/middle_') || true)
    alone=$(echo "$chosen" | grep -E "$alone_re" || true)
    if [ -n "$shared" ]; then
        rm -f "$log"  # an earlier run's summary must not stand for this one's
        make -C "$build" -j"$(nproc)" check TESTS="$(echo $shared)"
        count_log "$name" "$log"
    fi
    if [ -n "$alone" ]; then
        rm -f "$log"
        make -C "$build" -j1 check TESTS="$(echo $alone)"
        count_log "$name" "$log"
    fi
    echo "=== $name: tests ran in $(since "$t1")"
}
# No static library in these builds: libtool would compile every file of
# the library twice (a shared and a static object), and the tests link the
# shared one. The main job's build (run-bench.sh) makes both.
run_suite "release build" "$src/_build" all --enable-werror --disable-static
# ASan: UCX's malloc/mmap hooks must be off, or they fight ASan's.
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none UCX_MEM_EVENTS=no
# Leaks fail the tests; test/lsan.supp names the few that are the
# libraries' own (PMIx), never acpx's.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$src/test/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
[ "$long" = 1 ] && which=all || which=sanitizer
run_suite "asan+ubsan build" "$src/_build-asan" "$which" --enable-werror --enable-sanitizers --disable-static
# ThreadSanitizer: the application thread and the progress agent share the
# persistent collectives' rounds (middle/owner.hpp). The library, acprun
# and the middle layer's test program only; the rounds the agent carries
# (jittered rounds, a member computing while the others wait) at 3 ranks,
# or with --long the whole middle suite at 3 ranks and across two hosts.
# test/tsan.supp says what it cannot see (ordering by other processes).
tsan_suites() {
    t0=$(date +%s) build="$src/_build-tsan"
    echo "=== tsan build: build"
    if ! sh "$src/scripts/build.sh" "$build" --enable-werror --enable-tsan --disable-static ||
        ! make -C "$build" -j"$(nproc)" test/middle/middle_test; then
        echo "=== tsan build: build FAILED"; total_fail=$((total_fail + 1)); return
    fi
    echo "=== tsan build: built in $(since "$t0")"
    if [ "$long" = 1 ]; then
        filter='*' suites="middle_acprun_np3 middle_ucx_np4_two_hosts"
    else
        filter='*AgentRounds*:*Modes/Rounds.*' suites="middle_acprun_np3"
    fi
    for s in $suites; do
        if TSAN_OPTIONS="suppressions=$src/test/tsan.supp" GTEST_FILTER="$filter" ACPX_SRCDIR="$src" \
            ACPX_BUILDDIR="$build" sh "$src/test/suites/$s.sh" > "$build/$s.log" 2>&1 &&
            ! grep -q 'WARNING: ThreadSanitizer' "$build/$s.log"; then
            echo "PASS: tsan $s"; total_pass=$((total_pass + 1))
        else
            echo "FAIL: tsan $s"; cat "$build/$s.log"; total_fail=$((total_fail + 1))
        fi
    done
    echo "=== tsan build: tests ran in $(since "$t0")"
}
tsan_suites
echo "=== all done in $(since "$start")"
echo "tests: $total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
