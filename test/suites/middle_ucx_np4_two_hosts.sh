#!/bin/sh
# The middle-layer suite over UCX, 4 ranks on two emulated hosts of 2
# (test/two_hosts.sh: own network, host name and boot id each): the
# network between the hosts, CMA and mapped memory within each, and the
# model's choice for a job across nodes. 10,000 creates are left to the
# suites on one node (each create is an exchange over the network here).
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
# The built-in calibration's curves between nodes are the reference VM's
# emulated hosts', not this network's: rank 0 says so, once, at the
# first create that asks the model.
set -u
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/middle/middle_test" 2> "$err"
rc=$?
cat "$err" >&2
[ "$rc" -eq 0 ] || exit "$rc"
n=$(grep -c 'warning: the job spans 2 nodes but calibration .* has no curves of this network: .* the built-in ones' "$err")
[ "$n" -eq 1 ] || { echo "middle_ucx_np4_two_hosts: want one warning of no curves of this network, got $n"; exit 1; }
