#!/bin/sh
# The middle-layer suite over libfabric's tcp;ofi_rxm, 4 ranks as two
# nodes of 2 (test/as_two_nodes.sh): the provider between the nodes, CMA
# within each, as on a cluster. Skipped (77) where a UTS namespace cannot
# be made.
unshare --uts true 2>/dev/null || { echo "unshare --uts is not permitted here: skipped"; exit 77; }
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm' ACPX_TEST_NODES=2
export ACP_TRANSPORT FI_PROVIDER ACPX_TEST_NODES
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 4 "$ACPX_SRCDIR/test/as_two_nodes.sh" \
    "$ACPX_BUILDDIR/test/middle/middle_test"
