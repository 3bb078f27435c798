#!/bin/sh
# The one-call tests that need a short ACP_TIMEOUT and three ranks (a
# member that gives up while another still waits), under acprun; in the
# other suites they skip.
GTEST_FILTER='OneCallTimeout.*' ACP_TIMEOUT=2 exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
