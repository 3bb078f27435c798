#!/bin/sh
# Installs the Debian packages, builds acpx, and runs the main job:
#  1. acp_copy against ucx_perftest: results/copy.csv, perftest.csv, summary.md;
#  2. the collectives' model: calibration, then predicted against measured
#     for every algorithm at 2, 3 and 4 processes, 3 launches each (up to
#     3 more where launches find the machine changed since their calibration)
#     (bench/model_check): results/calibration.json, model_check.csv,
#     model_check-np{2,3,4}.txt, model-check-np{2,3,4}.png;
#  3. persistent bcast/allgather against MPICH, Open MPI and OpenSHMEM at 2
#     and 4 processes (bench/compare): results/collectives.{csv,md}, PNGs,
#     with acpx choosing its algorithms from that calibration, as a user's
#     job on this machine would.
# Everything is measured in the same run on this machine, which is first
# checked for other busy processes (results/machine.txt; a warning only).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
sh "$src/scripts/install-deps.sh" --bench
sh "$src/scripts/build.sh" "$src/_build" --enable-werror
mkdir -p "$src/results"
sh "$src/bench/quiet_check.sh" | tee "$src/results/machine.txt"
sh "$src/bench/compare_copy.sh" "$src/_build" "$src/results"
python3 "$src/bench/model_check" "$src/_build" "$src/results"
ACP_CALIBRATION="$src/results/calibration.json" python3 "$src/bench/compare" "$src/_build" "$src/results"
