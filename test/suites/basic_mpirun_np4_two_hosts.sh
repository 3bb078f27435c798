#!/bin/sh
# The basic-layer suite under Open MPI's mpirun (PMIx bootstrap), 4 ranks
# on two emulated hosts of 2 (test/two_hosts.sh), a daemon on each host.
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" mpirun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
