#!/bin/sh
# The middle-layer suite over libfabric's tcp;ofi_rxm, 3 ranks, every copy
# and signal through the provider (no CMA, no mapped segments).
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm' ACP_CMA=0
export ACP_TRANSPORT FI_PROVIDER ACP_CMA
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
