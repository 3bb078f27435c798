#!/bin/sh
# The basic-layer suite, 3 ranks over libfabric's shm provider, with
# Cross-Memory Attach refused (test/run-cma-denied.sh): what a container
# that forbids process_vm_readv/writev gets with ACP_TRANSPORT=ofi. The
# refused copies fall back to the provider.
ACP_TRANSPORT=ofi FI_PROVIDER=shm
export ACP_TRANSPORT FI_PROVIDER
exec "$ACPX_SRCDIR/test/run-cma-denied.sh" 3 "$ACPX_BUILDDIR/test/basic/basic_test"
