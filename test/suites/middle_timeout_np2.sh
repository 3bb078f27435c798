#!/bin/sh
# The middle-layer tests that need a short ACP_TIMEOUT (a round that times
# out on purpose), 2 ranks under acprun; in the other suites they skip.
GTEST_FILTER='LifecycleTimeout.*:OneCallTimeout.*:PlaceTimeout.*' ACP_TIMEOUT=2 exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 2 "$ACPX_BUILDDIR/test/middle/middle_test"
