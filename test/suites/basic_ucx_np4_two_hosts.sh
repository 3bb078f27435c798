#!/bin/sh
# The basic-layer suite over UCX, 4 ranks on two emulated hosts of 2
# (test/two_hosts.sh): copies, atomics and faults between hosts and
# within each. Its set-up lines (ACP_VERBOSE) name how rank 0 reaches a
# rank of its own host and one of the other: UCX's transports for each.
# UCX takes the receive segment acpx sets for its puts by message without
# a complaint. The puts by message run again where the user sized the
# segments (UCX_TCP_RX_SEG_SIZE: acpx keeps its smaller pieces). On a
# machine of two CPUs or more the hosts' ranks run on CPUs of their own
# host only, none on the other's (two_hosts.sh).
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
ACP_VERBOSE=1 "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/basic/basic_test" 2> "$err"
rc=$?
cat "$err" >&2
[ "$rc" -eq 0 ] || exit "$rc"
grep -Eq '^acpx: rank 0 reaches rank 1 \(same node\) through ucx: .*memory' "$err" \
    || { echo "basic_ucx_np4_two_hosts: no line for the same node's path"; exit 1; }
grep -Eq '^acpx: rank 0 reaches rank 2 \(another node\) through ucx: tcp/' "$err" \
    || { echo "basic_ucx_np4_two_hosts: no line naming tcp for the other node's path"; exit 1; }
! grep -q 'invalid configuration' "$err" \
    || { echo "basic_ucx_np4_two_hosts: UCX refused a setting of acpx's"; exit 1; }
UCX_TCP_RX_SEG_SIZE=64K GTEST_FILTER='PutByMessage.*' "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 \
    "$ACPX_BUILDDIR/test/basic/basic_test"
[ "$?" -eq 0 ] || exit 1
if [ "$(nproc)" -ge 2 ]; then
    # Each rank prints its host and the CPUs it may run on.
    "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 sh -c 'echo "$(hostname) $(taskset -cp $$ | sed "s/.*: //")"' \
        > "$err" 2>&1 || { cat "$err"; exit 1; }
    a=$(grep '^acpx-host-a ' "$err" | cut -d' ' -f2 | sort -u)
    b=$(grep '^acpx-host-b ' "$err" | cut -d' ' -f2 | sort -u)
    [ "$(grep -c '^acpx-host-[ab] ' "$err")" -eq 4 ] && [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] \
        || { echo "basic_ucx_np4_two_hosts: the hosts' ranks should run on CPUs of their own:"; cat "$err"; exit 1; }
fi
