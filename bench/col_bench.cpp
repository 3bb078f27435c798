// acpx-bench bcast / allgather: persistent collective latency, OSU method.
// Per size: create once, warm up, barrier, then a timed loop of rounds
// (send + wait). Each rank averages its rounds; the table gives the mean,
// minimum and maximum of those averages over ranks (osu_bcast's columns);
// the CSV's latency_us is the maximum (the slowest member bounds a round).
// Then two untimed rounds of fresh bytes are checked on every member, as
// the peers do (bench/peers/peer_common.h): a wrong byte is reported, the
// CSV's latency is nan and acpx-bench exits 1.
// The one-time cost of create and free is printed once.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "col_handle.hpp"
#include "peers/peer_common.h"

namespace acpx::bench {

// Rounds per size: the same counts as the peers (bench/peers/*.c).
int rounds_for(const Options &o, size_t size) {
    if (o.quick) return 5;
    // By default (--iters 10000) as peer_rounds (bench/peers/peer_common.h).
    if (size <= 8192) return o.iters;
    const long n = o.iters / 10L * 8192 / static_cast<long>(size);
    return n < 100 ? 100 : static_cast<int>(n);
}

bool time_rounds(bool bcast, bool buffered, std::vector<int> &group, size_t size, int iters, RoundTimes *out,
                 double min_ms, bool malloc_arrays, size_t handle_bytes) {
    const double t0 = now_us();
    Handle x;
    create(x, bcast, buffered, group, std::max(size, handle_bytes), malloc_arrays);
    const double t1 = now_us();
    if (x.h == ACP_COL_NULL) return false;
    out->algo = acp_query_col_algorithm(x.h);
    const int warm = iters / 10 + 1;
    const double warm_start = now_us();
    for (int i = 0; i < warm; ++i)
        if (acp_wait_col(send(x, bcast, buffered, size)) != 0) return false;
    iters = rounds_for_min_ms(iters, (now_us() - warm_start) / warm, min_ms);
    acp_sync();
    const double start = now_us();
    for (int i = 0; i < iters; ++i)
        if (acp_wait_col(send(x, bcast, buffered, size)) != 0) return false;
    const double mine = (now_us() - start) / iters;
    bool right = true;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round)
        right = checked_round(x, bcast, buffered, group, size, round) && right;
    const double t2 = now_us();
    if (acp_free_col(x.h) != 0) return false;
    const double t3 = now_us();
    const Stats s = over_ranks(mine), c = over_ranks(t1 - t0), f = over_ranks(t3 - t2);
    out->avg_us = s.avg;
    out->min_us = s.min;
    out->max_us = s.max;
    out->create_us = c.max;
    out->free_us = f.max;
    out->wrong_ranks = 0;
    for (double w : gather(right ? 0 : 1)) out->wrong_ranks += w > 0;
    return true;
}

int run_collective(const Options &o, bool bcast) {
    const int me = acp_rank(), np = acp_procs();
    const bool buffered = o.storage == "buffered";
    if (!o.exec.empty()) setenv("ACP_COL_EXEC", o.exec.c_str(), 1);
    const char *exec = std::getenv("ACP_COL_EXEC");
    const std::string what = std::string(bcast ? "bcast" : "allgather") + "-" + o.storage + "-" +
                             (exec && *exec ? exec : "delegated") + (o.malloc_memory ? "-malloc" : "") +
                             (o.handle ? "-handle" + std::to_string(o.handle) : "");
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    Csv csv(me == 0 ? o.csv : "");
    if (me == 0) {
        std::printf("# acpx %s latency, %d processes (persistent, %s, transport %s)\n",
                    bcast ? "broadcast" : "allgather", np, what.c_str(), transport_label().c_str());
        std::printf("%-10s %16s %16s %16s %12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
                    "Iterations");
    }
    double create_us = 0, free_us = 0;
    bool wrong = false;
    for (size_t size : sizes(o)) {
        const int iters = rounds_for(o, size);
        RoundTimes t;
        if (o.storage == "one-call"
                ? !time_one_call(bcast, group, size, iters, &t)
                : !time_rounds(bcast, buffered, group, size, iters, &t, 0, o.malloc_memory, o.handle))
            return 1;
        if (create_us == 0) {
            create_us = t.create_us;
            free_us = t.free_us;
        }
        wrong = wrong || t.wrong_ranks > 0;
        if (me == 0) {
            std::printf("%-10zu %16.2f %16.2f %16.2f %12d\n", size, t.avg_us, t.min_us, t.max_us, iters);
            if (t.wrong_ranks > 0)
                std::printf("# %zu: WRONG DATA on %d of %d ranks in the checked rounds: not a latency\n", size,
                            t.wrong_ranks, np);
            std::fflush(stdout);
            const double latency = t.wrong_ranks > 0 ? std::nan("") : t.max_us;
            csv.row(bcast ? "bcast" : "allgather", what, size, latency, size / latency, iters, np, transport_label());
        }
    }
    if (me == 0) std::printf("# create %.1f us, free %.1f us (first size, max over ranks)\n", create_us, free_us);
    return wrong ? 1 : 0;
}

}  // namespace acpx::bench
