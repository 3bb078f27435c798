#!/bin/sh
# The basic-layer suite under Open MPI's mpirun (PMIx bootstrap) over
# libfabric's tcp;ofi_rxm, 4 ranks on two emulated hosts of 2
# (test/two_hosts.sh), a daemon on each host.
ACP_TRANSPORT=ofi FI_PROVIDER='tcp;ofi_rxm'; export ACP_TRANSPORT FI_PROVIDER
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" mpirun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
