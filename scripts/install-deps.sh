#!/bin/sh
# Installs, from Debian 12 packages, everything acpx needs to build and
# test (python3: the benchmark suites' checks run bench/compare and
# bench/model_check; SimGrid: seed 000's independent check); with --bench also the benchmark peers (MPICH; Open
# MPI, which brings OpenSHMEM, is there already) and what draws the
# plots. Run as root.
#   install-deps.sh [--bench]
set -eu
export DEBIAN_FRONTEND=noninteractive
bench=
[ "${1:-}" = --bench ] && bench="mpich libmpich-dev gnuplot-nox"
apt-get update
# shellcheck disable=SC2086  # $bench is a list of packages
apt-get install -y --no-install-recommends \
    build-essential g++ make autoconf automake libtool pkg-config \
    libucx-dev ucx-utils libfabric-dev libpmix-dev libhwloc-dev libgtest-dev \
    nlohmann-json3-dev python3 libsimgrid-dev \
    openmpi-bin libopenmpi-dev \
    ca-certificates procps clang-format $bench
