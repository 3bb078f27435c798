// acpx-bench overlap: how much of a persistent round runs while its
// members compute, osu_ibcast's way. Per collective (bcast, allgather) and
// size, on one handle:
//   pure     rounds of send + wait, as acpx-bench bcast times them;
//   compute  a busy loop of dependent floating-point work, calibrated to
//            last the slowest member's pure round;
//   overall  rounds of send, that loop (no acpx call), wait; the loop's
//            time inside them is `compute`, its time alone `alone`.
// overlap % = 100 x (1 - (overall - compute) / pure) from the means over
// ranks, clamped to [0, 100], as osu_ibcast computes it. Where the round's
// work takes the computing thread's core (a copy between two ranks of one
// node, each on a core of its own), compute exceeds alone by that work:
// the round overlapped, the core did not get it for free.
// Then two checked rounds (col_handle.hpp). The MPI peer:
// mpi_coll_bench --overlap.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "col_handle.hpp"
#include "peers/peer_common.h"
#include "peers/peer_compute.h"

namespace acpx::bench {
namespace {

struct Overlap {
    double overall = 0, compute = 0, alone = 0, pure = 0, percent = 0;
    bool right = true;
};

// One size of one collective; false if a round failed (acpx said why).
bool measure(bool bcast, bool buffered, std::vector<int> &group, size_t size, int iters, double step_ns, Overlap *out) {
    Handle x;
    create(x, bcast, buffered, group, size, false);
    if (x.h == ACP_COL_NULL) return false;
    auto round = [&] { return acp_wait_col(send(x, bcast, buffered, size)) == 0; };
    for (int i = 0; i < iters / 10 + 1; ++i)
        if (!round()) return false;
    acp_sync();
    double t0 = now_us();
    for (int i = 0; i < iters; ++i)
        if (!round()) return false;
    const double pure = (now_us() - t0) / iters;
    const long steps = std::max(1L, std::lround(over_ranks(pure).max * 1e3 / step_ns));
    t0 = now_us();
    for (int i = 0; i < iters; ++i) peer_compute(steps);
    const double alone = (now_us() - t0) / iters;
    acp_sync();
    double inside = 0;
    t0 = now_us();
    for (int i = 0; i < iters; ++i) {
        const acp_request_t r = send(x, bcast, buffered, size);
        const double c0 = now_us();
        peer_compute(steps);
        inside += now_us() - c0;
        if (acp_wait_col(r) != 0) return false;
    }
    const double overall = (now_us() - t0) / iters;
    for (int r = 1; r <= PEER_CHECKED_ROUNDS; ++r)
        out->right = checked_round(x, bcast, buffered, group, size, r) && out->right;
    if (acp_free_col(x.h) != 0) return false;
    out->overall = over_ranks(overall).avg;
    out->compute = over_ranks(inside / iters).avg;
    out->alone = over_ranks(alone).avg;
    out->pure = over_ranks(pure).avg;
    out->percent = std::clamp(100.0 * (1.0 - (out->overall - out->compute) / out->pure), 0.0, 100.0);
    for (double w : gather(out->right ? 0 : 1)) out->right = out->right && w == 0;
    return true;
}

}  // namespace

int run_overlap(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    const bool buffered = o.storage == "buffered";
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    const double step_ns = over_ranks(peer_ns_per_step()).max;
    FILE *csv = nullptr;
    if (me == 0 && !o.csv.empty()) {
        const bool fresh = !std::fopen(o.csv.c_str(), "r");
        csv = std::fopen(o.csv.c_str(), "a");
        if (!csv) std::perror(o.csv.c_str());
        if (csv && fresh)
            std::fprintf(csv,
                         "benchmark,op,size,overall_us,compute_us,alone_us,pure_us,overlap_pct,iterations,ranks,"
                         "transport\n");
    }
    bool wrong = false;
    for (bool bcast : {true, false}) {
        const std::string what = std::string(bcast ? "bcast" : "allgather") + "-" + o.storage;
        if (me == 0) {
            std::printf("# acpx %s overlap, %d processes (persistent, %s, transport %s)\n",
                        bcast ? "broadcast" : "allgather", np, what.c_str(), transport_label().c_str());
            std::printf("%-10s %14s %14s %14s %16s %12s %12s\n", "# Size", "Overall(us)", "Compute(us)", "Alone(us)",
                        "Pure Comm.(us)", "Overlap(%)", "Iterations");
        }
        for (size_t size : sizes(o)) {
            const int iters = rounds_for(o, size);
            Overlap v;
            if (!measure(bcast, buffered, group, size, iters, step_ns, &v)) return 1;
            wrong = wrong || !v.right;
            if (me != 0) continue;
            std::printf("%-10zu %14.2f %14.2f %14.2f %16.2f %12.1f %12d\n", size, v.overall, v.compute, v.alone, v.pure,
                        v.percent, iters);
            if (!v.right) std::printf("# %zu: WRONG DATA in the checked rounds: not a figure\n", size);
            std::fflush(stdout);
            if (csv)
                std::fprintf(csv, "overlap,%s,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,%d,%d,%s\n", what.c_str(), size, v.overall,
                             v.compute, v.alone, v.pure, v.right ? v.percent : std::nan(""), iters, np,
                             transport_label().c_str());
        }
    }
    if (csv) std::fclose(csv);
    return wrong ? 1 : 0;
}

}  // namespace acpx::bench
