#!/bin/sh
# The basic-layer suite, 2 ranks under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 2 "$ACPX_BUILDDIR/test/basic/basic_test"
