#!/bin/sh
# The middle-layer tests that need a short ACP_TIMEOUT and rounds that move
# only inside acpx calls (a member that computes past its sender's timeout
# without reading for it meanwhile), 2 ranks under acprun; in the other
# suites they skip.
GTEST_FILTER='*/PulledRoundsTimeout.*' ACP_TIMEOUT=2 ACP_PROGRESS=calls exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 2 "$ACPX_BUILDDIR/test/middle/middle_test"
