#!/bin/sh
# The middle-layer suite (persistent collectives), 4 rank(s) under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 4 "$ACPX_BUILDDIR/test/middle/middle_test"
