// acpx-bench allreduce: persistent allreduce latency, OSU method
// (osu_allreduce): a sum of doubles, size / 8 of them (sizes under 8 B
// are taken as 8).
// Per size: create once, warm up, barrier, a timed loop of rounds (send +
// wait); each rank averages its rounds; the table gives the mean, minimum
// and maximum over ranks, the CSV's latency_us the maximum. Then two
// untimed rounds of small integers (exact in any order) are checked on
// every member, as bench/peers/mpi_coll_bench.c checks MPI's: a wrong
// element is reported, the CSV's latency is nan, and the exit status 1.
// With --noise PERIOD:LEN, --late RANK:US:EVERY or --rounds N (issue 63's
// measurement under jitter): each round timed on its own, without and
// with the noise (peers/peer_noise.h), mean, p99 and p99.9 (run_jitter).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "peers/peer_common.h"
#include "peers/peer_noise.h"

namespace acpx::bench {

namespace {

// This member's element i in checked round `round` (small integers: their
// sum is exact in any order).
double element(int member, int round, size_t i) { return static_cast<double>(peer_pattern(round, member, i)); }

bool checked_round(acp_col_t h, int me, int np, size_t count, int round, std::vector<double> &in,
                   std::vector<double> &out) {
    for (size_t i = 0; i < count; ++i) in[i] = element(me, round, i);
    std::fill(out.begin(), out.end(), -1.0);
    if (acp_wait_col(acp_send_allreduce(h, in.data(), out.data())) != 0) return false;
    for (size_t i = 0; i < count; ++i) {
        double want = 0;
        for (int m = 0; m < np; ++m) want += element(m, round, i);
        if (out[i] == want) continue;
        std::fprintf(stderr, "rank %d: %zu elements, checked round %d: element %zu is %g, not %g\n", me, count, round,
                     i, out[i], want);
        return false;
    }
    return true;
}

// --noise / --late / --rounds: per size, o.rounds (default 10^5) rounds
// timed one by one on every rank, without and then with the noise; the
// mean, p99 and p99.9 of each rank's rounds, the largest over ranks.
int run_jitter(const Options &o, const std::vector<int> &group) {
    const int me = acp_rank(), np = acp_procs();
    peer_noise noise{0, 0};
    peer_late late{-1, 0, 1};
    if (!o.noise.empty()) peer_parse_noise(o.noise.c_str(), &noise);
    if (!o.late.empty()) peer_parse_late(o.late.c_str(), &late);
    const long rounds = o.rounds ? o.rounds : 100000;
    if (me == 0) {
        std::printf(
            "# acpx allreduce (persistent, sum of doubles), %d processes, %ld rounds per size; noise %s us "
            "(PERIOD:LEN), late %s (RANK:US:EVERY); per rank mean, p99, p99.9 of its rounds, the largest "
            "over ranks (us)\n",
            np, rounds, o.noise.empty() ? "none" : o.noise.c_str(), o.late.empty() ? "none" : o.late.c_str());
        std::printf("%-10s %12s %12s %12s %12s %12s %12s\n", "# Size", "mean off", "p99 off", "p99.9 off", "mean on",
                    "p99 on", "p99.9 on");
    }
    std::vector<double> t(static_cast<size_t>(rounds));
    std::vector<int> g = group;
    for (size_t size : sizes(o)) {
        size = std::max<size_t>(size, 8);
        acp_col_t h = acp_create_allreduce(np, g.data(), size / 8, ACP_TYPE_DOUBLE, ACP_OP_SUM);
        if (h == ACP_COL_NULL) return 1;
        std::vector<double> in(size / 8, 1.0), out(size / 8);
        peer_stats st[2] = {};
        for (int on = 0; on < (o.noise.empty() ? 1 : 2); ++on) {
            for (long i = 0; i < rounds / 10 + 1; ++i)
                if (acp_wait_col(acp_send_allreduce(h, in.data(), out.data())) != 0) return 1;
            acp_sync();
            if (on && peer_noise_start(&noise, me, o.noise_seed) != 0) {
                std::perror("acpx-bench allreduce: --noise: timer");
                return 1;
            }
            for (long i = 0; i < rounds; ++i) {
                const double t0 = peer_mono_us();
                peer_late_wait(&late, me, i);
                if (acp_wait_col(acp_send_allreduce(h, in.data(), out.data())) != 0) return 1;
                t[static_cast<size_t>(i)] = peer_mono_us() - t0;
            }
            peer_noise_stop();
            // Every input is 1.0: the last round's sum is np everywhere.
            for (const double v : out)
                if (v != np) {
                    std::fprintf(stderr, "rank %d: %zu bytes: an element is %g after the timed rounds, not %d\n", me,
                                 size, v, np);
                    return 1;
                }
            const peer_stats mine = peer_stats_of(t.data(), t.size());
            st[on] = {over_ranks(mine.mean).max, over_ranks(mine.p99).max, over_ranks(mine.p999).max};
        }
        if (acp_free_col(h) != 0) return 1;
        if (me != 0) continue;
        std::printf("%-10zu %12.2f %12.2f %12.2f", size, st[0].mean, st[0].p99, st[0].p999);
        if (o.noise.empty())
            std::printf(" %12s %12s %12s\n", "-", "-", "-");
        else
            std::printf(" %12.2f %12.2f %12.2f\n", st[1].mean, st[1].p99, st[1].p999);
        std::fflush(stdout);
    }
    return 0;
}

}  // namespace

int run_allreduce(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    if (!o.noise.empty() || !o.late.empty() || o.rounds) return run_jitter(o, group);
    Csv csv(me == 0 ? o.csv : "");
    const std::string what = "allreduce-butterfly";
    if (me == 0) {
        std::printf("# acpx allreduce latency, %d processes (persistent, sum of doubles, transport %s)\n", np,
                    transport_label().c_str());
        std::printf("%-10s %16s %16s %16s %12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
                    "Iterations");
    }
    bool wrong = false;
    std::vector<size_t> todo;  // sizes from one double up, as the MPI peer's
    for (size_t size : sizes(o))
        if (todo.empty() || std::max<size_t>(size, 8) != todo.back()) todo.push_back(std::max<size_t>(size, 8));
    for (size_t size : todo) {
        const size_t count = size / 8;
        acp_col_t h = acp_create_allreduce(np, group.data(), count, ACP_TYPE_DOUBLE, ACP_OP_SUM);
        if (h == ACP_COL_NULL) return 1;
        std::vector<double> in(count, 1.0), out(count);
        int iters = rounds_for(o, size);
        for (int i = 0; i < iters / 10 + 1; ++i)
            if (acp_wait_col(acp_send_allreduce(h, in.data(), out.data())) != 0) return 1;
        acp_sync();
        const double start = now_us();
        for (int i = 0; i < iters; ++i)
            if (acp_wait_col(acp_send_allreduce(h, in.data(), out.data())) != 0) return 1;
        const double mine = (now_us() - start) / iters;
        bool right = true;
        for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round)
            right = checked_round(h, me, np, count, round, in, out) && right;
        if (acp_free_col(h) != 0) return 1;
        const Stats s = over_ranks(mine);
        int wrong_ranks = 0;
        for (double w : gather(right ? 0 : 1)) wrong_ranks += w > 0;
        wrong = wrong || wrong_ranks > 0;
        if (me == 0) {
            std::printf("%-10zu %16.2f %16.2f %16.2f %12d\n", size, s.avg, s.min, s.max, iters);
            if (wrong_ranks > 0)
                std::printf("# %zu: WRONG DATA on %d of %d ranks in the checked rounds: not a latency\n", size,
                            wrong_ranks, np);
            std::fflush(stdout);
            const double latency = wrong_ranks > 0 ? std::nan("") : s.max;
            csv.row("allreduce", what, size, latency, size / latency, iters, np, transport_label());
        }
    }
    return wrong ? 1 : 0;
}

}  // namespace acpx::bench
