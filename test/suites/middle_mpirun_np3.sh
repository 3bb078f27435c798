#!/bin/sh
# The middle-layer suite under mpirun (PMIx bootstrap), 3 ranks.
exec "$ACPX_SRCDIR/test/run-mp.sh" mpirun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
