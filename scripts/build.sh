#!/bin/sh
# Builds acpx out of tree: scripts/build.sh BUILDDIR [configure options...]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$1; shift
[ -x "$src/configure" ] || (cd "$src" && autoreconf -fi)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$src/configure" "$@"
make -j"$(nproc)"
