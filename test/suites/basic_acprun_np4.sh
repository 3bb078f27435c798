#!/bin/sh
# The basic-layer suite, 4 ranks under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
