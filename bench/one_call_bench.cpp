// acpx-bench bcast|allgather --mode one-call: acp_bcast / acp_allgather
// (cached handles behind them, acp.h) timed by the OSU method of
// col_bench.cpp: the first call of a size, which creates its handle, apart
// (create_us); warm-up, barrier, a timed loop; then two checked rounds of
// fresh bytes (col_handle.hpp), as the handle benchmarks check theirs.
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "col_handle.hpp"
#include "peers/peer_common.h"

namespace acpx::bench {

bool time_one_call(bool bcast, std::vector<int> &group, size_t size, int iters, RoundTimes *out) {
    const int n = static_cast<int>(group.size());
    const size_t block = size ? size : 1;
    // A buffered handle's layout: bcast into x.array, allgather from x.in into x.out.
    Handle x;
    if (bcast) {
        x.array.assign(block, 1, false);
    } else {
        x.in.assign(block, 1);
        x.out.assign(block * n, 0);
    }
    auto call = [&] {
        return (bcast ? acp_bcast(group[0], n, group.data(), x.array.data(), size)
                      : acp_allgather(n, group.data(), x.in.data(), x.out.data(), size)) == 0;
    };
    const double t0 = now_us();
    if (!call()) return false;
    const double first = now_us() - t0;
    for (int i = 0; i < iters / 10 + 1; ++i)
        if (!call()) return false;
    acp_sync();
    const double start = now_us();
    for (int i = 0; i < iters; ++i)
        if (!call()) return false;
    const double avg = (now_us() - start) / iters;
    bool right = true;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round)
        right = checked_round(x, bcast, true, group, size, round, call) && right;
    const Stats s = over_ranks(avg);
    out->avg_us = s.avg;
    out->min_us = s.min;
    out->max_us = s.max;
    out->create_us = over_ranks(first).max;
    out->free_us = 0;  // the cache keeps the handle until acp_finalize
    out->algo = "one-call";
    out->wrong_ranks = 0;
    for (double w : gather(right ? 0 : 1)) out->wrong_ranks += w > 0;
    return true;
}

}  // namespace acpx::bench
