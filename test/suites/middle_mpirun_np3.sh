#!/bin/sh
# The middle-layer suite under mpirun (PMIx bootstrap), 3 ranks.
# The 10,000-create leak test runs in the UCX suites at 1-4 ranks (at 4
# under LeakSanitizer too) and over libfabric: creates here take the same
# paths.
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-mp.sh" mpirun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
