#!/bin/sh
# Runs a multi-process test program under a launcher.
#   run-mp.sh acprun|mpirun NP PROGRAM [ARGS...]
# Exit 77 (automake: skipped) when the launcher is not installed.
launcher=$1 np=$2; shift 2
: "${ACP_TIMEOUT:=60}"; export ACP_TIMEOUT
ACPX_TEST_NP=$np; export ACPX_TEST_NP  # mp_main.cpp: acp_procs() must equal it
case "$launcher" in
  acprun) exec "${ACPX_BUILDDIR:-.}/acprun" -n "$np" "$@" ;;
  mpirun)
    # Open MPI's (PMIx); with MPICH installed too, plain mpirun may be MPICH's.
    mpirun=$(command -v mpirun.openmpi || command -v mpirun || true)
    [ -n "$mpirun" ] || { echo "mpirun not found: skipped"; exit 77; }
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # Every variable a suite sets for its ranks goes with them (-x).
    xs=""
    for v in ACP_TRANSPORT ACP_CMA FI_PROVIDER GTEST_FILTER UCX_TLS; do
        eval "[ -n \"\${$v+set}\" ]" && xs="$xs -x $v"
    done
    # shellcheck disable=SC2086  # $xs is a list of options
    exec "$mpirun" --oversubscribe -np "$np" -x ACP_TIMEOUT -x ACPX_TEST_NP $xs "$@" ;;
  *) echo "run-mp.sh: unknown launcher $launcher" >&2; exit 2 ;;
esac
