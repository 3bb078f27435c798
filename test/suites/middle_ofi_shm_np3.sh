#!/bin/sh
# The middle-layer suite over libfabric's shm provider, 3 ranks.
ACP_TRANSPORT=ofi FI_PROVIDER=shm
export ACP_TRANSPORT FI_PROVIDER
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/middle/middle_test"
