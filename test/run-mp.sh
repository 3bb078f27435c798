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
    exec "$mpirun" --oversubscribe -np "$np" -x ACP_TIMEOUT -x ACPX_TEST_NP "$@" ;;
  *) echo "run-mp.sh: unknown launcher $launcher" >&2; exit 2 ;;
esac
