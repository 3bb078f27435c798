// acpx-bench bcast|allgather --mode one-call: acp_bcast / acp_allgather
// (cached handles behind them, acp.h) timed by the OSU method of
// col_bench.cpp: the first call of a size, which creates its handle, apart
// (create_us); warm-up, barrier, a timed loop; then two checked rounds of
// fresh bytes, as the handle benchmarks check theirs.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "peers/peer_common.h"

namespace acpx::bench {

bool time_one_call(bool bcast, std::vector<int> &group, size_t size, int iters, RoundTimes *out) {
    const int n = static_cast<int>(group.size()), me = acp_rank();
    const int mine = static_cast<int>(std::find(group.begin(), group.end(), me) - group.begin());
    const size_t block = size ? size : 1;
    std::vector<char> a(block, 1), in(block, 1), all(block * n, 0);
    auto call = [&] {
        return bcast ? acp_bcast(group[0], n, group.data(), a.data(), size)
                     : acp_allgather(n, group.data(), in.data(), all.data(), size);
    };
    const double t0 = now_us();
    if (call() != 0) return false;
    const double first = now_us() - t0;
    for (int i = 0; i < iters / 10 + 1; ++i)
        if (call() != 0) return false;
    acp_sync();
    const double start = now_us();
    for (int i = 0; i < iters; ++i)
        if (call() != 0) return false;
    const double avg = (now_us() - start) / iters;
    bool right = true;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS && right; ++round) {
        if (bcast) {
            if (mine == 0)
                peer_fill(a.data(), size, round, 0);
            else
                std::memset(a.data(), PEER_POISON, size);
        } else {
            peer_fill(in.data(), size, round, mine);
            std::memset(all.data(), PEER_POISON, all.size());
        }
        if (call() != 0) return false;
        for (int src = 0; src < (bcast ? 1 : n) && right; ++src) {
            const char *got = bcast ? a.data() : all.data() + src * block;
            const long at = peer_first_bad(got, size, round, src);
            if (at < 0) continue;
            std::fprintf(stderr, "rank %d: %zu bytes, checked one-call round %d: block of member %d, byte %ld wrong\n",
                         me, size, round, src, at);
            right = false;
        }
    }
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
