#!/bin/sh
# Faults across two emulated hosts (test/two_hosts.sh), 4 ranks of bcast
# rounds (fault_prog col-rounds): the link cut before the start ends every
# rank within ACP_TIMEOUT, in a few lines; cut for good, it ends every rank
# with an ACP_TIMEOUT error naming what it waited for; cut for 3 s and
# restored, the job completes with every round checked; a rank on the
# other host killed ends the job naming it; a rank stopped makes the
# others time out naming it. UCX, and libfabric tcp;ofi_rxm for the link.
set -u
hosts="$ACPX_SRCDIR/test/two_hosts.sh"
dir=$(mktemp -d)
bed="$dir/bed"
trap 'sh "$hosts" down "$bed"; rm -rf "$dir"' EXIT
fail() { echo "faults_two_hosts: $*"; exit 1; }
sh "$hosts" up "$bed" || exit $?
prog="$ACPX_BUILDDIR/test/launcher/fault_prog"
# job NAME TIMEOUT SECONDS: the rounds in the background, output in
# $dir/NAME.out, status and seconds to the end in $dir/NAME.end.
job() {
    (
        t0=$(date +%s%N)
        ACP_TIMEOUT=$2 timeout 60 "$ACPX_BUILDDIR/acprun" -n 4 "$hosts" rank "$bed" "$prog" col-rounds "$3" \
            > "$dir/$1.out" 2>&1
        echo "$? $((($(date +%s%N) - t0) / 1000000))" > "$dir/$1.end"
    ) &
    job_pid=$!
}
ended() { wait "$job_pid"; read -r status ms < "$dir/$1.end"; }
# A rank of host b: its pid and its rank.
victim() {
    for p in $(sh "$hosts" pids "$bed" b); do
        if tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q 'fault_prog col-rounds'; then
            vpid=$p
            vrank=$(tr '\0' '\n' < "/proc/$p/environ" | sed -n 's/^ACP_RUN_RANK=//p')
            return 0
        fi
    done
    return 1
}
for transport in ucx "ofi tcp;ofi_rxm"; do
    set -- $transport
    export ACP_TRANSPORT=$1
    if [ -n "${2:-}" ]; then export FI_PROVIDER="$2"; else unset FI_PROVIDER; fi
    # The link cut for good, 1.5 s in: every rank fails its round after
    # ACP_TIMEOUT (3 s), naming what it waited for, and the job ends.
    job cut 3 20
    sleep 1.5
    sh "$hosts" link "$bed" down
    ended cut
    sh "$hosts" link "$bed" up
    [ "$status" -ne 0 ] || fail "$transport: link cut: the job succeeded: $(cat "$dir/cut.out")"
    [ "$ms" -lt 12000 ] || fail "$transport: link cut: the job ended after $ms ms (ACP_TIMEOUT 3 s): $(cat "$dir/cut.out")"
    [ "$(grep -c 'waited 3 s (ACP_TIMEOUT) for ' "$dir/cut.out")" -ge 2 ] \
        || fail "$transport: link cut: no timeout said: $(cat "$dir/cut.out")"
    ! grep -q 'rounds done' "$dir/cut.out" || fail "$transport: link cut: rounds went on: $(cat "$dir/cut.out")"
    # Each names a rank: a rank whose own copy is in flight, that copy's.
    ! grep -q "this rank's own copies" "$dir/cut.out" || fail "$transport: link cut: a wait names no rank: $(cat "$dir/cut.out")"
    # Cut before the job starts: the ranks cannot reach the other host;
    # every rank ends within ACP_TIMEOUT with a few lines naming a rank,
    # not an error a call and no hang.
    sh "$hosts" link "$bed" down
    job unreachable 3 2
    ended unreachable
    sh "$hosts" link "$bed" up
    [ "$status" -ne 0 ] && [ "$ms" -lt 12000 ] && [ "$(wc -l < "$dir/unreachable.out")" -lt 60 ] \
        && grep -Eq '^acpx: .*rank [0-9]' "$dir/unreachable.out" \
        || fail "$transport: unreachable from the start: status $status after $ms ms: $(head -c 3000 "$dir/unreachable.out")"
    # Cut for 3 s (under ACP_TIMEOUT, 10 s), then restored: the job ends
    # well, every rank's every round checked.
    job flap 10 6
    sleep 1.5
    sh "$hosts" link "$bed" down
    sleep 3
    sh "$hosts" link "$bed" up
    ended flap
    [ "$status" -eq 0 ] && [ "$(grep -c 'rounds done' "$dir/flap.out")" -eq 4 ] \
        || fail "$transport: link cut for 3 s: status $status: $(cat "$dir/flap.out")"
done
export ACP_TRANSPORT=ucx
unset FI_PROVIDER
# hit NAME SIGNAL: the rounds, and 1.5 s in, SIGNAL to a rank of host b.
hit() {
    job "$1" 3 20
    sleep 1.5
    victim || fail "$1: no rank found on host b"
    kill "-$2" "$vpid"
    ended "$1"
}
# A rank on host b killed: the job ends, acprun naming it.
hit kill KILL
[ "$status" -ne 0 ] && [ "$ms" -lt 12000 ] && grep -q "rank $vrank (pid $vpid) was killed by signal 9" "$dir/kill.out" \
    || fail "kill: status $status after $ms ms: $(cat "$dir/kill.out")"
# A rank on host b stopped: the others time out, one naming it.
hit stop STOP
[ "$status" -ne 0 ] && [ "$ms" -lt 15000 ] && grep -Eq "waited 3 s \(ACP_TIMEOUT\) for (.* )?rank $vrank( |$)" "$dir/stop.out" \
    || fail "stop: rank $vrank: status $status after $ms ms: $(cat "$dir/stop.out")"
kill -KILL "$vpid" 2>/dev/null || true
echo "faults_two_hosts: ok"
