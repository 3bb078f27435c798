// Handle life cycle: create/free many times without leaking memory or
// registrations, freed handles and requests are recognised, and what
// acp_query_col_memory reports.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <optional>
#include <string>
#include <thread>

#include "../report_util.hpp"
#include "../smaps_util.hpp"
#include "basic/layer.hpp"
#include "col_util.hpp"
#include "middle/col.hpp"
#include "middle/round.hpp"

using namespace acpx::test;

namespace {

// Resident set size of this process, in bytes.
size_t rss_bytes() {
    std::ifstream f("/proc/self/statm");
    size_t pages = 0, resident = 0;
    f >> pages >> resident;
    return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Resident bytes of the control arenas mapped here (this process's and
// its on-node peers': memfd segments named acpx-col), where handles'
// control blocks and buffers live; not the transport's buffers, which
// may grow with bursts of messages.
size_t arena_rss_bytes() {
    const long kib = smaps_kib("Rss:", [](unsigned long, unsigned long, const std::string &header) {
        return header.find("memfd:acpx-col") != std::string::npos;
    });
    return kib > 0 ? static_cast<size_t>(kib) * 1024 : 0;
}

// The most a pooled bcast handle of this suite holds beyond its buffer:
// 32 one-line slots and its bookkeeping within 4 KiB; across nodes the
// ring is 64 slots, 2 KiB more (plan.hpp, kPooledRingDepth).
size_t pooled_handle_most() { return on_two_hosts() ? 6144 : 4096; }

// Proportional set size of this process, in bytes: its resident pages,
// each shared one divided by the number of processes that map it (the
// pages of a control block that on-node peers write into count once over
// the job, not once in each process).
size_t pss_bytes() {
    std::ifstream f("/proc/self/smaps_rollup");
    std::string key;
    size_t kib = 0;
    while (f >> key)
        if (key == "Pss:") {
            f >> kib;
            break;
        }
    return kib * 1024;
}

// Bytes malloc has handed out and not had back (small blocks and large
// mmapped ones alike).
size_t heap_bytes() {
    const struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

void create_free_cycles(int cycles, std::vector<int> &g, std::vector<unsigned char> &a) {
    for (int i = 0; i < cycles; ++i) {
        const int n = static_cast<int>(g.size());
        acp_col_t h = (i % 3 == 0)   ? acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size())
                      : (i % 3 == 1) ? acp_create_bcast_buffered(g[0], n, g.data(), 512)
                                     : acp_create_allgather_direct(n, g.data(), a.data(), 8);
        ASSERT_NE(h, ACP_COL_NULL) << "cycle " << i;
        ASSERT_EQ(acp_free_col(h), 0) << "cycle " << i;
    }
}

}  // namespace

TEST(Lifecycle, TenThousandCreateFreeCyclesLeakNothing) {
    std::vector<int> g = make_group(Shape::kAll);
    std::vector<unsigned char> a(8 * g.size());
    create_free_cycles(1000, g, a);  // warm: allocator and transport caches settle
    const size_t rss_before = rss_bytes(), heap_before = heap_bytes();
#ifndef __SANITIZE_ADDRESS__
    create_free_cycles(9000, g, a);  // 10,000 in all: far more than the 1023 registrations
#else
    // LeakSanitizer finds a block kept by one create as surely as by 9000;
    // 2,000 in all still pass the 1023 registrations (~3 s a suite).
    create_free_cycles(1000, g, a);
#endif
    const size_t rss_after = rss_bytes(), heap_after = heap_bytes();
#ifndef __SANITIZE_ADDRESS__  // ASan's quarantine holds freed memory on purpose
    // The heap is the sharp test: one block kept per create would be
    // 9000 of them. It moves by a few hundred bytes between windows.
    EXPECT_LT(heap_after, heap_before + (64u << 10)) << "heap grew from " << heap_before << " to " << heap_after;
    // The RSS catches what bypasses malloc, loosely: libfabric's tcp
    // provider touches pages of pools it mapped at start-up as bytes
    // pass, 1.7 MiB per 9000 creates until ~11 MiB (then flat); a page
    // mapped per create would be 35 MiB.
    EXPECT_LT(rss_after, rss_before + (8u << 20)) << "RSS grew from " << rss_before << " to " << rss_after;
#else
    (void)rss_before, (void)rss_after, (void)heap_before, (void)heap_after;
#endif
    // Every registration is free again: a full table can still be registered.
    std::vector<acp_atkey_t> keys;
    for (int i = 0; i < 1000; ++i) {
        keys.push_back(acp_register_memory(a.data(), a.size(), 0));
        ASSERT_NE(keys.back(), ACP_ATKEY_NULL) << "registration " << i;
    }
    for (acp_atkey_t k : keys) EXPECT_EQ(acp_unregister_memory(k), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Lifecycle, RoundsWorkAfterManyHandles) {
    std::vector<int> g = make_group(Shape::kAll);
    std::vector<unsigned char> a(1000);
    acp_col_t h = acp_create_bcast_direct(g[0], static_cast<int>(g.size()), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    if (me() == g[0]) fill_pattern(a.data(), a.size(), 9);
    acp_request_t r = acp_send_bcast_direct(h, 0, a.size());
    ASSERT_EQ(acp_wait_col(r), 0);
    EXPECT_EQ(first_mismatch(a.data(), a.size(), 9), -1);
    EXPECT_EQ(acp_wait_col(r), 0) << "a finished round's request stays valid until free";
    EXPECT_EQ(acp_test_col(r), 1);
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// Whether the process's list of handles in flight (State::in_flight, what
// a wait advances) is exactly its handles with a round in flight, each
// knowing its place in it; "" if so, else what differs.
std::string in_flight_list_mismatch() {
    acpx::middle::State &st = acpx::middle::State::get();
    // The progress agent moves rounds between calls (ACP_PROGRESS=agent):
    // the list is read as a call of the layer would, with the handles owned.
    acpx::middle::AppCall call(st.owner);
    size_t active = 0;
    for (const auto &[id, c] : st.cols) {
        if (!c->active) continue;
        ++active;
        if (c->active_at >= st.in_flight.size() || st.in_flight[c->active_at] != c.get())
            return "handle " + std::to_string(id) + " is in flight but not at its place in the list";
    }
    if (active != st.in_flight.size())
        return std::to_string(st.in_flight.size()) + " listed, " + std::to_string(active) + " in flight";
    return "";
}

// A program holds many handles, few with a round in flight: a wait
// advances those few, which leave the list in whatever order their rounds
// end. Eight rounds at once among 64 idle handles, waited for in a
// shuffled order: every wait finds its bytes, and the list is always
// exactly the handles in flight.
TEST(Lifecycle, AWaitAdvancesTheHandlesInFlightAmongManyIdleOnes) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<acp_col_t> idle;
    for (int i = 0; i < 64; ++i) idle.push_back(acp_create_bcast_buffered(g[0], n, g.data(), 64));
    for (const acp_col_t c : idle) ASSERT_NE(c, ACP_COL_NULL);
    constexpr int kBusy = 8;
    std::vector<std::vector<unsigned char>> arrays;
    std::vector<acp_col_t> busy;
    for (int i = 0; i < kBusy; ++i) {
        arrays.emplace_back(100 + 300 * static_cast<size_t>(i));
        busy.push_back(acp_create_bcast_direct(g[static_cast<size_t>(i) % g.size()], n, g.data(), arrays.back().data(),
                                               arrays.back().size()));
        ASSERT_NE(busy.back(), ACP_COL_NULL);
    }
    std::vector<size_t> order(kBusy);
    std::iota(order.begin(), order.end(), 0);
    for (uint64_t round = 1; round <= 50; ++round) {
        std::vector<acp_request_t> r;
        for (size_t i = 0; i < busy.size(); ++i) {
            if (g[i % g.size()] == me()) fill_pattern(arrays[i].data(), arrays[i].size(), round * 100 + i);
            r.push_back(acp_send_bcast_direct(busy[i], 0, arrays[i].size()));
            ASSERT_NE(r.back(), ACP_REQUEST_NULL);
        }
        ASSERT_EQ(in_flight_list_mismatch(), "") << "round " << round << ", after the sends";
        std::rotate(order.begin(), order.begin() + static_cast<long>(round % kBusy), order.end());
        std::swap(order[0], order[round % kBusy]);
        for (const size_t i : order) {
            ASSERT_EQ(acp_wait_col(r[i]), 0) << "handle " << i << " round " << round;
            ASSERT_EQ(first_mismatch(arrays[i].data(), arrays[i].size(), round * 100 + i), -1)
                << "handle " << i << " round " << round;
            ASSERT_EQ(in_flight_list_mismatch(), "") << "round " << round << ", after waiting for handle " << i;
        }
    }
    EXPECT_TRUE(acpx::middle::State::get().in_flight.empty());
    for (const acp_col_t c : busy) EXPECT_EQ(acp_free_col(c), 0);
    for (const acp_col_t c : idle) EXPECT_EQ(acp_free_col(c), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Lifecycle, MemoryQueryCountsWhatTheHandleOwns) {
    // One algorithm for both sizes, so they differ by their buffers and
    // inline slots only (acp.h: 32 of 1 KiB for 1000 bytes; 1 MiB: 2 of
    // 64 KiB across nodes; on one node, delegated, 32 of 48 bytes and the
    // eager pool).
    ScopedEnv same("ACP_COL_BCAST_ALGO", "binomial");
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    acp_col_t small = acp_create_bcast_buffered(0, n, g.data(), 1000);
    acp_col_t large = acp_create_bcast_buffered(0, n, g.data(), 1 << 20);
    acp_col_t ag = acp_create_allgather_buffered(n, g.data(), 1 << 20);
    ASSERT_NE(small, ACP_COL_NULL);
    ASSERT_NE(large, ACP_COL_NULL);
    ASSERT_NE(ag, ACP_COL_NULL);
    const size_t ms = acp_query_col_memory(small), ml = acp_query_col_memory(large), ma = acp_query_col_memory(ag);
    EXPECT_GE(ms, 1000u);
    EXPECT_LT(ms, 64u << 10) << "a 1000-byte buffered handle should hold a few KiB";
    const char *inl = std::getenv("ACP_COL_INLINE"), *exec = std::getenv("ACP_COL_EXEC");
    const bool slots = !(inl && std::string(inl) == "0");
    // On one node, delegated, rounds over 48 bytes go through the senders'
    // eager pools (a ring of 32 one-line slots, 2 KiB, and the bookkeeping)
    // for the 1 MiB handle unless ACP_COL_POOL is 0, and for the 1000-byte
    // one where it is set (by default a handle whose rounds fit its slots
    // keeps them).
    const PoolUse use = pool_use(!(exec && std::string(exec) == "root"));
    const bool large_pooled = slots && use.large, small_pooled = slots && use.small;
    const size_t pooled_most = pooled_handle_most();
    if (large_pooled) {
        EXPECT_GE(ml, (1u << 20) + 2048) << "its buffer and its ring of one-line slots are counted";
        EXPECT_LE(ml, (1u << 20) + pooled_most) << "a pooled handle holds a few KiB beyond its buffer";
    } else {
        EXPECT_GE(ml, (1u << 20) + (slots ? 32 * 1024 : 0)) << "its buffer and its ring of inline slots are counted";
    }
    if (small_pooled)
        EXPECT_LE(ms, 1000u + pooled_most) << "a pooled handle holds a few KiB beyond its buffer";
    else
        EXPECT_GE(ms, 1000u + (slots ? 32 * 1024 : 0)) << "its buffer and its ring of inline slots are counted";
    EXPECT_GE(ml - ms, (1u << 20) - 1000u - (small_pooled || large_pooled ? 32 * 1024 + 4096 : 1024))
        << "the buffers make the difference";
    EXPECT_GE(ma, static_cast<size_t>(n) << 20) << "allgather: np_group buffers";
    EXPECT_EQ(acp_free_col(small), 0);
    EXPECT_EQ(acp_free_col(large), 0);
    EXPECT_EQ(acp_free_col(ag), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// Issue 66: a handle costs bytes, not tens of KB. On one node with a core
// per rank a direct bcast handle of up to 48 bytes holds a ring of 32
// one-line slots (2 KiB; it had 64, as it still has across nodes, where a
// ready byte crosses the network, and on a crowded node), and an
// allgather's slots are no larger than its blocks (8 bytes: two one-line
// slots a member; it had two of 8 KiB, 34 KB at 2 ranks and 132 KB at 4):
// each at most 4 KiB in all.
TEST(Lifecycle, SmallDirectHandlesHoldAtMostFourKiB) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(8 * g.size());
    const char *nodes = std::getenv("ACPX_TEST_NODES"), *inl = std::getenv("ACP_COL_INLINE");
    const bool two = nodes && std::string(nodes) == "2", slots = !(inl && std::string(inl) == "0");
    acp_col_t b = acp_create_bcast_direct(0, n, g.data(), a.data(), 8);
    acp_col_t ag = acp_create_allgather_direct(n, g.data(), a.data(), 8);
    ASSERT_NE(b, ACP_COL_NULL);
    ASSERT_NE(ag, ACP_COL_NULL);
    const size_t mb = acp_query_col_memory(b), ma = acp_query_col_memory(ag);
    if (!two && !acpx::basic::layer::node_crowded()) {  // else 64 slots
        EXPECT_LE(mb, 4096u) << "an 8-byte bcast handle";
    }
    EXPECT_LE(ma, 4096u) << "an allgather handle of 8-byte blocks, " << n << " members";
    if (slots) {  // ACP_COL_INLINE=0: none
        EXPECT_GE(mb, 32u * 64) << "its ring of 32 one-line slots is counted";
        EXPECT_GE(ma, size_t{2} * 64 * static_cast<size_t>(n)) << "two one-line slots a member are counted";
    }
    for (uint64_t round = 1; round <= 3; ++round) {  // and they work
        fill_pattern(a.data(), 8, round);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(b, 0, 8)), 0);
        ASSERT_EQ(first_mismatch(a.data(), 8, round), -1) << "bcast round " << round;
    }
    EXPECT_EQ(acp_free_col(b), 0);
    EXPECT_EQ(acp_free_col(ag), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// ACP_COL_POOL unset or auto: a bcast handle over 4 KiB (1 MiB, larger than its
// inline slots; 8 KiB, which they would hold) keeps one-line slots and
// sends its rounds over 48 bytes through the eager pool; a smaller one
// (1 KiB) keeps slots as large as its rounds. ACP_COL_POOL=0: none uses a
// pool; set to a size: all do. Across nodes the same (their rounds to
// members of other nodes go as held puts; 64 one-line slots, not 32).
// Each handle's 100-byte round arrives whole every way.
TEST(Lifecycle, ByDefaultBcastHandlesOverFourKiBUseTheEagerPool) {
    const char *exec = std::getenv("ACP_COL_EXEC"), *inl = std::getenv("ACP_COL_INLINE");
    if ((exec && std::string(exec) == "root") || (inl && *inl))
        GTEST_SKIP() << "the pool serves delegated handles with the default inline slots";
    const size_t pooled_most = pooled_handle_most();
    ScopedEnv tree("ACP_COL_BCAST_ALGO", "binomial");  // one block: slots (a pipeline of blocks has none)
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> big(1 << 20), mid(8192), small(1024);
    struct Want {
        const char *pool;
        bool big_pooled, mid_pooled, small_pooled;
    };
    for (const Want w : {Want{"", true, true, false}, Want{"auto", true, true, false}, Want{"0", false, false, false},
                         Want{"1M", true, true, true}}) {
        ScopedEnv pool("ACP_COL_POOL", w.pool);
        for (auto *a : {&big, &mid, &small}) {
            const bool pooled = a == &big ? w.big_pooled : a == &mid ? w.mid_pooled : w.small_pooled;
            const std::string what =
                std::string("ACP_COL_POOL='") + w.pool + "', a handle of " + std::to_string(a->size()) + " bytes";
            acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a->data(), a->size());
            ASSERT_NE(h, ACP_COL_NULL) << what;
            const size_t bytes = acp_query_col_memory(h);
            if (pooled)
                EXPECT_LE(bytes, pooled_most) << what << ": one-line slots";
            else
                EXPECT_GE(bytes, size_t{16} << 10) << what << ": slots as large as its rounds";
            if (me() == g[0]) fill_pattern(a->data(), 100, 7);
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 100)), 0) << what;
            EXPECT_EQ(first_mismatch(a->data(), 100, 7), -1) << what;
            EXPECT_EQ(acp_free_col(h), 0) << what;
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}

// Members free their handles in different orders, and receivers late: no
// free waits for another member's free. Small rounds' ready bytes to
// members on other nodes go one in a few, the last at the member's free;
// an executor's free does not wait for it there (its control block stays
// until it lands), and on one node its receivers started the last round
// already. Nothing is reported, and rounds on new handles work after.
TEST(Lifecycle, HandlesFreedInAnyOrderAndLateByReceivers) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(64), b(64);
    const int last = np() - 1;
    acp_col_t h1 = acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size());
    acp_col_t h2 = acp_create_bcast_direct(last, np(), g.data(), b.data(), b.size());
    ASSERT_NE(h1, ACP_COL_NULL);
    ASSERT_NE(h2, ACP_COL_NULL);
    for (int round = 1; round <= 10; ++round) {  // fewer than a ready byte's interval at the ring's depth
        if (me() == 0) fill_pattern(a.data(), 8, round);
        if (me() == last) fill_pattern(b.data(), 8, 100 + round);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h1, 0, 8)), 0);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h2, 0, 8)), 0);
        ASSERT_EQ(first_mismatch(a.data(), 8, round), -1) << "round " << round;
        ASSERT_EQ(first_mismatch(b.data(), 8, 100 + round), -1) << "round " << round;
    }
    double first_free_ms = 0;
    const std::string out = stderr_of([&] {
        if (me() == 0) {
            const auto t0 = std::chrono::steady_clock::now();
            EXPECT_EQ(acp_free_col(h1), 0);
            first_free_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            EXPECT_EQ(acp_free_col(h2), 0);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            EXPECT_EQ(acp_free_col(h2), 0);
            EXPECT_EQ(acp_free_col(h1), 0);
        }
        EXPECT_EQ(acp_sync(), 0);
    });
    EXPECT_EQ(out, "");
    if (me() == 0) {
        EXPECT_LT(first_free_ms, 200) << "the root's free waited for its receivers' frees";
    }
    acp_col_t h3 = acp_create_bcast_direct(last, np(), g.data(), a.data(), a.size());
    ASSERT_NE(h3, ACP_COL_NULL);
    if (me() == last) fill_pattern(a.data(), 8, 7);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h3, 0, 8)), 0);
    EXPECT_EQ(first_mismatch(a.data(), 8, 7), -1);
    EXPECT_EQ(acp_free_col(h3), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A thousand live handles at once (one per field and neighbourhood is
// common): the job grows by at most what their queries report and a
// little per handle (malloc's headers around its vectors), with one round
// run on each so that the slots it writes are counted as they are
// touched. Growth is the proportional set size, summed over the ranks: a
// control block's pages that on-node peers write into are resident in
// each of them, and count once. The handles' own arrays are one shared
// user array, registered once. Control blocks are blocks of shared
// arenas: no registration, segment or mapping of their own.
TEST(Lifecycle, AThousandLiveHandlesHoldNoMoreThanTheirQueriesSay) {
    constexpr int kHandles = 1000;
    constexpr size_t kSize = 64 * 1024, kRound = 1024;
    // Measured with ACP_COL_POOL=1M (2.3 KB queried), 2-5 ranks: PSS
    // grows ~4 KB a handle per rank. Without a pool the growth is below
    // the queries (slots a 1 KiB round leaves untouched are never paged in).
    [[maybe_unused]] constexpr size_t kSlackPerHandle = 2 << 10;
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(kSize);
    // Warm: libfabric's tcp provider touches pages of pools it mapped at
    // start-up as messages pass (the first ~11 MiB), the heap settles.
    for (int i = 0; i < 200; ++i) {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL) << "warming handle " << i;
        for (int round = 0; round < 4; ++round) ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, kRound)), 0);
        ASSERT_EQ(acp_free_col(h), 0);
    }
    std::vector<acp_col_t> hs;
    size_t queried = 0;
    ASSERT_EQ(acp_sync(), 0);
    const size_t pss_before = pss_bytes();
    for (int i = 0; i < kHandles; ++i) {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL) << "handle " << i;
        hs.push_back(h);
        queried += acp_query_col_memory(h);
        if (me() == g[0]) fill_pattern(a.data(), kRound, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, kRound)), 0) << "handle " << i;
        ASSERT_EQ(first_mismatch(a.data(), kRound, static_cast<uint64_t>(i)), -1) << "handle " << i;
    }
    ASSERT_EQ(acp_sync(), 0);  // every rank's rounds done: its peers' pages are all touched
    const size_t pss_after = pss_bytes();
    const size_t grown = pss_after > pss_before ? pss_after - pss_before : 0;
    std::printf("[rank %d] %d live handles: queried %zu bytes, PSS grew %zu (%zu a handle)\n", me(), kHandles, queried,
                grown, grown / kHandles);
    uint64_t job_grown = 0, job_queried = 0;
    for (uint64_t v : allgather_u64(grown)) job_grown += v;
    for (uint64_t v : allgather_u64(queried)) job_queried += v;
#ifndef __SANITIZE_ADDRESS__  // ASan's shadow and redzones grow with every allocation
    EXPECT_LE(job_grown, job_queried + static_cast<uint64_t>(n) * kHandles * kSlackPerHandle)
        << "the job grew " << job_grown << " bytes over " << kHandles << " handles whose queries add up to "
        << job_queried;
#endif
    for (acp_col_t h : hs) EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// Buffered handles past the process's 1023 registrations: a buffer is a
// block of the arenas, as a control block, not a registration of its own.
// Every handle delivers its rounds, every other one through the buffers
// (root mode, no inline slots: the root's copies go buffer to buffer);
// the query counts the buffer.
TEST(Lifecycle, MoreBufferedHandlesThanRegistrationsLiveAtOnce) {
    constexpr int kHandles = 1100;
    constexpr size_t kSize = 256;
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(kSize);
    std::vector<acp_col_t> hs;
    for (int i = 0; i < kHandles; ++i) {
        std::optional<ScopedEnv> inl, exec;
        if (i % 2 == 0) inl.emplace("ACP_COL_INLINE", "0"), exec.emplace("ACP_COL_EXEC", "root");
        acp_col_t h = acp_create_bcast_buffered(g[0], n, g.data(), kSize);
        ASSERT_NE(h, ACP_COL_NULL) << "handle " << i;
        hs.push_back(h);
        EXPECT_GE(acp_query_col_memory(h), kSize) << "handle " << i << ": its buffer is not counted";
        if (me() == g[0]) fill_pattern(a.data(), kSize, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_wait_col(acp_send_bcast_buffered(h, a.data(), kSize)), 0) << "handle " << i;
        ASSERT_EQ(first_mismatch(a.data(), kSize, static_cast<uint64_t>(i)), -1) << "handle " << i;
    }
    // Each again, in the reverse order: every handle still has its own bytes.
    for (int i = kHandles - 1; i >= 0; --i) {
        if (me() == g[0]) fill_pattern(a.data(), kSize, static_cast<uint64_t>(i) + kHandles);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_buffered(hs[static_cast<size_t>(i)], a.data(), kSize)), 0)
            << "handle " << i;
        ASSERT_EQ(first_mismatch(a.data(), kSize, static_cast<uint64_t>(i) + kHandles), -1) << "handle " << i;
    }
    for (acp_col_t h : hs) EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A freed handle's control block goes to the next creates: thousands of
// create / round / free cycles take no more memory than the first few, and
// as little time each (no segment, registration or message per block).
TEST(Lifecycle, FreedControlBlocksGoToTheNextCreates) {
    constexpr int kCycles = 2000;
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(64 * 1024);
    auto cycle = [&](int i) {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL) << "cycle " << i;
        if (me() == g[0]) fill_pattern(a.data(), 512, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 512)), 0) << "cycle " << i;
        ASSERT_EQ(first_mismatch(a.data(), 512, static_cast<uint64_t>(i)), -1) << "cycle " << i;
        ASSERT_EQ(acp_free_col(h), 0) << "cycle " << i;
    };
    for (int i = 0; i < 50; ++i) cycle(i);
    {
        // The eager pool (ACP_COL_POOL), mapped by every member on the node,
        // is paged in as its chunks are first used, by whichever handle:
        // once round all of it first (1 MiB in 512-byte rounds).
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        for (int round = 0; round < kCycles + 100; ++round)
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 512)), 0) << "round " << round;
        ASSERT_EQ(acp_free_col(h), 0);
    }
    const size_t rss_before = rss_bytes();
    [[maybe_unused]] size_t query = 0;
    {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        query = acp_query_col_memory(h);
        ASSERT_EQ(acp_free_col(h), 0);
    }
    for (int i = 50; i < kCycles; ++i) cycle(i);
    [[maybe_unused]] const size_t grown = rss_bytes() > rss_before ? rss_bytes() - rss_before : 0;
#ifndef __SANITIZE_ADDRESS__
    // Blocks not given back would add a handle's query each cycle; what
    // else a create and a free leave (malloc's free lists, the transport's
    // caches) is a few hundred KB over the whole run.
    EXPECT_LT(grown, kCycles * query / 4)
        << "RSS grew " << grown << " bytes over " << kCycles << " cycles of a handle of " << query;
#endif
    EXPECT_EQ(acp_sync(), 0);
}

// Freed handles give their control blocks' pages back (whole free pages of
// the arenas go back to the system): a process that once held hundreds of
// handles does not keep what their rounds touched. Measured on the arenas
// (arena_rss_bytes): the process's RSS also holds the transport's
// buffers. libfabric's tcp;ofi_rxm allocates ~100 MB of pools at
// acp_init (six of 17 MB) and touches their pages as its buffers cycle
// (on the two-host bed about 0.5 KB a create-round-free, at times 16 MiB
// at once), while acpx's heap stays flat.
TEST(Lifecycle, FreedHandlesGiveTheirPagesBack) {
    constexpr int kHandles = 300;
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(64 * 1024);
    auto one_round = [&](acp_col_t h, uint64_t seed) {
        if (me() == g[0]) fill_pattern(a.data(), 4096, seed);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 4096)), 0);
        ASSERT_EQ(first_mismatch(a.data(), 4096, seed), -1);
    };
    for (int i = 0; i < 20; ++i) {  // warm
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        one_round(h, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_free_col(h), 0);
    }
    // As many rounds as are measured below, on one handle: an eager pool
    // (ACP_COL_POOL: the process's, kept to acp_finalize, not a handle's)
    // has touched as much of itself, here and where peers map it.
    {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        for (int i = 0; i < kHandles + 1; ++i) one_round(h, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_free_col(h), 0);
    }
    ASSERT_EQ(acp_sync(), 0);
    // What malloc keeps in its free lists is not the handles' (whole free
    // pages amid its heap go back only when asked): asked at both looks.
    malloc_trim(0);
    const size_t before = arena_rss_bytes();
    std::vector<acp_col_t> hs;
    for (int i = 0; i < kHandles; ++i) {
        hs.push_back(acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size()));
        ASSERT_NE(hs.back(), ACP_COL_NULL) << "handle " << i;
        one_round(hs.back(), static_cast<uint64_t>(i));
    }
    ASSERT_EQ(acp_sync(), 0);
    const size_t held = arena_rss_bytes();
    for (acp_col_t h : hs) ASSERT_EQ(acp_free_col(h), 0);
    ASSERT_EQ(acp_sync(), 0);
    {  // a round more: blocks parked for other nodes' last ready bytes go back in it
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        one_round(h, 7);
        ASSERT_EQ(acp_free_col(h), 0);
    }
    malloc_trim(0);
    const size_t after = arena_rss_bytes();
    const size_t grew = held > before ? held - before : 0, kept = after > before ? after - before : 0;
    std::printf("[rank %d] %d handles: arenas +%zu resident while held, +%zu after their frees\n", me(), kHandles, grew,
                kept);
#ifndef __SANITIZE_ADDRESS__
    EXPECT_LT(kept, grew / 4 + (256 << 10))
        << "freed handles kept their pages: +" << grew << " held, +" << kept << " after";
#endif
    EXPECT_EQ(acp_sync(), 0);
}

// White-box (middle/col.hpp): a freed handle's control block is not handed
// out again while a receiver on another node may still write its last
// ready byte into it (State::parked_ctls: it sends that byte at its own
// free), and is once the byte has landed. On one node the receivers'
// bytes are seen before the free returns: nothing is kept.
TEST(Lifecycle, AControlBlockIsNotReusedBeforeItsLastReadyBytesLanded) {
    using namespace acpx;
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    ScopedEnv algo("ACP_COL_BCAST_ALGO", "binomial");
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    bool away = false;  // rank 0 sends to a member on another node
    for (int d = 1; d < n; d *= 2) away |= basic::layer::node_id(d) != basic::layer::node_id(0);
    std::vector<unsigned char> a(64 * 1024);
    acp_col_t h = acp_create_bcast_direct(0, n, g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    const bool late = basic::layer::node_id(me()) != basic::layer::node_id(0);
    // Members on other nodes start the round late: the root's 8-byte round
    // ends without them (eager), and its free comes before their bytes.
    if (late) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (me() == 0) fill_pattern(a.data(), 8, 5);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 8)), 0);
    EXPECT_EQ(first_mismatch(a.data(), 8, 5), -1);
    middle::State &st = middle::State::get();
    if (me() == 0) {
        ASSERT_EQ(acp_free_col(h), 0);
        middle::AppCall call(st.owner);
        ASSERT_EQ(st.parked_ctls.size(), away ? 1u : 0u);
        if (away) {
            const basic::layer::SharedMemory kept = st.parked_ctls[0].ctl;
            basic::layer::SharedMemory next;
            ASSERT_TRUE(basic::layer::alloc_block(kept.size, "test", &next));
            EXPECT_NE(next.ga, kept.ga) << "the next block is the parked one";
            basic::layer::free_shared(next);
        }
    } else {
        if (late) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        ASSERT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
    if (me() == 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (;;) {
            basic::layer::progress();
            middle::AppCall call(st.owner);
            middle::release_parked(st);
            if (st.parked_ctls.empty() || std::chrono::steady_clock::now() > until) break;
        }
        middle::AppCall call(st.owner);
        EXPECT_TRUE(st.parked_ctls.empty()) << "the last ready bytes landed, but the block is still kept";
        EXPECT_EQ(st.quarantined_bytes, 0u);
    }
}

namespace {

// The bytes of blocks this process keeps until acp_finalize
// (middle::State::quarantined_bytes), read under the layer's lock.
size_t quarantined_now() {
    acpx::middle::State &st = acpx::middle::State::get();
    acpx::middle::AppCall call(st.owner);
    return st.quarantined_bytes;
}

// A member's round whose root does not come within ACP_TIMEOUT: the wait
// fails, the handle is freed. What they printed.
template <class Send>
std::string timed_out_and_freed(acp_col_t h, Send send) {
    return stderr_of([&] {
        EXPECT_EQ(acp_wait_col(send()), -1) << "the root never sent";
        acp_free_col(h);
    });
}

}  // namespace

// A handle whose round timed out may still be written into by a peer (here
// a root that sends late, into the receiver's slots): its control block is
// kept from the next creates until acp_finalize
// (State::quarantined_bytes), so the late bytes and stamps land in no
// other handle. Were the block handed to the next create, that handle's
// second round would find the late stamp of the same round number and
// end at once with the late bytes. Needs a short ACP_TIMEOUT: run by
// test/suites/middle_timeout_np2.sh (ACP_TIMEOUT=2); elsewhere it skips.
TEST(LifecycleTimeout, ALateRootWritesIntoNoOtherHandle) {
    using namespace acpx;
    const double timeout = basic::layer::timeout_seconds();
    if (timeout > 5) GTEST_SKIP() << "needs ACP_TIMEOUT <= 5: test/suites/middle_timeout_np2.sh runs it";
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g = {0, 1};
    if (me() <= 1) {
        std::vector<unsigned char> a1(64 * 1024), a2(64 * 1024);
        acp_col_t h1 = acp_create_bcast_direct(1, 2, g.data(), a1.data(), a1.size());
        ASSERT_NE(h1, ACP_COL_NULL);
        if (me() == 1) fill_pattern(a1.data(), 8, 1);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h1, 0, 8)), 0);
        EXPECT_EQ(first_mismatch(a1.data(), 8, 1), -1);
        if (me() == 0) {
            const size_t kept = quarantined_now();
            const std::string err = timed_out_and_freed(h1, [&] { return acp_send_bcast_direct(h1, 0, 8); });
            EXPECT_NE(err.find("(ACP_TIMEOUT)"), std::string::npos) << err;
            EXPECT_GT(quarantined_now(), kept) << "a timed-out handle's control block went back";
        } else {
            // Late: after the receiver's wait ended, before the next create
            // there times out.
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout + 0.5));
            fill_pattern(a1.data(), 8, 2);
            EXPECT_EQ(acp_wait_col(acp_send_bcast_direct(h1, 0, 8)), 0);  // eager: it ends here
            EXPECT_EQ(acp_free_col(h1), 0);
        }
        acp_col_t h2 = acp_create_bcast_direct(1, 2, g.data(), a2.data(), a2.size());
        ASSERT_NE(h2, ACP_COL_NULL);
        for (uint64_t round = 3; round <= 5; ++round) {
            if (me() == 1) {
                std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the receiver looks first
                fill_pattern(a2.data(), 8, round);
            }
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h2, 0, 8)), 0) << "round " << round;
            EXPECT_EQ(first_mismatch(a2.data(), 8, round), -1) << "round " << round << " of the next handle";
        }
        EXPECT_EQ(acp_free_col(h2), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

// A buffered handle whose round timed out keeps its buffer from the next
// creates too: a late root (root mode, no inline slots: the root's copies
// go into the member's buffer) may still write into it. Run by
// test/suites/middle_timeout_np2.sh (ACP_TIMEOUT=2); elsewhere it skips.
TEST(LifecycleTimeout, ATimedOutBufferedHandleKeepsItsBuffer) {
    using namespace acpx;
    const double timeout = basic::layer::timeout_seconds();
    if (timeout > 5) GTEST_SKIP() << "needs ACP_TIMEOUT <= 5: test/suites/middle_timeout_np2.sh runs it";
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    constexpr size_t kBuffer = 64 * 1024;
    std::vector<int> g = {0, 1};
    if (me() <= 1) {
        ScopedEnv inl("ACP_COL_INLINE", "0"), exec("ACP_COL_EXEC", "root");
        std::vector<unsigned char> a(kBuffer);
        acp_col_t h = acp_create_bcast_buffered(1, 2, g.data(), kBuffer);
        ASSERT_NE(h, ACP_COL_NULL);
        if (me() == 1) fill_pattern(a.data(), kBuffer, 1);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_buffered(h, a.data(), kBuffer)), 0);
        EXPECT_EQ(first_mismatch(a.data(), kBuffer, 1), -1);
        if (me() == 0) {
            const size_t kept = quarantined_now();
            const std::string err =
                timed_out_and_freed(h, [&] { return acp_send_bcast_buffered(h, a.data(), kBuffer); });
            EXPECT_NE(err.find("(ACP_TIMEOUT)"), std::string::npos) << err;
            EXPECT_GE(quarantined_now(), kept + kBuffer) << "a timed-out handle's buffer went back";
        } else {
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout + 0.5));
            fill_pattern(a.data(), kBuffer, 2);
            acp_wait_col(acp_send_bcast_buffered(h, a.data(), kBuffer));  // late: what it returns is not the point
            acp_free_col(h);
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}
