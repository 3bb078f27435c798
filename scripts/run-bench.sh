#!/bin/sh
# Installs the Debian packages, builds acpx, and runs the main job: the
# basic-layer benchmark against ucx_perftest, measured in the same run.
# Results: results/copy.csv, results/perftest.csv, results/summary.md
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
sh "$src/scripts/install-deps.sh" --bench
sh "$src/scripts/build.sh" "$src/_build" --enable-werror
mkdir -p "$src/results"
sh "$src/bench/compare_copy.sh" "$src/_build" "$src/results"
