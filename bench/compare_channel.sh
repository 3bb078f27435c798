#!/bin/sh
# ACP channels against MPI_Send/MPI_Recv of MPICH and Open MPI on this
# machine, in one run: 2 ranks, latency (osu_latency's method) and
# bandwidth (osu_bw's), REPEATS launches of each (default 5), interleaved
# so that machine noise hits all alike. Every launch counts: per size the
# median and the range (min-max) over the launches.
#   compare_channel.sh BUILDDIR RESULTSDIR [REPEATS] [--quick]
# Writes RESULTSDIR/channel.csv (every launch's rows; transport column:
# acpx's transport, or mpich / openmpi) and RESULTSDIR/channel.md with
# the ratios the channel targets: 8 B latency <= 1.5x the best MPI's,
# 1 MiB bandwidth >= 0.9x.
set -eu
build=$1 out=$2 reps=${3:-5}
sizes=8:4M iters=""
[ "${4:-}" = --quick ] && sizes=8:1M iters="--iters 1000"
mkdir -p "$out"
csv="$out/channel.csv"
: > "$csv"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
peers=""
for impl in mpich openmpi; do
    prog="$build/bench/peers/mpi_p2p_bench.$impl"
    launcher=$(command -v "mpirun.$impl" || true)
    [ -x "$prog" ] && [ -n "$launcher" ] && peers="$peers $impl"
done
for i in $(seq 1 "$reps"); do
    echo "== launch $i/$reps: acpx-bench channel"
    # shellcheck disable=SC2086  # $iters is empty or two words
    "$build/acprun" -n 2 "$build/acpx-bench" channel --sizes "$sizes" $iters --csv "$csv"
    for impl in $peers; do
        echo "== launch $i/$reps: $impl"
        # shellcheck disable=SC2086
        "mpirun.$impl" -np 2 "$build/bench/peers/mpi_p2p_bench.$impl" --sizes "$sizes" $iters --impl "$impl" \
            --csv "$csv"
    done
done
python3 - "$csv" "$out/channel.md" "$reps" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["benchmark"] == "channel"]
impls = []
for r in rows:
    name = r["transport"] if r["transport"] in ("mpich", "openmpi") else "acpx"
    r["impl"] = name
    if name not in impls: impls.append(name)
def values(impl, op, size):
    col = "latency_us" if op == "latency" else "bandwidth_MBps"
    return [float(r[col]) for r in rows if r["impl"] == impl and r["op"] == op and int(r["size"]) == size]
sizes = sorted({int(r["size"]) for r in rows})
peers = [p for p in impls if p != "acpx"]
lines = [f"# ACP channels against MPI_Send/MPI_Recv, 2 ranks, {sys.argv[3]} launches each (median, range)", ""]
for op, unit, better in (("latency", "us", min), ("bw", "MB/s", max)):
    lines.append(f"## {'Latency (half round trip)' if op == 'latency' else 'Bandwidth (window of 64)'}, {unit}")
    lines.append("")
    lines.append("| size | " + " | ".join(impls) + " | acpx / best MPI |")
    lines.append("|---|" + "---|" * (len(impls) + 1))
    for s in sizes:
        cells, med = [], {}
        for impl in impls:
            v = [x for x in values(impl, op, s) if x == x]
            if not v:
                cells.append("-")
                continue
            med[impl] = statistics.median(v)
            cells.append(f"{med[impl]:.2f} ({min(v):.2f}-{max(v):.2f})" if op == "latency"
                         else f"{med[impl]:.0f} ({min(v):.0f}-{max(v):.0f})")
        best = better([med[p] for p in peers if p in med], default=None)
        ratio = f"{med['acpx'] / best:.2f}x" if best and "acpx" in med else "-"
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {ratio} |")
    lines.append("")
def ratio(op, size, better):
    if "acpx" not in impls: return None
    a = [x for x in values("acpx", op, size) if x == x]
    b = [statistics.median([x for x in values(p, op, size) if x == x] or [float("nan")]) for p in peers]
    b = [x for x in b if x == x]
    return statistics.median(a) / better(b) if a and b else None
lat8, bw1m = ratio("latency", 8, min), ratio("bw", 1 << 20, max)
lines.append("## Targets")
lines.append("")
if lat8 is not None:
    lines.append(f"- 8 B latency: {lat8:.2f}x the best MPI (target <= 1.5x): {'met' if lat8 <= 1.5 else 'NOT met'}")
if bw1m is not None:
    lines.append(f"- 1 MiB bandwidth: {bw1m:.2f}x the best MPI (target >= 0.9x): {'met' if bw1m >= 0.9 else 'NOT met'}")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
