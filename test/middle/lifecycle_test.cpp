// Handle life cycle: create/free many times without leaking memory or
// registrations, freed handles and requests are recognised, and what
// acp_query_col_memory reports.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "../report_util.hpp"
#include "col_util.hpp"

using namespace acpx::test;

namespace {

// Resident set size of this process, in bytes.
size_t rss_bytes() {
    std::ifstream f("/proc/self/statm");
    size_t pages = 0, resident = 0;
    f >> pages >> resident;
    return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
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

TEST(Lifecycle, MemoryQueryCountsWhatTheHandleOwns) {
    // One algorithm for both sizes, so they differ by their buffers and
    // inline slots only (acp.h: 32 of 1 KiB for 1000 bytes; 1 MiB: 2 of
    // 64 KiB across nodes; on one node, delegated, 16 of 48 bytes and the
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
    const char *inl = std::getenv("ACP_COL_INLINE"), *pool = std::getenv("ACP_COL_POOL"),
               *exec = std::getenv("ACP_COL_EXEC"), *nodes = std::getenv("ACPX_TEST_NODES");
    const bool slots = !(inl && std::string(inl) == "0");
    // With ACP_COL_POOL, on one node, delegated, rounds over 48 bytes go
    // through the senders' eager pools: a ring of 16 one-line slots (1 KiB)
    // and the bookkeeping.
    const bool pooled = pool && std::string(pool) != "0" && !(exec && std::string(exec) == "root") &&
                        !(nodes && std::string(nodes) == "2");
    if (slots && pooled) {
        EXPECT_GE(ml, (1u << 20) + 1024) << "its buffer and its ring of one-line slots are counted";
        EXPECT_LE(ml, (1u << 20) + 4096) << "a pooled handle holds at most 4 KiB beyond its buffer";
        EXPECT_LE(ms, 1000u + 4096) << "a pooled handle holds at most 4 KiB beyond its buffer";
    } else {
        EXPECT_GE(ms, 1000u + (slots ? 32 * 1024 : 0)) << "its buffer and its ring of inline slots are counted";
        EXPECT_GE(ml, (1u << 20) + (slots ? 32 * 1024 : 0)) << "its buffer and its ring of inline slots are counted";
    }
    EXPECT_GE(ml - ms, (1u << 20) - 1000u - (pooled ? 4096 : 1024)) << "the buffers make the difference";
    EXPECT_GE(ma, static_cast<size_t>(n) << 20) << "allgather: np_group buffers";
    EXPECT_EQ(acp_free_col(small), 0);
    EXPECT_EQ(acp_free_col(large), 0);
    EXPECT_EQ(acp_free_col(ag), 0);
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

// Hundreds of live handles at once (one per field and neighbourhood is
// common): the process grows by at most what their queries report and a
// little per handle (its registrations and the heap's own bookkeeping),
// with one round run on each so that the slots it writes are counted as
// they are touched. The handles' own arrays are one shared user array.
// 400: each handle takes two of the process's 1023 registrations (acp.h),
// so 511 is the most a process can hold.
TEST(Lifecycle, HundredsOfLiveHandlesHoldNoMoreThanTheirQueriesSay) {
    constexpr int kHandles = 400;
    constexpr size_t kSize = 64 * 1024, kRound = 1024;
    // What a handle costs beyond its query: its control block is a
    // shared segment of whole pages, each member on the node that maps it
    // touches its pages too, and its registrations keep transport state.
    // Measured with ACP_COL_POOL=1M (2.2 KB queried): 9-13 KB of RSS per
    // handle at 2-4 ranks, UCX and libfabric; without a pool the slots a
    // 1 KiB round leaves untouched make up for it.
    [[maybe_unused]] constexpr size_t kSlackPerHandle = 16 << 10;
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(kSize);
    // Warm: libfabric's tcp provider touches pages of pools it mapped at
    // start-up as messages pass (the first ~11 MiB), the heap settles.
    for (int i = 0; i < kHandles / 2; ++i) {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL) << "warming handle " << i;
        for (int round = 0; round < 4; ++round) ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, kRound)), 0);
        ASSERT_EQ(acp_free_col(h), 0);
    }
    std::vector<acp_col_t> hs;
    size_t queried = 0;
    const size_t rss_before = rss_bytes();
    for (int i = 0; i < kHandles; ++i) {
        acp_col_t h = acp_create_bcast_direct(g[0], n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL) << "handle " << i;
        hs.push_back(h);
        queried += acp_query_col_memory(h);
        if (me() == g[0]) fill_pattern(a.data(), kRound, static_cast<uint64_t>(i));
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, kRound)), 0) << "handle " << i;
        ASSERT_EQ(first_mismatch(a.data(), kRound, static_cast<uint64_t>(i)), -1) << "handle " << i;
    }
    const size_t rss_after = rss_bytes();
    const size_t grown = rss_after > rss_before ? rss_after - rss_before : 0;
    std::printf("[rank %d] %d live handles: queried %zu bytes, RSS grew %zu (%zu a handle)\n", me(), kHandles, queried,
                grown, grown / kHandles);
#ifndef __SANITIZE_ADDRESS__  // ASan's shadow and redzones grow with every allocation
    EXPECT_LE(grown, queried + kHandles * kSlackPerHandle)
        << "RSS grew " << grown << " bytes over " << kHandles << " handles whose queries add up to " << queried;
#endif
    for (acp_col_t h : hs) EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}
