// acpx-bench memory: the bytes one persistent handle holds per process.
//  1. Measured, in this job: for each handle type, algorithm and execution
//     mode, 100 handles over every rank (64 KiB per array or block; the
//     user arrays are shared, so they are not counted; an allreduce of
//     64 KiB of doubles; then default bcast and allgather handles of 8 B
//     to 8 KiB), by role (bcast: the root, rank 0, and the largest other
//     member; allgather and allreduce: the largest member):
//     acp_query_col_memory of one handle, and the growth
//     of the process's RSS per handle. Then channels (100 from rank 0 to
//     rank 1, a message through each: RSS growth per channel at each end) and acp_malloc blocks
//     of 8 B and 64 KiB (RSS growth per block at its owner, requested
//     bytes in the query column), the process's eager pool
//     (ACP_COL_POOL: its bytes, and the RSS its first rounds add), and the
//     arenas the control blocks came from (their bytes).
//  2. Modelled, in rank 0 alone: the same plans create builds, for group
//     sizes 2^4 .. 2^20 that no job here launches, against seed 002's
//     estimate (8 MB GA table + 40 MB list = 48 bytes per member).
//
// Uses internal headers: middle/plan.hpp for part 2 (the plans no job
// here launches are built in-process), middle/col.hpp for the pool's size.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "middle/col.hpp"
#include "middle/plan.hpp"

namespace acpx::bench {
namespace {

constexpr int kHandles = 100;
constexpr size_t kBlock = 64 * 1024;

enum class Op { kBcast, kAllgather, kAllreduce };
struct Config {
    Op op;
    bool buffered;
    const char *algo, *exec;
    size_t bytes = kBlock;  // per array (bcast) or block (allgather)
    bool bcast() const { return op == Op::kBcast; }
};

// "bcast-direct", and the size where it is not kBlock: "bcast-direct-8B".
std::string name_of(const Config &c) {
    if (c.op == Op::kAllreduce) return "allreduce";
    std::string name = std::string(c.bcast() ? "bcast" : "allgather") + "-" + (c.buffered ? "buffered" : "direct");
    if (c.bytes != kBlock)
        name += "-" + (c.bytes % 1024 ? std::to_string(c.bytes) + "B" : std::to_string(c.bytes / 1024) + "KiB");
    return name;
}

acp_col_t create(const Config &c, std::vector<int> &group, std::vector<char> &array) {
    const int n = static_cast<int>(group.size());
    if (c.op == Op::kAllreduce) return acp_create_allreduce(n, group.data(), c.bytes / 8, ACP_TYPE_DOUBLE, ACP_OP_SUM);
    if (c.bcast())
        return c.buffered ? acp_create_bcast_buffered(0, n, group.data(), c.bytes)
                          : acp_create_bcast_direct(0, n, group.data(), array.data(), c.bytes);
    return c.buffered ? acp_create_allgather_buffered(n, group.data(), c.bytes)
                      : acp_create_allgather_direct(n, group.data(), array.data(), c.bytes);
}

struct Measured {
    double query_root = 0, query_member = 0, rss_root = 0, rss_member = 0;
};

// Collective: every rank creates kHandles handles, then frees them.
bool measure(const Config &c, Measured *m) {
    setenv(c.op == Op::kBcast       ? "ACP_COL_BCAST_ALGO"
           : c.op == Op::kAllgather ? "ACP_COL_ALLGATHER_ALGO"
                                    : "ACP_COL_ALLREDUCE_ALGO",
           c.algo, 1);
    setenv("ACP_COL_EXEC", c.exec, 1);
    const int np = acp_procs();
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    std::vector<char> array(kBlock * static_cast<size_t>(np), 1);
    std::vector<acp_col_t> handles;
    const size_t before = rss_bytes();
    for (int i = 0; i < kHandles; ++i) {
        const acp_col_t h = create(c, group, array);
        if (h == ACP_COL_NULL) break;
        handles.push_back(h);
    }
    const size_t after = rss_bytes();
    const double query = handles.empty() ? 0 : static_cast<double>(acp_query_col_memory(handles[0]));
    const double rss = (static_cast<double>(after) - static_cast<double>(before)) / kHandles;
    const bool ok = handles.size() == static_cast<size_t>(kHandles);
    for (acp_col_t h : handles) acp_free_col(h);
    const auto queries = gather(query), rsses = gather(rss), oks = gather(ok ? 1 : 0);
    // bcast: rank 0 is the root; allgather and allreduce have none: every rank is a member.
    const int first_member = c.bcast() ? 1 : 0;
    m->query_root = c.bcast() ? queries[0] : 0;
    m->rss_root = c.bcast() ? rsses[0] : 0;
    for (int r = first_member; r < np; ++r) {
        m->query_member = std::max(m->query_member, queries[r]);
        m->rss_member = std::max(m->rss_member, rsses[r]);
    }
    return *std::min_element(oks.begin(), oks.end()) == 1;
}

// Channels and acp_malloc, for the same table: the RSS growth per channel
// at each end (kHandles channels from rank 0 to rank 1, a message through
// each), and per block of `bytes` at its owner (every rank allocates
// `count` on itself and writes them).
struct EndsRss {
    double sender = 0, receiver = 0;
};
EndsRss measure_channels() {
    const int me = acp_rank();
    std::vector<acp_ch_t> chans;
    const size_t before = rss_bytes();
    if (me <= 1)
        for (int i = 0; i < kHandles; ++i)
            if (acp_ch_t ch = acp_create_ch(0, 1); ch != ACP_CH_NULL) chans.push_back(ch);
    // A message through each: its blocks' pages are resident once used
    // (fresh blocks of acp_malloc's arenas are not written at allocation).
    for (acp_ch_t ch : chans) {
        uint64_t word = 1;
        acp_wait_ch(me == 0 ? acp_nbsend_ch(ch, &word, sizeof word) : acp_nbrecv_ch(ch, &word, sizeof word));
    }
    const double grown = (static_cast<double>(rss_bytes()) - static_cast<double>(before)) / kHandles;
    for (acp_ch_t ch : chans) acp_free_ch(ch);
    const auto all = gather(grown);
    return {all[0], all[1]};
}
double malloc_rss_per_block(size_t bytes, int count) {
    std::vector<acp_ga_t> blocks;
    const size_t before = rss_bytes();
    for (int i = 0; i < count; ++i)
        if (acp_ga_t g = acp_malloc(bytes, acp_rank()); g != ACP_GA_NULL) {
            // Written, as a user's block is: fresh arena memory is resident once touched.
            if (void *p = acp_query_address(g)) std::memset(p, 1, bytes);
            blocks.push_back(g);
        }
    const double grown = (static_cast<double>(rss_bytes()) - static_cast<double>(before)) / count;
    for (acp_ga_t g : blocks) acp_free(g);
    const auto all = gather(grown);
    return *std::max_element(all.begin(), all.end());
}

// The process's eager pool (ACP_COL_POOL, shared by every handle; the
// handles above hold one-line slots where it is on): its bytes (query
// column) and the RSS it adds (RSS column), the largest over ranks. The
// RSS a fresh allgather handle and its first two rounds add, less what a
// second such handle and rounds add (the pool exists by then): an
// allgather, so that every rank sends and allocates its pool; 1 KiB
// blocks, over the inline slots. 0 where the pool is off, or no round
// went through it (a group across nodes).
struct PoolBytes {
    double bytes = 0, rss = 0;
};
double rss_of_handle_and_rounds(std::vector<int> &group, std::vector<char> &array) {
    constexpr size_t kRoundBlock = 1024;
    const size_t before = rss_bytes();
    const acp_col_t h = acp_create_allgather_direct(static_cast<int>(group.size()), group.data(), array.data(), kBlock);
    for (int round = 0; h != ACP_COL_NULL && round < 2; ++round)
        acp_wait_col(acp_send_allgather_direct(h, 0, kRoundBlock));
    const double grown = static_cast<double>(rss_bytes()) - static_cast<double>(before);
    if (h != ACP_COL_NULL) acp_free_col(h);
    return grown;
}
PoolBytes measure_pool() {
    setenv("ACP_COL_EXEC", "delegated", 1);
    unsetenv("ACP_COL_ALLGATHER_ALGO");
    const int np = acp_procs();
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    std::vector<char> array(kBlock * static_cast<size_t>(np), 1);
    const double first = rss_of_handle_and_rounds(group, array);
    const double second = rss_of_handle_and_rounds(group, array);
    const double bytes = static_cast<double>(middle::State::get().pool.bytes());
    const auto all_bytes = gather(bytes), all_rss = gather(bytes > 0 ? std::max(0.0, first - second) : 0.0);
    return {*std::max_element(all_bytes.begin(), all_bytes.end()), *std::max_element(all_rss.begin(), all_rss.end())};
}

// The peak resident bytes f() adds to this process: the kernel's
// high-water mark, reset first (/proc/self/clear_refs "5"), less the
// resident bytes before. 0 where the kernel offers no reset.
template <class F>
size_t peak_of(F &&f) {
    FILE *reset = std::fopen("/proc/self/clear_refs", "w");
    const bool ok = reset && std::fputs("5", reset) >= 0;
    if (reset) std::fclose(reset);
    const size_t before = rss_bytes();
    f();
    const size_t hwm = hwm_bytes();
    return ok && hwm > before ? hwm - before : 0;
}

double seconds_of(auto &&f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void model_table(FILE *csv) {
    using middle::Exec;
    using middle::Kind;
    std::printf(
        "\n# Modelled in one process (the plans create builds), bytes held per process,\n"
        "# direct handles; seed 002 estimates 48 bytes per member for the root; the\n"
        "# root-mode and delegated roots' plan builds (every member's GA made up, as\n"
        "# create receives them): time and peak resident bytes added\n");
    std::printf("%-10s %14s %14s %14s %14s %14s %14s %12s %12s %14s %14s\n", "# Members", "root-mode root",
                "root-mode leaf", "deleg. root", "deleg. leaf", "allg. root-mode", "seed estimate", "rm build ms",
                "dg build ms", "rm build peak", "dg build peak");
    for (uint32_t n = 16; n <= (1u << 20); n <<= 1) {
        size_t root_mode_root = 0, delegated_root = 0;
        double rm_s = 0, dg_s = 0;
        const size_t rm_peak = peak_of([&] {
            rm_s = seconds_of([&] { root_mode_root = middle::modelled_bytes(Kind::kBcast, Exec::kRoot, 0, n, 0); });
        });
        const size_t dg_peak = peak_of([&] {
            dg_s =
                seconds_of([&] { delegated_root = middle::modelled_bytes(Kind::kBcast, Exec::kDelegated, 0, n, 0); });
        });
        const size_t v[] = {
            root_mode_root,
            middle::modelled_bytes(Kind::kBcast, Exec::kRoot, 0, n, n - 1),
            delegated_root,
            middle::modelled_bytes(Kind::kBcast, Exec::kDelegated, 0, n, n - 1),
            // Every allgather member is the root of its own block's list.
            middle::modelled_bytes(Kind::kAllgather, Exec::kRoot, 0, n, 0),
        };
        const double seed = 48.0 * n;
        std::printf("%-10u %14zu %14zu %14zu %14zu %14s %14.0f %12.2f %12.2f %14zu %14zu\n", n, v[0], v[1], v[2], v[3],
                    v[4] ? std::to_string(v[4]).c_str() : "-", seed, rm_s * 1e3, dg_s * 1e3, rm_peak, dg_peak);
        if (csv)
            std::fprintf(csv, "model,%u,%zu,%zu,%zu,%zu,%zu,%.0f,%.3f,%.3f,%zu,%zu\n", n, v[0], v[1], v[2], v[3], v[4],
                         seed, rm_s * 1e3, dg_s * 1e3, rm_peak, dg_peak);
    }
}

}  // namespace

int run_memory(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    static const Config kConfigs[] = {
        {Op::kBcast, false, "binomial", "delegated"},
        {Op::kBcast, false, "binomial", "root"},
        {Op::kBcast, false, "binary", "delegated"},
        {Op::kBcast, false, "binary", "root"},
        {Op::kBcast, true, "binomial", "delegated"},
        {Op::kBcast, true, "binomial", "root"},
        {Op::kAllgather, false, "tree", "delegated"},
        {Op::kAllgather, false, "tree", "root"},
        {Op::kAllgather, false, "ring", "delegated"},
        {Op::kAllgather, false, "ring", "root"},
        {Op::kAllgather, true, "tree", "delegated"},
        {Op::kAllgather, true, "tree", "root"},
        {Op::kAllreduce, true, "butterfly", "delegated"},
        // Smaller handles, by default: up to 4 KiB (bcast) and 1 KiB
        // (allgather) they keep slots of their size; above, the pool's
        // one-line slots (acp.h: memory per handle).
        {Op::kBcast, false, "binomial", "delegated", 8},
        {Op::kBcast, false, "binomial", "delegated", 64},
        {Op::kBcast, false, "binomial", "delegated", 1024},
        {Op::kBcast, false, "binomial", "delegated", 4096},
        {Op::kBcast, false, "binomial", "delegated", 8192},
        {Op::kAllgather, false, "tree", "delegated", 8},
        {Op::kAllgather, false, "tree", "delegated", 1024},
        {Op::kAllgather, false, "tree", "delegated", 4096},
    };
    FILE *csv = nullptr;
    if (me == 0) {
        std::printf(
            "# acpx-bench memory: bytes one persistent handle holds per process, %d ranks,\n"
            "# %d handles of 64 KiB per array/block (user arrays not counted), transport %s\n",
            np, kHandles, transport_label().c_str());
        std::printf("%-20s %-9s %-10s %14s %14s %14s %14s\n", "# Handle", "Algo", "Exec", "root query", "root RSS",
                    "member query", "member RSS");
        if (!o.csv.empty()) {
            const bool fresh = access(o.csv.c_str(), F_OK) != 0;
            csv = std::fopen(o.csv.c_str(), "a");
            if (csv && fresh)
                std::fprintf(csv,
                             "source,handle,algo,exec,ranks,root_query_bytes,root_rss_bytes,"
                             "member_query_bytes,member_rss_bytes\n");
        }
    }
    int rc = 0;
    for (const Config &c : kConfigs) {
        if (o.quick && c.exec[0] == 'r') continue;  // quick: delegated only
        Measured m;
        if (!measure(c, &m)) rc = 1;
        if (me != 0) continue;
        const std::string root_q = c.bcast() ? std::to_string(static_cast<long>(m.query_root)) : "-";
        const std::string root_r = c.bcast() ? std::to_string(static_cast<long>(m.rss_root)) : "-";
        std::printf("%-20s %-9s %-10s %14s %14s %14.0f %14.0f\n", name_of(c).c_str(), c.algo, c.exec, root_q.c_str(),
                    root_r.c_str(), m.query_member, m.rss_member);
        std::fflush(stdout);
        if (csv)  // allgather and allreduce have no root: those cells stay empty
            std::fprintf(csv, "acpx,%s,%s,%s,%d,%s,%s,%.0f,%.0f\n", name_of(c).c_str(), c.algo, c.exec, np,
                         c.bcast() ? root_q.c_str() : "", c.bcast() ? root_r.c_str() : "", m.query_member,
                         m.rss_member);
    }
    // Channels (root columns: the sender's end; member: the receiver's) and
    // acp_malloc blocks (member: the owner), by RSS growth: no query exists.
    if (np >= 2) {
        const EndsRss ch = measure_channels();
        if (me == 0) {
            std::printf("%-20s %-9s %-10s %14s %14.0f %14s %14.0f\n", "channel", "-", "-", "-", ch.sender, "-",
                        ch.receiver);
            if (csv) std::fprintf(csv, "acpx,channel,-,-,%d,,%.0f,,%.0f\n", np, ch.sender, ch.receiver);
        }
    }
    {
        const PoolBytes pool = measure_pool();
        const char *set = std::getenv("ACP_COL_POOL");
        const std::string label = std::string("POOL=") + (set && *set ? set : "default");
        if (me == 0) {
            std::printf("%-20s %-9s %-10s %14s %14s %14.0f %14.0f\n", "eager_pool", label.c_str(), "-", "-", "-",
                        pool.bytes, pool.rss);
            if (csv)
                std::fprintf(csv, "acpx,eager_pool,%s,-,%d,,,%.0f,%.0f\n", label.c_str(), np, pool.bytes, pool.rss);
        }
    }
    {
        // The arenas the handles' control blocks (and buffered handles'
        // buffers) came from (basic::layer::alloc_block): what they grew to
        // for the handles above, mapped
        // until acp_finalize, shared by every handle (the pages of their
        // free blocks go back to the system).
        const auto all = gather(static_cast<double>(basic::layer::block_arena_bytes()));
        if (me == 0) {
            const double most = *std::max_element(all.begin(), all.end());
            std::printf("%-20s %-9s %-10s %14s %14s %14.0f %14s\n", "control_arenas", "-", "-", "-", "-", most, "-");
            if (csv) std::fprintf(csv, "acpx,control_arenas,-,-,%d,,,%.0f,\n", np, most);
        }
    }
    for (const auto &[bytes, label, count] : {std::tuple{size_t{8}, "8B", 1000}, {kBlock, "64KiB", kHandles}}) {
        const double rss = malloc_rss_per_block(bytes, count);
        if (me != 0) continue;
        std::printf("%-20s %-9s %-10s %14s %14s %14zu %14.0f\n", "acp_malloc", label, "-", "-", "-", bytes, rss);
        if (csv) std::fprintf(csv, "acpx,acp_malloc,%s,-,%d,,,%zu,%.0f\n", label, np, bytes, rss);
    }
    if (me == 0 && !o.quick) {
        // The model's rows have their own columns: FILE.csv -> FILE_model.csv.
        FILE *model = nullptr;
        if (!o.csv.empty()) {
            std::string path = o.csv;
            const size_t dot = path.rfind(".csv");
            path = (dot == std::string::npos ? path : path.substr(0, dot)) + "_model.csv";
            model = std::fopen(path.c_str(), "w");
            if (model)
                std::fprintf(
                    model,
                    "source,members,rootmode_root,rootmode_leaf,delegated_root,"
                    "delegated_leaf,allgather_rootmode_member,seed_estimate,rootmode_root_build_ms,"
                    "delegated_root_build_ms,rootmode_root_build_peak_bytes,delegated_root_build_peak_bytes\n");
        }
        model_table(model);
        if (model) std::fclose(model);
    }
    if (csv) std::fclose(csv);
    if (rc && me == 0) std::fprintf(stderr, "acpx-bench memory: some handles could not be created\n");
    return rc;
}

}  // namespace acpx::bench
