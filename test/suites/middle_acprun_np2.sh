#!/bin/sh
# The middle-layer suite (persistent collectives), 2 rank(s) under acprun,
# with no inline slots (ACP_COL_INLINE=0): small rounds take the data path
# here, the inline one in the other suites.
ACP_COL_INLINE=0 exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 2 "$ACPX_BUILDDIR/test/middle/middle_test"
