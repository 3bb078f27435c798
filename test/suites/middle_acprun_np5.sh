#!/bin/sh
# The middle-layer suite (persistent collectives), 5 rank(s) under acprun.
# The 10,000-create leak test runs in the UCX suites at 1-4 ranks (at 4
# under LeakSanitizer too) and over libfabric: creates here take the same
# paths.
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 5 "$ACPX_BUILDDIR/test/middle/middle_test"
