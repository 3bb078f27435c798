#!/bin/sh
# Installs, from Debian 12 packages, everything acpx needs to build, test
# and benchmark. Run as root.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential g++ make autoconf automake libtool pkg-config \
    libucx-dev ucx-utils libpmix-dev libhwloc-dev libgtest-dev \
    openmpi-bin libopenmpi-dev \
    ca-certificates procps
