#!/bin/sh
# The basic-layer suite over UCX, 4 ranks on two emulated hosts of 2
# (test/two_hosts.sh): copies, atomics and faults between hosts and
# within each.
exec "$ACPX_SRCDIR/test/run-two-hosts.sh" acprun 4 "$ACPX_BUILDDIR/test/basic/basic_test"
