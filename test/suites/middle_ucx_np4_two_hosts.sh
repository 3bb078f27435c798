#!/bin/sh
# The middle-layer suite over UCX, 4 ranks on two emulated hosts of 2
# (test/two_hosts.sh: own network, host name and boot id each): the
# network between the hosts, CMA and mapped memory within each, and the
# model's choice for a job across nodes. 10,000 creates are left to the
# suites on one node (each create is an exchange over the network here).
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/middle/middle_test"
