#!/bin/sh
# The basic-layer suite, 3 ranks under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/basic/basic_test"
