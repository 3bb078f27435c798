// acpx-bench channel: ACP channels between ranks 0 and 1, as OSU's
// osu_latency and osu_bw measure MPI_Send/MPI_Recv (bench/peers/
// mpi_p2p_bench.c does the same over MPI):
//   latency:   rank 0 sends, rank 1 receives and sends back; half the
//              average round trip, after a warm-up;
//   bandwidth: rank 0 starts --window sends, waits for them, and rank 1,
//              having received all, sends 4 bytes back; bytes / time.
// Then one message of fresh bytes each way is checked. Other ranks wait.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"

namespace acpx::bench {
namespace {

constexpr size_t kFailed = static_cast<size_t>(-1);

unsigned char byte_of(uint64_t seed, size_t i) { return static_cast<unsigned char>(i * 131 + seed * 7 + 1); }

// Rank 0 and 1 bounce one message of fresh bytes each way and check it.
bool checked(acp_ch_t out, acp_ch_t in, std::vector<unsigned char> &a, std::vector<unsigned char> &b, size_t size,
             uint64_t seed) {
    const int me = acp_rank();
    bool ok = true;
    for (int turn = 0; turn < 2; ++turn) {
        if ((me == 0) == (turn == 0)) {
            for (size_t i = 0; i < size; ++i) a[i] = byte_of(seed + turn, i);
            ok &= acp_wait_ch(acp_nbsend_ch(out, a.data(), size)) != kFailed;
        } else {
            std::fill(b.begin(), b.begin() + static_cast<long>(size), 0xEE);
            ok &= acp_wait_ch(acp_nbrecv_ch(in, b.data(), size)) == size;
            for (size_t i = 0; ok && i < size; ++i) ok = b[i] == byte_of(seed + turn, i);
        }
    }
    return ok;
}

}  // namespace

int run_channel(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    if (np < 2) {
        if (me == 0) std::fprintf(stderr, "acpx-bench channel: needs at least 2 ranks\n");
        return 1;
    }
    int bad = 0;
    if (me <= 1) {
        const int peer = 1 - me;
        acp_ch_t out = acp_create_ch(me, peer), in = acp_create_ch(peer, me);
        if (out == ACP_CH_NULL || in == ACP_CH_NULL) return 1;
        std::vector<unsigned char> a(o.max_size, 1), b(o.max_size, 2);
        std::vector<acp_request_t> window(static_cast<size_t>(o.window));
        const std::string transport = transport_label();
        Csv csv(me == 0 ? o.csv : std::string());
        if (me == 0) {
            std::printf("# acpx-bench channel: ranks 0 and 1, transport %s\n", transport.c_str());
            std::printf("# %-10s %14s %16s\n", "Size", "latency(us)", "BW(MB/s)");
        }
        uint64_t seed = 0;
        for (size_t s : sizes(o)) {
            const int it = iterations_for(o, s), warm = std::min(o.warmup, it);
            auto pingpong = [&](int n) {
                for (int i = 0; i < n; ++i) {
                    if (me == 0) {
                        acp_wait_ch(acp_nbsend_ch(out, a.data(), s));
                        acp_wait_ch(acp_nbrecv_ch(in, b.data(), s));
                    } else {
                        acp_wait_ch(acp_nbrecv_ch(in, b.data(), s));
                        acp_wait_ch(acp_nbsend_ch(out, a.data(), s));
                    }
                }
            };
            pingpong(warm);
            double t0 = now_us();
            pingpong(it);
            const double lat = (now_us() - t0) / it / 2;
            const int bw_it = std::max(o.quick ? 2 : 10, it / o.window);
            unsigned ack = 0;
            auto stream = [&](int n) {
                for (int i = 0; i < n; ++i) {
                    for (auto &r : window)
                        r = me == 0 ? acp_nbsend_ch(out, a.data(), s) : acp_nbrecv_ch(in, b.data(), s);
                    acp_waitall_ch(window.data(), o.window, nullptr);
                    if (me == 0)
                        acp_wait_ch(acp_nbrecv_ch(in, &ack, sizeof ack));
                    else
                        acp_wait_ch(acp_nbsend_ch(out, &ack, sizeof ack));
                }
            };
            stream(1);
            t0 = now_us();
            stream(bw_it);
            const double bw = static_cast<double>(s) * o.window * bw_it / (now_us() - t0);
            const bool ok = checked(out, in, a, b, s, ++seed);
            bad |= !ok;
            if (me == 0) {
                std::printf("%-12zu %14.3f %16.1f%s\n", s, lat, bw, ok ? "" : "  WRONG DATA");
                std::fflush(stdout);
                csv.row("channel", "latency", s, ok ? lat : std::nan(""), s / lat, it, 2, transport);
                csv.row("channel", "bw", s, 0, ok ? bw : std::nan(""), bw_it * o.window, 2, transport);
            } else if (!ok) {
                std::fprintf(stderr, "acpx-bench channel: rank 1: %zu-byte message arrived wrong\n", s);
            }
        }
        acp_free_ch(out);
        acp_free_ch(in);
    }
    acp_sync();
    return bad;
}

}  // namespace acpx::bench
