#!/bin/sh
# A bcast root's split block (round.cpp, split_point) where Cross-Memory
# Attach is refused at the first copy, which this test alone in its
# process makes: the tail and the head go through the transport
# (test/run-cma-denied.sh). In the other suites the test skips.
GTEST_FILTER='PulledRounds.WhereCmaIsRefusedASplitBlockGoesThroughTheTransport' \
  exec "$ACPX_SRCDIR/test/run-cma-denied.sh" 2 "$ACPX_BUILDDIR/test/middle/middle_test"
