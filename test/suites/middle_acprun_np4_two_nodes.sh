#!/bin/sh
# The middle-layer suite, 4 ranks under acprun as two nodes of 2
# (test/as_two_nodes.sh): collectives across and within nodes at once, and
# the model's choice for a job across nodes. Skipped (77) where a UTS
# namespace cannot be made (not root, or a container that forbids it).
unshare --uts true 2>/dev/null || { echo "unshare --uts is not permitted here: skipped"; exit 77; }
ACPX_TEST_NODES=2; export ACPX_TEST_NODES
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 4 "$ACPX_SRCDIR/test/as_two_nodes.sh" \
    "$ACPX_BUILDDIR/test/middle/middle_test"
