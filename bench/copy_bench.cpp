// acpx-bench copy: latency (issue + complete, i.e. until the bytes are at
// the destination) and bandwidth of acp_copy, OSU style. Rank 0 drives;
// the other ranks only serve through their agents (as in a real
// one-sided code), waiting in acp_sync.
//   put:            rank 0's memory -> rank 1's
//   get:            rank 1's memory -> rank 0's
//   remote->remote: rank 1's memory -> rank 2's (rank 1's, with 2 ranks),
//                   issued by rank 0, which owns neither
//   ping-pong:      8 B, rank 0 -> rank 1 -> rank 0, each side polling its
//                   own memory for the peer's put; half the round trip, as
//                   ucx_perftest's put latency (both ranks take part)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"

namespace acpx::bench {
namespace {

// Average microseconds of one (copy + complete), after a warm-up.
double latency(acp_ga_t dst, acp_ga_t src, size_t size, int iters, int warmup) {
    for (int i = 0; i < warmup; ++i) acp_complete(acp_copy(dst, src, size, ACP_HANDLE_NULL));
    const double t0 = now_us();
    for (int i = 0; i < iters; ++i) acp_complete(acp_copy(dst, src, size, ACP_HANDLE_NULL));
    return (now_us() - t0) / iters;
}

// Half the round trip of an 8-byte put answered by one back, averaged over
// iters after a warm-up. Each rank's slot (8 bytes at `mine`) receives the
// peer's count; the count it sends goes from slot + 8. That source is
// rewritten without completing the put before it: the answer to a put
// proves its bytes landed. The wait reads the slot while calling
// acp_inquire, which makes progress, so the loop turns as ucx_perftest's
// does (polling memory and progressing the worker).
// Collective: ranks past 1 only keep the syncs.
double pingpong(int me, acp_ga_t mine, acp_ga_t peer, int iters, int warmup) {
    if (me > 1) return acp_sync(), 0;
    auto *slot = static_cast<uint64_t *>(acp_query_address(mine));
    std::atomic_ref<uint64_t> in(slot[0]);
    in.store(0);
    acp_sync();
    double t0 = 0;
    for (uint64_t i = 1; i <= static_cast<uint64_t>(iters + warmup); ++i) {
        if (i == static_cast<uint64_t>(warmup) + 1) t0 = now_us();
        if (me == 1)
            while (in.load(std::memory_order_acquire) != i) acp_inquire(ACP_HANDLE_ALL);
        slot[1] = i;
        const acp_handle_t h = acp_copy(peer, mine + 8, 8, ACP_HANDLE_NULL);
        if (h == ACP_HANDLE_NULL) std::exit(1);  // acp_copy said why; acprun ends the peer, which waits for it
        if (me == 0)
            while (in.load(std::memory_order_acquire) != i) acp_inquire(ACP_HANDLE_ALL);
    }
    const double us = (now_us() - t0) / iters / 2;
    acp_complete(ACP_HANDLE_ALL);
    return us;
}

// MB/s with `window` copies in flight per completion.
double bandwidth(acp_ga_t dst, acp_ga_t src, size_t size, int iters, int window) {
    acp_complete(acp_copy(dst, src, size, ACP_HANDLE_NULL));
    const double t0 = now_us();
    for (int i = 0; i < iters; ++i) {
        for (int w = 0; w < window; ++w) acp_copy(dst, src, size, ACP_HANDLE_NULL);
        acp_complete(ACP_HANDLE_ALL);
    }
    const double us = now_us() - t0;
    return static_cast<double>(size) * window * iters / us;  // bytes/us == MB/s
}

// ACP_CMA=0: on-node copies go through the transport too (labelled
// user-ucx, user-ofi).
bool cma_off() {
    const char *e = std::getenv("ACP_CMA");
    return e && std::strcmp(e, "0") == 0;
}

}  // namespace

int run_copy(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    if (np < 2) {
        if (me == 0) std::fprintf(stderr, "acpx-bench copy: needs at least 2 ranks (acprun -n 2 or 3)\n");
        return 1;
    }
    // Every rank's buffer of max_size: a registered user array, or its
    // starter memory past the first 4 KiB (which holds the GA exchange).
    // A user array starts --skew x rank bytes past a page boundary: the
    // distance between two ranks' bytes, which some CPUs' copies are
    // sensitive to, is then the option's, not the allocator's.
    constexpr size_t kStarterOffset = 4096, kPage = 4096;
    const bool own_array = !o.starter && !o.malloc_memory;
    const size_t bytes = std::max<size_t>(o.max_size, 16);  // the ping-pong's two slots
    std::vector<char> array(own_array ? bytes + 2 * kPage : 0, static_cast<char>(me));
    char *buf = array.data() + (kPage - reinterpret_cast<uintptr_t>(array.data()) % kPage) % kPage +
                static_cast<size_t>(me) * o.skew % kPage;
    acp_atkey_t key = ACP_ATKEY_NULL;
    acp_ga_t mine = acp_query_starter_ga(me) + kStarterOffset;
    acp_ga_t block = ACP_GA_NULL;
    if (o.malloc_memory) {
        block = mine = acp_malloc(bytes, me);
        if (block == ACP_GA_NULL) return 1;
    } else if (own_array) {
        key = acp_register_memory(buf, bytes, 0);
        if (key == ACP_ATKEY_NULL) return 1;
        mine = acp_query_ga(key, buf);
    } else if (acp_query_address(mine + bytes - 1) == nullptr) {
        if (me == 0)
            std::fprintf(stderr,
                         "acpx-bench: --memory starter needs a starter memory of at least "
                         "%zu bytes (acprun --starter-memsize)\n",
                         bytes + kStarterOffset);
        return 1;
    }
    const std::vector<acp_ga_t> all = gather_ga(mine);
    const int pp_iters = o.quick ? 200 : o.iters;
    const double pp = pingpong(me, mine, all[me == 0 ? 1 : 0], pp_iters, o.warmup);
    std::memcpy(acp_query_address(acp_query_starter_ga(me)), &mine, sizeof mine);
    acp_sync();
    if (me == 0) {
        const int third = np > 2 ? 2 : 1;
        std::vector<acp_ga_t> ga(3);
        auto *slot = static_cast<char *>(acp_query_address(acp_query_starter_ga(0))) + 64;
        const acp_ga_t slot_ga = acp_query_starter_ga(0) + 64;
        for (int r = 0; r <= third; ++r) {
            acp_complete(acp_copy(slot_ga + 8 * r, acp_query_starter_ga(r), 8, ACP_HANDLE_NULL));
            std::memcpy(&ga[r], slot + 8 * r, 8);
        }
        const std::string label = transport_label();
        const std::string transport = label + (o.starter         ? "/starter"
                                               : o.malloc_memory ? "/malloc"
                                               : cma_off()       ? "/user-" + label.substr(0, 3)
                                                                 : "/user");
        Csv csv(o.csv);
        std::printf("# acpx-bench copy: acp_copy, issue + complete (bytes visible at the destination)\n");
        std::printf("# %d ranks, transport/memory %s; remote->remote = rank 1 -> rank %d issued by rank 0\n", np,
                    transport.c_str(), third);
        if (o.skew)
            std::printf("# --skew %zu: rank r's buffer starts %zu x r bytes past a page boundary\n", o.skew, o.skew);
        std::printf("# %-10s %14s %14s %18s %16s %16s\n", "Size", "put lat(us)", "get lat(us)", "rem->rem lat(us)",
                    "put BW(MB/s)", "get BW(MB/s)");
        for (size_t s : sizes(o)) {
            const int it = iterations_for(o, s);
            const int bw_it = std::max(o.quick ? 2 : 10, it / o.window);  // >= 10 windows: stable
            const double put = latency(ga[1], ga[0], s, it, o.warmup);
            const double get = latency(ga[0], ga[1], s, it, o.warmup);
            const double r2r = latency(ga[third], ga[1], s, it, o.warmup);
            const double put_bw = bandwidth(ga[1], ga[0], s, bw_it, o.window);
            const double get_bw = bandwidth(ga[0], ga[1], s, bw_it, o.window);
            std::printf("%-12zu %14.3f %14.3f %18.3f %16.1f %16.1f\n", s, put, get, r2r, put_bw, get_bw);
            std::fflush(stdout);
            csv.row("copy", "put", s, put, s / put, it, np, transport);
            csv.row("copy", "get", s, get, s / get, it, np, transport);
            csv.row("copy", "remote_to_remote", s, r2r, s / r2r, it, np, transport);
            csv.row("copy", "put_bw", s, 0, put_bw, bw_it * o.window, np, transport);
            csv.row("copy", "get_bw", s, 0, get_bw, bw_it * o.window, np, transport);
        }
        std::printf("# put ping-pong 8 B (half the round trip, as ucx_perftest's put latency): %.3f us\n", pp);
        csv.row("copy", "put_pingpong", 8, pp, 8 / pp, pp_iters, np, transport);
    }
    acp_sync();
    if (key != ACP_ATKEY_NULL) acp_unregister_memory(key);
    if (block != ACP_GA_NULL) acp_free(block);
    return 0;
}

}  // namespace acpx::bench
