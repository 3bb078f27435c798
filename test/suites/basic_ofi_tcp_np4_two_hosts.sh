#!/bin/sh
# The basic-layer suite over libfabric's tcp;ofi_rxm, 4 ranks on two
# emulated hosts of 2 (test/two_hosts.sh).
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm'; export ACP_TRANSPORT FI_PROVIDER
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
