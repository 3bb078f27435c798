#!/bin/sh
# The middle-layer suite, 3 ranks, UCX_TLS=tcp and ACP_CMA=0: every copy and
# signal through the transport (no CMA, no mapped segments).
UCX_TLS=tcp; export UCX_TLS
ACP_CMA=0; export ACP_CMA
# With an eager pool, which no peer maps here: pooled rounds go as held puts.
ACP_COL_POOL=1M; export ACP_COL_POOL
# The 10,000-create leak test runs in the UCX suites at 1-4 ranks (at 4
# under LeakSanitizer too) and over libfabric: creates here take the same
# paths.
GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'; export GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
