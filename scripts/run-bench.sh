#!/bin/sh
# Installs the Debian packages, builds acpx, and runs the main job: acpx's
# persistent bcast, allgather and allreduce against MPICH, Open MPI and
# OpenSHMEM (no reduction there),
# latency and memory, in the same run on this machine:
#  1. a quiet check: results/machine.txt (a warning only);
#  2. this machine's calibration for the collectives' model, on 2 ranks
#     (results/calibration.json), so that acpx picks its algorithms from
#     this machine's figures, as a user's job would after calibrating;
#  3. bench/compare at 2 processes (a core each on a 2-core machine), 5
#     launches of every implementation, interleaved: results/collectives.md
#     (ratios against the targets, what was left out and why, memory),
#     collectives.csv, collectives-raw.csv (every run), *-np2*.png.
# --full adds, after those (an hour on 2 cores):
#  4. bench/compare at 2 and 4 processes, 3 launches (4 processes crowd 2
#     cores: a correctness check, not a figure to tune for);
#  5. acp_copy against ucx_perftest, UCX and libfabric side by side
#     (bench/compare_copy.sh): results/copy.csv, perftest.csv, summary.md;
#  6. the model against measurements at 2, 3 and 4 processes, 3 launches
#     each (bench/model_check): results/model/;
#  7. bench/compare across two emulated hosts (test/two_hosts.sh), one
#     rank on each, 3 launches: results/two-hosts/; and acp_copy there
#     against ucx_perftest and raw TCP (bench/floor_two_hosts.sh):
#     results/two-hosts/floor.md.
#   run-bench.sh [--full]
set -eu
full=0
case "${1:-}" in
    --full) full=1 ;;
    "") ;;
    *) echo "usage: run-bench.sh [--full]" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
res="$src/results"
start=$(date +%s)
since() { echo "$(($(date +%s) - start)) s"; }
sh "$src/scripts/install-deps.sh" --bench
sh "$src/scripts/build.sh" "$src/_build" --enable-werror
echo "=== installed and built in $(since)"
mkdir -p "$res"
sh "$src/bench/quiet_check.sh" | tee "$res/machine.txt"
"$src/_build/acprun" --bind-to core -n 2 "$src/_build/acpx-bench" calibrate --out "$res/calibration.json" \
    > "$res/calibration.txt"
echo "=== calibrated in $(since): results/calibration.json"
export ACP_CALIBRATION="$res/calibration.json"
python3 "$src/bench/compare" "$src/_build" "$res" --np 2 --repeats 5
echo "=== main job done in $(since): results/collectives.md"
[ "$full" = 1 ] || exit 0
python3 "$src/bench/compare" "$src/_build" "$res/np2-4" --np 2,4 --repeats 3
sh "$src/bench/compare_copy.sh" "$src/_build" "$res"
python3 "$src/bench/model_check" "$src/_build" "$res/model" --np 2,3,4
python3 "$src/bench/compare" "$src/_build" "$res/two-hosts" --two-hosts --np 2 --repeats 3
sh "$src/bench/floor_two_hosts.sh" "$src/_build" "$res/two-hosts" 3
echo "=== --full done in $(since): results/np2-4/, results/summary.md, results/model/, results/two-hosts/"
