#!/bin/sh
# The basic-layer suite over libfabric's shm provider, 3 ranks, every copy
# through the provider (ACP_CMA=0); atomics by the provider (shm has them).
ACP_TRANSPORT=ofi FI_PROVIDER=shm ACP_CMA=0
export ACP_TRANSPORT FI_PROVIDER ACP_CMA
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/basic/basic_test"
