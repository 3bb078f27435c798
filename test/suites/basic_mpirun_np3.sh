#!/bin/sh
# The basic-layer suite, 3 ranks under mpirun.
exec "$ACPX_SRCDIR/test/run-mp.sh" mpirun 3 "$ACPX_BUILDDIR/test/basic/basic_test"
