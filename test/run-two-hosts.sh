#!/bin/sh
# Runs a multi-process test program under acprun across two emulated
# hosts (test/two_hosts.sh), the lower half of the ranks on one, the upper
# half on the other, and removes the hosts after it, whatever happened.
#   run-two-hosts.sh NP PROGRAM [ARGS...]
# Exit 77 (automake: skipped) where the hosts cannot be made (not root).
np=$1; shift
bed=$(mktemp -d "${TMPDIR:-/tmp}/acpx-bed.XXXXXXXX")
trap 'sh "$ACPX_SRCDIR/test/two_hosts.sh" down "$bed"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
sh "$ACPX_SRCDIR/test/two_hosts.sh" up "$bed" || exit $?
ACPX_TEST_NODES=2; export ACPX_TEST_NODES
"$ACPX_SRCDIR/test/run-mp.sh" acprun "$np" "$ACPX_SRCDIR/test/two_hosts.sh" rank "$bed" "$@"
