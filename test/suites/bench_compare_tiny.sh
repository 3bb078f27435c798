#!/bin/sh
# bench/compare in its tiny mode at 2 processes: acpx and every peer that
# configure built run, and collectives.csv / collectives.md come out with a
# row per implementation. Skipped (77) without python3.
set -eu
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 "$ACPX_SRCDIR/bench/compare" "$ACPX_BUILDDIR" "$out" --tiny --np 2
head -1 "$out/collectives.csv" | grep -qx 'benchmark,implementation,ranks,size,latency_us,min_us,max_us,runs,far_runs' \
    || { echo "bad header: $(head -1 "$out/collectives.csv")"; exit 1; }
# --tiny runs no placement probe: every run's pair state is '-'.
awk -F, 'NR > 1 && $7 != "-" { bad = 1 } END { exit bad }' "$out/collectives-raw.csv" \
    || { echo "a pair state without the probe:"; cat "$out/collectives-raw.csv"; exit 1; }
# A point's figure: the median of every run (none left out), their range,
# count and far runs; a point with wrong data has none. And the order of
# the runs per repetition.
python3 - "$ACPX_SRCDIR/bench/compare" <<'PY' || exit 1
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("compare", sys.argv[1])
compare = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", loader))
loader.exec_module(compare)
a, b, c, w = [("bcast", "acpx-direct-delegated", 4, s) for s in (1, 2, 3, 4)]
got = compare.medians({a: [(22.5, "near"), (46.5, "far"), (46.6, "far")], b: [(3.0, "far"), (5.0, "far")],
                       c: [(1.0, "-"), (2.0, "-"), (9.0, "-")], w: [(1.0, "near")]}, {w})
want = {a: (46.5, 22.5, 46.6, 3, 2), b: (4.0, 3.0, 5.0, 2, 2), c: (2.0, 1.0, 9.0, 3, 0)}
if got != want:
    sys.exit(f"medians: {got}, want {want}")
# What was left out is said: a failed run, and the sizes a peer has no time at.
stats = {("bcast", "acpx-direct-delegated", 2, s): (1.0, 1.0, 1.0, 1, 0) for s in (1, 2)}
stats[("bcast", "mpich-MPI_Bcast", 2, 1)] = (2.0, 2.0, 2.0, 1, 0)
lines = compare.missing_lines(stats, [(1, 2, "bcast", "mpich", 139, "Segmentation fault")], set(), [2])
for want in ("- bcast, mpich, 2 processes, repetition 1: exit 139: Segmentation fault",
             "- bcast, mpich-MPI_Bcast, 2 processes, bytes: 2"):
    if want not in lines:
        sys.exit(f"missing_lines: no {want!r} in {lines}")
if compare.missing_lines({k: v for k, v in stats.items() if k[3] == 1}, [], set(), [2]):
    sys.exit("missing_lines: something left out of a complete run")
# Each repetition runs everything once, starting at a different run.
todo = list(range(12))
reps = [compare.rotated(todo, r, 3) for r in (1, 2, 3)]
if any(sorted(r) != todo for r in reps) or len({r[0] for r in reps}) != 3 or reps[0] != todo:
    sys.exit(f"rotated: {reps}")
if compare.rotated([7], 2, 3) != [7] or compare.rotated([], 1, 3) != []:
    sys.exit("rotated: one run or none")
PY
expect="acpx-direct-delegated acpx-direct-root acpx-buffered-delegated acpx-one-call-delegated acpx-direct-delegated-malloc"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.openmpi" ] && expect="$expect openmpi-MPI_Bcast openmpi-MPIX_Bcast_init"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.mpich" ] && expect="$expect mpich-MPI_Bcast mpich-MPI_Bcast_init"
[ -x "$ACPX_BUILDDIR/bench/peers/shmem_coll_bench" ] && expect="$expect oshmem-shmem_broadcast64"
for impl in $expect; do
    for size in 1 65536; do
        grep -q "^bcast,$impl,2,$size," "$out/collectives.csv" || { echo "no row: bcast $impl $size"; cat "$out/collectives.csv"; exit 1; }
    done
done
# The allreduce: acpx's and each MPI's (a sum of doubles; the tiny run's
# sizes from 8 B: 64 KiB only), with its table.
ar="acpx-butterfly"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.openmpi" ] && ar="$ar openmpi-MPI_Allreduce openmpi-MPIX_Allreduce_init"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.mpich" ] && ar="$ar mpich-MPI_Allreduce mpich-MPI_Allreduce_init"
for impl in $ar; do
    grep -q "^allreduce,$impl,2,65536," "$out/collectives.csv" || { echo "no row: allreduce $impl"; cat "$out/collectives.csv"; exit 1; }
done
grep -q "^## allreduce, 2 processes" "$out/collectives.md" || { echo "no allreduce summary"; exit 1; }
grep -q "^## bcast, 2 processes" "$out/collectives.md" || { echo "no summary"; exit 1; }
for kind in bcast allgather; do  # the one-call line under each table (issue #65's target)
    sed -n "/^## $kind, 2 processes/,/^## /p" "$out/collectives.md" |
        grep -q "^One-call over the explicit buffered handle" || { echo "no one-call line: $kind"; exit 1; }
    sed -n "/^## $kind, 2 processes/,/^## /p" "$out/collectives.md" |
        grep -q "^Direct, arrays in acp_malloc memory" || { echo "no acp_malloc line: $kind"; exit 1; }
done
# The checked rounds are accounted for; acpx is never among the points left out.
grep -q -e "^Every point's checked rounds" -e "^\*\*Left out: wrong data" "$out/collectives.md" \
    || { echo "no account of the checked rounds"; exit 1; }
if grep -q "^- .*, acpx-" "$out/collectives.md"; then
    echo "acpx delivered wrong bytes:"; grep "^- " "$out/collectives.md"; exit 1
fi
# Memory: acpx's per-handle figures with a non-zero query, and a row per MPI peer.
awk -F, '$1 == "acpx" && $2 == "bcast-direct" && $5 == 2 && $6 > 0 && $8 > 0 { ok = 1 } END { exit !ok }' \
    "$out/memory.csv" || { echo "no acpx memory row"; cat "$out/memory.csv"; exit 1; }
for peer in mpich openmpi; do
    [ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.$peer" ] || continue
    grep -q "^$peer,bcast-persistent,-,-,2," "$out/memory.csv" || { echo "no $peer memory row"; cat "$out/memory.csv"; exit 1; }
done
# A channel's two ends and acp_malloc's blocks hold bytes (RSS growth; a
# 64 KiB block at least its bytes' pages).
awk -F, '$1 == "acpx" && $2 == "channel" && $7 > 0 && $9 > 0 { ok = 1 } END { exit !ok }' "$out/memory.csv" \
    || { echo "no channel memory row"; cat "$out/memory.csv"; exit 1; }
awk -F, '$1 == "acpx" && $2 == "acp_malloc" && $3 == "64KiB" && $9 >= 60000 { ok = 1 } END { exit !ok }' \
    "$out/memory.csv" || { echo "no acp_malloc memory row"; cat "$out/memory.csv"; exit 1; }
# The control blocks' arenas: at least the first one (256 KiB).
awk -F, '$1 == "acpx" && $2 == "control_arenas" && $8 >= 262144 { ok = 1 } END { exit !ok }' "$out/memory.csv" \
    || { echo "no control_arenas memory row"; cat "$out/memory.csv"; exit 1; }
# The eager pool: 1 MiB by default, which handles over their inline slots
# use (the table's, 64 KiB: a delegated bcast handle's slots one line
# each, a few KiB, not tens); with ACP_COL_POOL=1M every handle does.
awk -F, '$1 == "acpx" && $2 == "eager_pool" && $8 == 1048576 { ok = 1 } END { exit !ok }' "$out/memory.csv" \
    || { echo "no default eager_pool row"; cat "$out/memory.csv"; exit 1; }
awk -F, '$1 == "acpx" && $2 == "bcast-direct" && $4 == "delegated" && $8 > 0 && $8 <= 4096 { ok = 1 }
         END { exit !ok }' "$out/memory.csv" || { echo "no default bcast row within 4 KiB"; cat "$out/memory.csv"; exit 1; }
awk -F, '$1 == "acpx ACP_COL_POOL=1M" && $2 == "eager_pool" && $8 == 1048576 { ok = 1 } END { exit !ok }' \
    "$out/memory.csv" || { echo "no pooled eager_pool row"; cat "$out/memory.csv"; exit 1; }
awk -F, '$1 == "acpx ACP_COL_POOL=1M" && $2 == "bcast-direct" && $4 == "delegated" && $8 > 0 && $8 <= 4096 { ok = 1 }
         END { exit !ok }' "$out/memory.csv" || { echo "no pooled bcast row within 4 KiB"; cat "$out/memory.csv"; exit 1; }
grep -q "^## Memory per process" "$out/collectives.md" || { echo "no memory summary"; exit 1; }
# Overlap: acpx with and without the agent and each MPI peer, bcast and
# allgather, an overlap % in [0, 100] per point; its section in the report.
ov="acpx acpx-calls"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.openmpi" ] && ov="$ov openmpi"
[ -x "$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.mpich" ] && ov="$ov mpich mpich-async"
for impl in $ov; do
    awk -F, -v i="$impl" '$1 == "bcast" && $2 == i && $3 == 2 && $4 == 65536 && $5 >= 0 && $5 <= 100 { ok = 1 }
        END { exit !ok }' "$out/overlap.csv" || { echo "no overlap row: bcast $impl"; cat "$out/overlap.csv"; exit 1; }
done
for kind in bcast allgather; do
    grep -q "^$kind,acpx,2,1," "$out/overlap.csv" || { echo "no overlap row: $kind acpx"; cat "$out/overlap.csv"; exit 1; }
done
grep -q "^## Overlap: rounds while the members compute" "$out/collectives.md" || { echo "no overlap summary"; exit 1; }
# Across two emulated hosts, one rank on each: a row per implementation,
# and said in the report.
python3 "$ACPX_SRCDIR/bench/compare" "$ACPX_BUILDDIR" "$out/hosts" --tiny --np 2 --two-hosts > "$out/hosts.txt" 2>&1 \
    || { echo "--two-hosts failed:"; cat "$out/hosts.txt"; exit 1; }
for impl in $expect; do
    grep -q "^bcast,$impl,2,65536," "$out/hosts/collectives.csv" \
        || { echo "--two-hosts: no row: bcast $impl"; cat "$out/hosts/collectives.csv" "$out/hosts.txt"; exit 1; }
done
grep -q "^Across two emulated hosts" "$out/hosts/collectives.md" || { echo "--two-hosts: not said"; exit 1; }
# Its memory table: acpx's handles measured on the two hosts.
grep -q '^acpx,bcast-direct,binomial,delegated,2,' "$out/hosts/memory.csv" \
    || { echo "--two-hosts: no memory row for acpx"; cat "$out/hosts/memory.csv" "$out/hosts.txt"; exit 1; }
echo "bench_compare_tiny: ok ($expect)"
