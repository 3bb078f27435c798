#!/bin/sh
# The basic-layer suite, 3 ranks, with Cross-Memory Attach refused: the
# fallback to the transport (test/run-cma-denied.sh).
exec "$ACPX_SRCDIR/test/run-cma-denied.sh" 3 "$ACPX_BUILDDIR/test/basic/basic_test"
