#!/bin/sh
# Runs a multi-process test program across two emulated hosts
# (test/two_hosts.sh), the lower half of the ranks on one, the upper half
# on the other, and removes the hosts after it, whatever happened.
#   run-two-hosts.sh acprun|mpirun NP PROGRAM [ARGS...]
# acprun runs on this machine and each rank enters its host; Open MPI's
# mpirun runs in host a's network and starts a daemon on each host through
# a remote shell that enters it (PMIx bootstrap), as on a cluster.
# Exit 77 (automake: skipped) where the hosts cannot be made (not root) or
# mpirun is not installed.
launcher=$1 np=$2; shift 2
hosts="$ACPX_SRCDIR/test/two_hosts.sh"
bed=$(mktemp -d "${TMPDIR:-/tmp}/acpx-bed.XXXXXXXX")
trap 'sh "$hosts" down "$bed"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
sh "$hosts" up "$bed" || exit $?
: "${ACP_TIMEOUT:=60}"
ACPX_TEST_NODES=2 ACPX_TEST_NP=$np
export ACP_TIMEOUT ACPX_TEST_NODES ACPX_TEST_NP
case "$launcher" in
acprun) "$ACPX_BUILDDIR/acprun" -n "$np" "$hosts" rank "$bed" "$@" ;;
mpirun)
    mpirun=$(command -v mpirun.openmpi || true)
    [ -n "$mpirun" ] || { echo "mpirun.openmpi not found: skipped"; exit 77; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    half=$((np / 2))
    # Every variable a suite sets for its ranks goes with them (-x).
    xs=""
    for v in ACP_TIMEOUT ACPX_TEST_NODES ACPX_TEST_NP ACP_TRANSPORT FI_PROVIDER GTEST_FILTER UCX_TLS; do
        eval "[ -n \"\${$v+set}\" ]" && xs="$xs -x $v"
    done
    # --bind-to none: a host's ranks share its cores (two_hosts.sh gives
    # each host half of them) as acprun's do, unbound.
    # shellcheck disable=SC2086  # $xs is a list of options
    sh "$hosts" net "$bed" a "$mpirun" --host "acpx-host-a:$half,acpx-host-b:$((np - half))" -np "$np" --bind-to none \
        --mca plm_rsh_agent "sh $hosts rsh $bed" $xs "$@" ;;
*) echo "run-two-hosts.sh: launcher acprun or mpirun, not $launcher" >&2; exit 2 ;;
esac
