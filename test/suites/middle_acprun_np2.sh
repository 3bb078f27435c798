#!/bin/sh
# The middle-layer suite (persistent collectives), 2 rank(s) under acprun.
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 2 "$ACPX_BUILDDIR/test/middle/middle_test"
