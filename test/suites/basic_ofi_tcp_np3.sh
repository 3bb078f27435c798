#!/bin/sh
# The basic-layer suite over libfabric's tcp;ofi_rxm (what crosses a
# network), 3 ranks, every copy through the provider, and every atomic
# carried out by the target's agent (ACP_OFI_ATOMICS=agent).
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm' ACP_CMA=0 ACP_OFI_ATOMICS=agent
export ACP_TRANSPORT FI_PROVIDER ACP_CMA ACP_OFI_ATOMICS
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/basic/basic_test"
