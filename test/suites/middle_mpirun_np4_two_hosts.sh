#!/bin/sh
# The middle-layer suite under Open MPI's mpirun (PMIx bootstrap), 4 ranks
# on two emulated hosts of 2 (test/two_hosts.sh). 10,000 creates are left
# to the suites on one node.
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" mpirun 4 "$ACPX_BUILDDIR/test/middle/middle_test"
