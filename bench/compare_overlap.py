"""bench/compare's overlap phase: rounds while the members compute.

acpx-bench overlap (ACP_PROGRESS=agent, the default, and =calls) against
the MPI peers' persistent collectives (mpi_coll_bench --overlap), MPICH
also with its progress thread (MPIR_CVAR_ASYNC_PROGRESS=1), bcast and
allgather, REPEATS interleaved launches each, every run counted. Per
point the median overlap % and overall time, with their ranges; writes
overlap.csv, overlap-<kind>-np<N>.png and the lines collectives.md gets.
"""
import csv
import math
import os
import statistics
import subprocess
import tempfile
from collections import defaultdict

OVERLAP_KINDS = ("bcast", "allgather")


def overlap_runs(b, peers, sizes_arg, tiny, hosts, env_mpi):
    """(label, argv_of(n), env): acpx twice, each MPI peer (and MPICH async) per kind."""
    q = ["--quick"] if tiny else []
    on_hosts = hosts.acprun_rank() if hosts else []
    acpx = lambda n: ([os.path.join(b, "acprun"), "-n", str(n)] + on_hosts
                      + [os.path.join(b, "acpx-bench"), "overlap", "--sizes", sizes_arg] + q)
    out = [("acpx", acpx, {}), ("acpx-calls", acpx, {"ACP_PROGRESS": "calls"})]
    for name, path, launcher, extra in peers:
        if name == "oshmem":
            continue
        variants = [(name, {})] + ([("mpich-async", {"MPIR_CVAR_ASYNC_PROGRESS": "1"})] if name == "mpich" else [])
        for label, env in variants:
            # Debian 12's MPICH 4.0.2: MPI_Allgather_init delivers wrong blocks (bench/README.md),
            # and with the progress thread on it hung across two hosts: bcast only there.
            for kind in OVERLAP_KINDS if label != "mpich-async" else ("bcast",):
                out.append((label, lambda n, launcher=launcher, extra=extra, path=path, kind=kind, name=name, label=label:
                            (hosts.mpi(name, launcher, n) if hosts else [launcher]) + extra
                            + ["-np", str(n), path, kind, "--overlap", "--sizes", sizes_arg, "--impl", label] + q,
                            {**(env_mpi if name != "mpich" else {}), **env}))
    return out


def run_overlap(b, outdir, peers, nps, repeats, sizes_arg, tiny, hosts, env_mpi, settle, gnuplot, log, limit):
    """Measures; returns collectives.md's overlap section (a list of lines). A launch
    that has not ended after `limit` seconds is stopped and counts as failed; settle
    and gnuplot are compare's (quiet CPUs before a launch; a plot if gnuplot is here)."""
    todo = overlap_runs(b, peers, sizes_arg, tiny, hosts, env_mpi)
    samples = defaultdict(list)  # (kind, impl, n, size) -> [(overlap %, overall us)]
    failures, wrong = [], set()
    for rep in range(1, repeats + 1):
        for n in nps:
            shift = (rep - 1) % len(todo)
            for label, argv_of, env in todo[shift:] + todo[:shift]:
                with tempfile.NamedTemporaryFile(suffix=".csv", delete=False) as tmp:
                    path = tmp.name
                os.unlink(path)
                log(f"overlap: repeat {rep}  np {n}  {label}")
                settle()
                try:
                    r = subprocess.run(argv_of(n) + ["--csv", path], env={**os.environ, **env},
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                       timeout=limit)
                    code, err = r.returncode, r.stderr
                except subprocess.TimeoutExpired:
                    code, err = "timeout", f"no end after {limit} s"
                if not os.path.exists(path):
                    failures.append(f"{label}, {n} processes, repetition {rep}: exit {code}: "
                                    + (err.strip().splitlines() or ["(nothing on stderr)"])[-1][-200:])
                    continue
                with open(path) as f:
                    for row in csv.DictReader(f):
                        kind = row["op"].split("-", 1)[0]
                        key = (kind, label, int(row["ranks"]), int(row["size"]))
                        pct = float(row["overlap_pct"])
                        if math.isnan(pct):
                            wrong.add(key)
                        else:
                            samples[key].append((pct, float(row["overall_us"]), float(row["pure_us"])))
                os.unlink(path)
    med = {}
    with open(os.path.join(outdir, "overlap.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["benchmark", "implementation", "ranks", "size", "overlap_pct", "min_pct", "max_pct",
                    "overall_us", "pure_us", "runs"])
        for key in sorted(samples):
            if key in wrong:
                continue
            pcts = [p for p, _, _ in samples[key]]
            med[key] = (statistics.median(pcts), min(pcts), max(pcts),
                        statistics.median(o for _, o, _ in samples[key]),
                        statistics.median(p for _, _, p in samples[key]))
            w.writerow(list(key) + [f"{v:.3f}" for v in med[key]] + [len(pcts)])
    return summary(outdir, med, nps, repeats, failures, wrong, gnuplot)


def plot(outdir, kind, n, med, impls, sizes, gnuplot):
    data = os.path.join(outdir, f"overlap-{kind}-np{n}.dat")
    with open(data, "w") as f:
        f.write("size " + " ".join(impls) + "\n")
        for s in sizes:
            f.write(f"{s} " + " ".join(str(med[(kind, i, n, s)][0]) if (kind, i, n, s) in med else "NaN"
                                       for i in impls) + "\n")
    lines = ", ".join(f"'{data}' using 1:{c + 2} with linespoints title '{i}'" for c, i in enumerate(impls))
    gnuplot(f"""set terminal png size 1000,650
set output '{os.path.join(outdir, f"overlap-{kind}-np{n}.png")}'
set title '{kind}: overlap of a persistent round with compute, {n} processes (osu_ibcast method; median)'
set logscale x
set yrange [0:105]
set xlabel 'bytes'
set ylabel 'overlap (%)'
set key left top
set grid
plot {lines}
""")


def summary(outdir, med, nps, repeats, failures, wrong, gnuplot):
    out = ["## Overlap: rounds while the members compute", "",
           "osu_ibcast's method (bench/overlap_bench.cpp): per size the pure round time t; then rounds of",
           "send, a calibrated compute loop of t (no call into the library), wait; overlap % = 100 x",
           "(1 - (overall - compute) / t), compute timed inside the loop. acpx: ACP_PROGRESS=agent (the",
           "default) and =calls; MPI: MPI_Bcast_init / MPI_Allgather_init (Open MPI: MPIX_) + MPI_Start,",
           "compute, MPI_Wait; mpich-async: MPIR_CVAR_ASYNC_PROGRESS=1. Target (issue #65): acpx >= 90%",
           "from 64 KiB where the peers without a progress thread are below 50%. Where every rank has a",
           "core and computes, the bytes of a round on one node (and over this bed's emulated network)",
           f"are moved by those same cores. Median of {repeats} launches (range in overlap.csv).", ""]
    if failures:
        out += ["Runs that failed:", ""] + [f"- {x}" for x in failures] + [""]
    if wrong:
        out += ["Left out, wrong bytes in the checked rounds: " + ", ".join(
            f"{k} {i} np{n} {s} B" for k, i, n, s in sorted(wrong)), ""]
    for kind in OVERLAP_KINDS:
        for n in nps:
            impls = sorted({i for (k, i, r, _) in med if k == kind and r == n})
            sizes = sorted({s for (k, _, r, s) in med if k == kind and r == n})
            if not impls:
                continue
            plot(outdir, kind, n, med, impls, sizes, gnuplot)
            out += [f"### {kind}, {n} processes: overlap % (overall us)", "",
                    "| size | " + " | ".join(impls) + " | target |", "|---:|" + "---:|" * len(impls) + "---|"]
            for s in sizes:
                cells = [f"{med[(kind, i, n, s)][0]:.0f} ({med[(kind, i, n, s)][3]:.1f})" if (kind, i, n, s) in med
                         else "-" for i in impls]
                peers = [med[(kind, i, n, s)][0] for i in impls
                         if not i.startswith("acpx") and i != "mpich-async" and (kind, i, n, s) in med]
                mine = med.get((kind, "acpx", n, s))
                verdict = "-"
                if s >= 65536 and mine and peers and max(peers) < 50:
                    verdict = "met" if mine[0] >= 90 else "**missed**"
                out.append(f"| {s} | " + " | ".join(cells) + f" | {verdict} |")
            out.append("")
    out.append("Table: overlap.csv; plots: overlap-<kind>-np<N>.png.")
    return out
