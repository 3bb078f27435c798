#!/bin/sh
# The middle-layer suite, 3 ranks, UCX_TLS=tcp and ACP_CMA=0: every copy and
# signal through the transport (no CMA, no mapped segments).
UCX_TLS=tcp; export UCX_TLS
ACP_CMA=0; export ACP_CMA
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
