#!/bin/sh
# bench/quiet_check.sh, which the main job runs first: with a spinner on
# every CPU it reports them busy and warns, naming the spinners among the
# busiest processes; a bad argument is refused (status 2).
set -eu
fail() { echo "bench_quiet_check: $*"; exit 1; }
check="$ACPX_SRCDIR/bench/quiet_check.sh"
out=$(mktemp)
pids=
stop_spinners() { for p in $pids; do kill "$p" 2>/dev/null || true; done; pids=; }
trap 'stop_spinners; rm -f "$out"' EXIT
for _ in $(seq "$(nproc)"); do
    timeout 20 sh -c 'while :; do :; done' &
    pids="$pids $!"
done
sh "$check" 2 10 > "$out" || fail "status $? with the CPUs busy: $(cat "$out")"
busy=$(sed -n 's/^# machine: \([0-9]*\)% of [0-9]* CPUs busy over 2 s.*/\1/p' "$out")
[ "${busy:-0}" -ge 50 ] || fail "want >= 50% busy with a spinner per CPU: $(cat "$out")"
grep -q '^# WARNING: over 10%' "$out" || fail "no warning: $(cat "$out")"
grep -Eq '^#   +[0-9]+ +[0-9.]+ (sh|timeout)$' "$out" || fail "the spinners are not named: $(cat "$out")"
stop_spinners
for bad in "x" "2 -1" "1.5"; do
    st=0
    # shellcheck disable=SC2086  # $bad is the argument list
    sh "$check" $bad > "$out" 2>&1 || st=$?
    [ "$st" -eq 2 ] && grep -q "^quiet_check.sh: '.*' is not a whole number" "$out" \
        || fail "quiet_check.sh $bad: status $st: $(cat "$out")"
done
echo "bench_quiet_check: ok"
