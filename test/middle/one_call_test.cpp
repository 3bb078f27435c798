// The one-call collectives (acp_bcast, acp_allgather, acp_allreduce):
// the right bytes on every member with arrays that move between calls,
// sizes that take several segments, the cache's bound on every member
// alike (eviction at the same call), many groups, explicit handles in
// between, bad input.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "../../basic/fault_injection.hpp"
#include "../report_util.hpp"
#include "basic/layer.hpp"
#include "col_util.hpp"
#include "middle/one_call.hpp"

using namespace acpx::test;
using acpx::middle::cached_handles;

namespace {

// One call of each kind over g with fresh arrays, checked; `seed` varies
// the bytes and the root.
void each_kind_once(std::vector<int> &g, size_t size, uint64_t seed) {
    const int n = static_cast<int>(g.size());
    const int mine = index_in(g, me());
    const int root = g[seed % g.size()];
    std::vector<unsigned char> a(size + 1, 0xEE);  // a new array every call
    if (me() == root) fill_pattern(a.data(), size, seed);
    ASSERT_EQ(acp_bcast(root, n, g.data(), a.data(), size), 0) << size << " B";
    EXPECT_EQ(first_mismatch(a.data(), size, seed), -1) << "bcast " << size << " B";
    EXPECT_EQ(a[size], 0xEE) << "bcast wrote past the array";

    std::vector<unsigned char> in(size), out(size * n + 1, 0xEE);
    fill_pattern(in.data(), size, seed + mine);
    ASSERT_EQ(acp_allgather(n, g.data(), in.data(), out.data(), size), 0) << size << " B";
    for (int m = 0; m < n; ++m)
        EXPECT_EQ(first_mismatch(out.data() + m * size, size, seed + m), -1) << "allgather block " << m;
    EXPECT_EQ(out[size * n], 0xEE);
    // In place: sendbuf is this member's block of recvbuf.
    std::vector<unsigned char> whole(size * n + 1, 0xEE);
    fill_pattern(whole.data() + mine * size, size, seed + 7 + mine);
    ASSERT_EQ(acp_allgather(n, g.data(), whole.data() + mine * size, whole.data(), size), 0) << size << " B in place";
    for (int m = 0; m < n; ++m)
        EXPECT_EQ(first_mismatch(whole.data() + m * size, size, seed + 7 + m), -1) << "in place, block " << m;
    EXPECT_EQ(whole[size * n], 0xEE);

    const size_t count = size / 8;
    std::vector<int64_t> v(count), sum(count);
    for (size_t i = 0; i < count; ++i) v[i] = static_cast<int64_t>(seed + mine * 1000 + i);
    ASSERT_EQ(acp_allreduce(n, g.data(), v.data(), sum.data(), count, ACP_TYPE_INT64, ACP_OP_SUM), 0);
    for (size_t i = 0; i < count; ++i) {
        const int64_t want = static_cast<int64_t>(n * (seed + i) + 1000 * n * (n - 1) / 2);
        ASSERT_EQ(sum[i], want) << "allreduce element " << i;
    }
}

}  // namespace

TEST(OneCall, EveryKindAndSizeWithArraysThatMove) {
    std::vector<int> g = make_group(Shape::kPermuted);
    // 0 and 1 byte; a buffer class boundary; over one buffer (1 MiB): segments.
    const size_t sizes[] = {0, 1, 64, 65, 4096, 70000, (size_t{1} << 20) + 24};
    uint64_t seed = 1;
    for (int pass = 0; pass < 2; ++pass)  // the second pass finds every handle cached
        for (size_t s : sizes) each_kind_once(g, s, seed++);
    EXPECT_LE(cached_handles(static_cast<int>(g.size()), g.data()), 16u);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(OneCall, TheBoundEvictsTheSameHandlesOnEveryMember) {
    std::vector<int> g = make_group(Shape::kAll);
    std::reverse(g.begin(), g.end());
    ScopedEnv bound("ACP_COL_CACHE", "2");
    uint64_t seed = 100;
    // The bound is read at a miss: a size no earlier test used misses.
    each_kind_once(g, 12345, seed++);
    EXPECT_LE(cached_handles(static_cast<int>(g.size()), g.data()), 2u);
    for (int round = 0; round < 3; ++round)
        for (size_t s : {size_t{8}, size_t{200}, size_t{3000}, size_t{50000}, size_t{8}}) {
            each_kind_once(g, s, seed++);
            EXPECT_LE(cached_handles(static_cast<int>(g.size()), g.data()), 2u);
        }
    // Three kinds a call: the last two handles stay.
    EXPECT_EQ(cached_handles(static_cast<int>(g.size()), g.data()), 2u);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(OneCall, NoCacheCreatesAndFreesAHandlePerCall) {
    std::vector<int> g = make_group(Shape::kAll);
    std::rotate(g.begin(), g.begin() + g.size() / 2, g.end());
    ScopedEnv none("ACP_COL_CACHE", "0");
    // The first call misses (a size no earlier test used) and frees what
    // the group held; every later one creates and frees its own.
    for (uint64_t seed = 200; seed < 204; ++seed) each_kind_once(g, 1000 + 8 * (seed - 200), seed);
    EXPECT_EQ(cached_handles(static_cast<int>(g.size()), g.data()), 0u);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(OneCall, ByteBoundCountsBuffers) {
    std::vector<int> g = make_group(Shape::kPartial);
    if (!member_of(g)) return (void)acp_sync();
    std::swap(g.front(), g.back());
    ScopedEnv bound("ACP_COL_CACHE", "16:200K");
    // Each call: a 64 KiB bcast buffer, an allgather's 2 x n blocks of 64
    // KiB, an allreduce's 2 x ~40 KB: 200K holds one call's at most, less
    // the allgather's beyond 1 member.
    for (uint64_t seed = 300; seed < 306; ++seed) {
        each_kind_once(g, 40000 + 8 * seed, seed);
        EXPECT_LE(cached_handles(static_cast<int>(g.size()), g.data()), 2u);
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST(OneCall, ManyGroupsAndExplicitHandlesInBetween) {
    // Every pair of neighbours (ranks i and i+1) and the whole job; an
    // explicit bcast handle's rounds between the calls.
    std::vector<int> all = make_group(Shape::kAll);
    std::vector<unsigned char> arr(5000);
    acp_col_t h = acp_create_bcast_direct(0, static_cast<int>(all.size()), all.data(), arr.data(), arr.size());
    ASSERT_NE(h, ACP_COL_NULL);
    uint64_t seed = 400;
    for (int i = 0; i + 1 < np(); ++i) {
        std::vector<int> pair = {i, i + 1};
        if (member_of(pair)) each_kind_once(pair, 777, seed);
        if (me() == 0) fill_pattern(arr.data(), arr.size(), seed);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, arr.size())), 0);
        EXPECT_EQ(first_mismatch(arr.data(), arr.size(), seed), -1);
        each_kind_once(all, 123, seed++);
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A failed copy fails its issuer and the members below it; the members
// above it succeed (acp_wait_col). Every member's cache must still hold
// the same handles after it, or the next call pairs a new handle's create
// on some members with a round of the old one on others.
TEST(OneCall, AFailedCopyLeavesEveryMembersCacheAlike) {
    if (np() < 3) GTEST_SKIP() << "needs a member above the failure (3 ranks)";
    ScopedEnv chain("ACP_COL_BCAST_ALGO", "chain");  // 0 -> 1 -> 2 ...: rank 1 forwards
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    const int n = static_cast<int>(g.size());
    constexpr size_t kSize = 100003;  // over the inline slots; a size no other test uses
    for (uint64_t seed = 500; seed < 504; ++seed) {
        std::vector<unsigned char> a(kSize);
        if (me() == 0) fill_pattern(a.data(), kSize, seed);
        const bool fault = seed == 501;
        if (fault && me() == 1) {
            ASSERT_EQ(acpx_test_fail("data:1"), 0);
        }
        int rc = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string err = stderr_of([&] { rc = acp_bcast(0, n, g.data(), a.data(), kSize); });
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        acpx_test_fail("data:1000000000");  // disarm what was not used
        if (fault && me() >= 1) {
            EXPECT_EQ(rc, -1) << "rank " << me() << " got undefined bytes and success";
            EXPECT_NE(err.find("acp_bcast"), std::string::npos) << err;
            continue;
        }
        EXPECT_EQ(rc, 0) << "call " << seed - 500 << ": " << err;
        EXPECT_EQ(first_mismatch(a.data(), kSize, seed), -1) << "call " << seed - 500;
        EXPECT_LT(took, 5.0) << "call " << seed - 500 << " waited for members that were not in it";
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST(OneCall, BadInputIsReportedAndTheNextCallWorks) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    unsigned char b[8] = {};
    int64_t v = 1, w = 0;
    int rc = 0;
    EXPECT_REPORTS(stderr_of([&] { rc = acp_bcast(g[0], n, g.data(), nullptr, 8); }), "acp_bcast", "array");
    EXPECT_EQ(rc, -1);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_bcast(g[0], 0, g.data(), b, 8); }), "acp_bcast", "np_group");
    EXPECT_EQ(rc, -1);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_bcast(g[0], n, nullptr, b, 8); }), "acp_bcast", "group");
    EXPECT_EQ(rc, -1);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_allgather(n, g.data(), nullptr, b, 8); }), "acp_allgather", "sendbuf");
    EXPECT_EQ(rc, -1);
    std::vector<unsigned char> whole(8 * static_cast<size_t>(n) + 1);
    const std::string across = stderr_of([&] { rc = acp_allgather(n, g.data(), whole.data() + 1, whole.data(), 8); });
    // Once, under the user's call: the round's send is the one-call's own.
    EXPECT_NE(across.find("acpx: acp_allgather: sendbuf: overlaps recvbuf"), std::string::npos) << across;
    EXPECT_EQ(across.find("acp_send_allgather_buffered"), std::string::npos) << across;
    EXPECT_EQ(across.find("overlaps"), across.rfind("overlaps")) << "reported twice: " << across;
    EXPECT_EQ(rc, -1) << "a sendbuf across two blocks of recvbuf";
    EXPECT_REPORTS(stderr_of([&] { rc = acp_allreduce(n, g.data(), &v, &w, 1, 99, ACP_OP_SUM); }), "acp_allreduce",
                   "type");
    EXPECT_EQ(rc, -1);
    EXPECT_EQ(acp_allreduce(n, g.data(), &v, &w, 1, ACP_TYPE_INT64, ACP_OP_SUM), 0);
    EXPECT_EQ(w, n);
    EXPECT_EQ(acp_sync(), 0);
}

// A call that times out on a member (the root comes after ACP_TIMEOUT)
// leaves the members' caches unlike: the member's handle is unusable.
// The member's later calls of the group then fail at once, naming the
// timeout (before: each waited ACP_TIMEOUT for a create the root never
// made, call after call), and it tells the root, whose calls of the group
// fail at once too, naming the member (before: they returned 0, for
// rounds no member ran). The group's explicit handles still work. Run by
// test/suites/middle_timeout_np2.sh (ACP_TIMEOUT=2); elsewhere it skips.
TEST(OneCallTimeout, AfterACallTimedOutTheGroupsCallsFailAtOnce) {
    const double timeout = acpx::basic::layer::timeout_seconds();
    if (timeout > 5) GTEST_SKIP() << "needs ACP_TIMEOUT <= 5: test/suites/middle_timeout_np2.sh runs it";
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g = {0, 1};
    if (me() <= 1) {
        unsigned char a[8];
        auto call = [&](uint64_t seed, std::string *err) {
            if (me() == 0) fill_pattern(a, sizeof a, seed);
            int rc = 0;
            *err = stderr_of([&] { rc = acp_bcast(0, 2, g.data(), a, sizeof a); });
            return rc;
        };
        std::string err;
        ASSERT_EQ(call(1, &err), 0) << err;
        EXPECT_EQ(first_mismatch(a, sizeof a, 1), -1);
        if (me() == 0) {
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout + 0.5));
            for (uint64_t seed = 2; seed <= 3; ++seed) {
                const auto t0 = std::chrono::steady_clock::now();
                EXPECT_EQ(call(seed, &err), -1) << "rank 1 gave the group up: nobody runs this round";
                EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5)
                    << "call " << seed;
                EXPECT_NE(
                    err.find("unusable on this member since rank 1's call of the group left its handle unusable there "
                             "(timed out; its message said so)"),
                    std::string::npos)
                    << err;
            }
        } else {
            EXPECT_EQ(call(2, &err), -1);
            EXPECT_NE(err.find("(ACP_TIMEOUT)"), std::string::npos) << err;
            for (uint64_t seed = 3; seed <= 4; ++seed) {
                const auto t0 = std::chrono::steady_clock::now();
                EXPECT_EQ(call(seed, &err), -1);
                EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5)
                    << "call " << seed;
                EXPECT_NE(err.find("unusable on this member since a round left its handle unusable (timed out)"),
                          std::string::npos)
                    << err;
            }
        }
        // The group's explicit handles work.
        std::vector<unsigned char> b(1000);
        acp_col_t h = acp_create_bcast_direct(0, 2, g.data(), b.data(), b.size());
        ASSERT_NE(h, ACP_COL_NULL);
        if (me() == 0) fill_pattern(b.data(), b.size(), 9);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, b.size())), 0);
        EXPECT_EQ(first_mismatch(b.data(), b.size(), 9), -1);
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

// Three members, the root late: rank 1 gives up first (it called first),
// while rank 2, which called a second later, still waits. Rank 1's
// message ends rank 2's wait then, a second before its own ACP_TIMEOUT
// would have, naming rank 1; the root's next call fails at once. Run by
// test/suites/middle_timeout_np3.sh (ACP_TIMEOUT=2); elsewhere it skips.
TEST(OneCallTimeout, AMemberThatGivesUpEndsTheOthersWaits) {
    const double timeout = acpx::basic::layer::timeout_seconds();
    if (timeout > 5) GTEST_SKIP() << "needs ACP_TIMEOUT <= 5: test/suites/middle_timeout_np3.sh runs it";
    if (np() < 3) GTEST_SKIP() << "needs three ranks";
    std::vector<int> g = {0, 1, 2};
    const bool member = me() <= 2;
    unsigned char a[8];
    std::string err;
    int rc = 0;
    auto call = [&](uint64_t seed) {
        if (me() == 0) fill_pattern(a, sizeof a, seed);
        err = stderr_of([&] { rc = acp_bcast(0, 3, g.data(), a, sizeof a); });
        return rc;
    };
    if (member) {
        EXPECT_EQ(call(1), 0) << err;
        EXPECT_EQ(first_mismatch(a, sizeof a, 1), -1);
    }
    ASSERT_EQ(acp_sync(), 0);  // every rank: the members start together
    const auto t0 = std::chrono::steady_clock::now();
    auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    if (me() == 0) {
        std::this_thread::sleep_for(std::chrono::duration<double>(timeout + 1.5));
        EXPECT_EQ(call(2), -1);
        EXPECT_LT(seconds(), timeout + 2.0) << "at once";
        EXPECT_NE(err.find("since rank 1's call of the group left its handle unusable there (timed out"),
                  std::string::npos)
            << err;
    } else if (me() == 1) {
        EXPECT_EQ(call(2), -1);
        EXPECT_NE(err.find("(ACP_TIMEOUT)"), std::string::npos) << err;
    } else if (me() == 2) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        EXPECT_EQ(call(2), -1);
        EXPECT_LT(seconds(), timeout + 0.7)
            << "ended by rank 1's message, not at its own timeout (" << timeout + 1 << " s)";
        EXPECT_NE(
            err.find("rank 1's call of the group left its handle unusable there (timed out; its message said so)"),
            std::string::npos)
            << err;
    }
    if (member) {
        EXPECT_EQ(call(3), -1) << "every member's calls of the group fail from then on";
    }
    EXPECT_EQ(acp_sync(), 0);
}
