#!/bin/sh
# The basic-layer suite, 4 ranks under acprun, registrations on huge pages.
export ACP_HUGEPAGES=1
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
