#!/bin/sh
# The middle-layer suite (persistent collectives), 1 rank(s) under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 1 "$ACPX_BUILDDIR/test/middle/middle_test"
