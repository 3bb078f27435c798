#!/bin/sh
# The middle-layer suite (persistent collectives), 3 rank(s) under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
