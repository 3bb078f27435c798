#!/bin/sh
# Runs a multi-process test program under acprun with every rank's
# process_vm_readv/writev refused by a seccomp filter (ACPX_TEST_DENY_CMA,
# test/deny_cma.hpp), as a container's profile or Yama's ptrace policy
# refuses them: every copy must still arrive, through the transport, and
# each rank must say so exactly once (a warning a copy would flood stderr).
#   run-cma-denied.sh NP PROGRAM [ARGS...]
np=$1; shift
ACPX_TEST_DENY_CMA=1; export ACPX_TEST_DENY_CMA
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
"$ACPX_SRCDIR/test/run-mp.sh" acprun "$np" "$@" 2> "$err"
rc=$?
cat "$err" >&2
[ "$rc" -eq 0 ] || exit "$rc"
r=0
while [ "$r" -lt "$np" ]; do
  n=$(grep -c "warning: rank $r: Cross-Memory Attach to rank [0-9]* refused (Operation not permitted" "$err")
  [ "$n" -eq 1 ] || { echo "rank $r: $n warnings of the refused Cross-Memory Attach, expected 1" >&2; exit 1; }
  r=$((r + 1))
done
