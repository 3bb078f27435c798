#!/bin/sh
# The middle-layer suite, 3 ranks, with Cross-Memory Attach refused: the
# collectives' copies fall back to the transport (test/run-cma-denied.sh).
exec "$ACPX_SRCDIR/test/run-cma-denied.sh" 3 "$ACPX_BUILDDIR/test/middle/middle_test"
