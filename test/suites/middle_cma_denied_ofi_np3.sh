#!/bin/sh
# The middle-layer suite, 3 ranks over libfabric's shm provider, with
# Cross-Memory Attach refused (test/run-cma-denied.sh): the collectives'
# copies fall back to the provider.
ACP_TRANSPORT=ofi FI_PROVIDER=shm
export ACP_TRANSPORT FI_PROVIDER
exec "$ACPX_SRCDIR/test/run-cma-denied.sh" 3 "$ACPX_BUILDDIR/test/middle/middle_test"
