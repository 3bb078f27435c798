#!/bin/sh
# With an eager pool of 1 MiB per process (ACP_COL_POOL; middle/eager_pool.hpp).
# The middle-layer suite (persistent collectives), 3 rank(s) under acprun.
ACP_COL_POOL=1M exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
