#!/bin/sh
# The middle-layer suite over libfabric's tcp;ofi_rxm, 4 ranks on two
# emulated hosts of 2 (test/two_hosts.sh): the provider between the
# hosts, CMA within each, as on a cluster. 10,000 creates are left to the
# suites on one node.
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm' GTEST_FILTER='-Lifecycle.TenThousandCreateFreeCyclesLeakNothing'
export ACP_TRANSPORT FI_PROVIDER GTEST_FILTER
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/middle/middle_test"
