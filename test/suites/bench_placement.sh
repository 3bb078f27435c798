#!/bin/sh
# The placement guard of calibrate and model-check (bench/placement.hpp)
# with a far pair faked (ACPX_BENCH_FAKE_FAR=COUNT[:SECONDS], the probes
# after the COUNT far ones faked near, whatever the host does meanwhile): a
# far stretch shorter than the patience is waited out, sample by sample, and
# none is taken far; a longer one is taken as it is, once, said on
# stderr; a bad value is refused with a message and the run goes on.
# Likewise a pair far from the start (ACPX_BENCH_FAKE_FAR_START).
# model-check of one size on 2 ranks takes its samples through the guard.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "bench_placement: $*"; exit 1; }
check() {  # check NAME [ACPX_BENCH_FAKE_FAR]: runs model-check, output in $dir/NAME.{out,err}
    ACPX_BENCH_FAKE_FAR=${2-} "$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" model-check \
        --sizes 1K:1K --out "$dir/$1.csv" > "$dir/$1.out" 2> "$dir/$1.err" \
        || fail "$1: model-check failed: $(cat "$dir/$1.out" "$dir/$1.err")"
    grep '^# placement: ' "$dir/$1.out" > "$dir/$1.line" || fail "$1: no placement line: $(cat "$dir/$1.out")"
}
# "N measured again, M taken far" of the placement line.
again() { sed -n 's/.*), \([0-9]*\) measured again, .*/\1/p' "$dir/$1.line"; }
taken() { sed -n 's/.* \([0-9]*\) taken far .*/\1/p' "$dir/$1.line"; }

# 170 far probes: the first sample's waits (26 probes 20 ms apart) and the
# probe after it, six times over, about 3.5 s: more than the 4 times a
# sample is measured again at least, less than a patience of 60 s.
check short 170:60
[ "$(taken short)" = 0 ] || fail "short far stretch: want 0 taken far: $(cat "$dir/short.line")"
[ "$(again short)" -ge 6 ] || fail "short far stretch: want >= 6 measured again: $(cat "$dir/short.line")"
grep -q 'the pair far for over 60 s' "$dir/short.line" || fail "short: patience not shown: $(cat "$dir/short.line")"
! grep -q 'stayed' "$dir/short.err" || fail "short far stretch taken as it is: $(cat "$dir/short.err")"

# Far for good, a patience of 1 s: after 4 more measurements (over 2 s)
# the pair is taken as it is, once; the samples after it go on.
check long 1000000:1
[ "$(taken long)" = 1 ] || fail "long far stretch: want 1 taken far: $(cat "$dir/long.line")"
[ "$(again long)" -ge 4 ] || fail "long far stretch: want >= 4 measured again: $(cat "$dir/long.line")"
said='stayed [0-9]+ ns apart \(at best [0-9]+\) for [0-9]+ s; samples are taken on the pair as it is now$'
grep -Eq "^acpx-bench: ranks 0 and 1 $said" "$dir/long.err" \
    || fail "long far stretch: no message: $(cat "$dir/long.err")"
[ "$(grep -c '^bcast\|^allgather' "$dir/long.csv")" -ge 10 ] || fail "long: rows missing: $(cat "$dir/long.csv")"

# Far from the start (ACPX_BENCH_FAKE_FAR_START=COUNT[:SECONDS]: the
# first COUNT probes read 480 ns), with no calibration's pair to go by
# (the built-in defaults): the first sample waits for a pair under 120
# ns. 20 fake probes end after 0.3 s, and real ones read under 480 on any
# machine (a pair that never gets under 120 ends the wait at 5 s); one
# that stays far is taken as it is after a patience of 1 s (shown as 1-9.9
# s: a loaded machine's last probe may run late; the default is 30), said
# on stderr.
start() {  # start NAME ACPX_BENCH_FAKE_FAR_START: as check, with the built-in calibration
    env -u ACP_CALIBRATION XDG_CONFIG_HOME="$dir/none" ACPX_BENCH_FAKE_FAR_START="$2" \
        "$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" model-check --sizes 1K:1K --out "$dir/$1.csv" \
        > "$dir/$1.out" 2> "$dir/$1.err" || fail "$1: model-check failed: $(cat "$dir/$1.out" "$dir/$1.err")"
    grep '^# placement: ' "$dir/$1.out" > "$dir/$1.line" || fail "$1: no placement line: $(cat "$dir/$1.out")"
}
best() { sed -n 's/^# placement: ranks 0-1: \([0-9]*\) ns one way at best;.*/\1/p' "$dir/$1.line"; }
start begin 20:5
grep -Eq '; at the start 480 ns at best, then (a pair|none) under 120 ns after [0-9.]+ s$' "$dir/begin.line" \
    || fail "far at the start: no wait shown: $(cat "$dir/begin.line")"
[ "$(best begin)" -lt 480 ] || fail "far at the start: only fake probes read: $(cat "$dir/begin.line")"
start stays 1000000:1
grep -q '; at the start 480 ns at best, then none under 120 ns after [1-9]\.[0-9] s$' "$dir/stays.line" \
    || fail "far from the start for good: no wait shown: $(cat "$dir/stays.line")"
grep -q '^acpx-bench: ranks 0 and 1 stayed over 120 ns apart (at best 480) for the first [1-9] s; samples are taken' \
    "$dir/stays.err" || fail "far from the start for good: no message: $(cat "$dir/stays.err")"
[ "$(best stays)" = 480 ] || fail "far from the start for good: want the pair as it is: $(cat "$dir/stays.line")"

# Bad values: said, and ignored (nothing faked, the default patience),
# both in one run.
export ACPX_BENCH_FAKE_FAR_START=5:x
check bad 12x
unset ACPX_BENCH_FAKE_FAR_START
grep -q "^acpx-bench: ACPX_BENCH_FAKE_FAR='12x' is not COUNT\[:SECONDS\]; ignored$" "$dir/bad.err" \
    || fail "bad value: no message: $(cat "$dir/bad.err")"
grep -q "^acpx-bench: ACPX_BENCH_FAKE_FAR_START='5:x' is not COUNT\[:SECONDS\]; ignored$" "$dir/bad.err" \
    || fail "bad start value: no message: $(cat "$dir/bad.err")"
grep -q 'the pair far for over 90 s' "$dir/bad.line" || fail "bad: want the default patience: $(cat "$dir/bad.line")"
echo "bench_placement: ok"
