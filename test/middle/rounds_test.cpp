// Many rounds with changing data and random delays on every rank (round
// safety: a round never overwrites a member that is still reading the
// previous one), and several handles in flight at once.
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <string>

#include "col_util.hpp"

using namespace acpx::test;

namespace {

class Rounds : public ::testing::TestWithParam<const char *> {
  protected:
    void SetUp() override { exec_ = std::make_unique<ScopedEnv>("ACP_COL_EXEC", GetParam()); }
    std::unique_ptr<ScopedEnv> exec_;
};

// Sleeps 0..max_us microseconds, differently on every rank and round.
struct Jitter {
    std::mt19937 rng{static_cast<unsigned>(12345 + 77 * me())};
    void operator()(unsigned max_us) { usleep(std::uniform_int_distribution<unsigned>(0, max_us)(rng)); }
};

}  // namespace

TEST_P(Rounds, ThousandBcastRoundsKeepTheirData) {
    std::vector<int> g = make_group(Shape::kPermuted);
    const int root = g[g.size() / 2];
    // A 70000-byte array: rounds cycle through 8 bytes (its small ring),
    // 64 (its ring of 64 KiB slots; both carried in the control blocks,
    // eagerly) and 70000 (above the 64 KiB inline size: written straight
    // into the members' arrays). A 1000-byte one: every round inline,
    // through rings of 32 slots, the root running ahead.
    for (const size_t array : {size_t{70000}, size_t{1000}}) {
        std::vector<unsigned char> a(array);
        acp_col_t h = acp_create_bcast_direct(root, static_cast<int>(g.size()), g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        Jitter jitter;
        for (uint64_t round = 1; round <= 1000; ++round) {
            const size_t n = array == 1000    ? (round % 2 ? 64 : a.size())
                             : round % 3 == 0 ? 8
                             : round % 3 == 1 ? 64
                                              : a.size();
            if (me() == root) fill_pattern(a.data(), n, round);
            jitter(100);
            acp_request_t r = acp_send_bcast_direct(h, 0, n);
            ASSERT_NE(r, ACP_REQUEST_NULL);
            ASSERT_EQ(acp_wait_col(r), 0);
            jitter(100);  // a later round arriving early would change the bytes meanwhile
            ASSERT_EQ(first_mismatch(a.data(), n, round), -1) << "array " << array << ", round " << round;
        }
        EXPECT_EQ(acp_free_col(h), 0);
        EXPECT_EQ(acp_sync(), 0);
    }
}

// A bcast handle of 2 KiB has rings of 16 inline slots, one of 100 bytes
// rings of 64 (acp.h), one of 8 KiB 4 (16 across nodes), and one of
// 1 MiB, rings of 2 for its large rounds
// and of 64 for rounds up to 48 bytes: its root's waits return while the
// members have not called send yet, depth - 1 rounds in a row, and the
// next waits for them. Each member then gets every round's own bytes, in
// order, though the root's array changed.
TEST_P(Rounds, BcastRootRunsAsManySmallRoundsAheadAsItsRingsHold) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (const char *inl = std::getenv("ACP_COL_INLINE"); inl && std::string(inl) == "0")
        GTEST_SKIP() << "no inline slots (ACP_COL_INLINE=0): every round waits for its members";
    struct Ring {
        size_t array, round;
        uint64_t depth;
    };
    // One of 8 KiB: 4 on one node, 16 for a group across nodes (the
    // two-host suites: ACPX_TEST_NODES=2).
    const char *nodes = std::getenv("ACPX_TEST_NODES");
    const uint64_t across = nodes && std::string(nodes) == "2" ? 16 : 4;
    for (const Ring ring : {Ring{2048, 2048, 16}, Ring{100, 100, 64}, Ring{1 << 20, 8, 64}, Ring{8192, 8192, across}})
        for (const char *algo : {"binomial", "chain"}) {
            ScopedEnv force("ACP_COL_BCAST_ALGO", algo);
            const std::string what =
                std::string(algo) + ", " + std::to_string(ring.round) + " of " + std::to_string(ring.array) + " bytes";
            std::vector<int> g = make_group(Shape::kPermuted);
            const int root = g[g.size() / 2];
            std::vector<unsigned char> a(ring.array);
            acp_col_t h = acp_create_bcast_direct(root, static_cast<int>(g.size()), g.data(), a.data(), a.size());
            ASSERT_NE(h, ACP_COL_NULL);
            if (me() == root) {
                for (uint64_t round = 1; round < ring.depth; ++round) {
                    fill_pattern(a.data(), ring.round, round);
                    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, ring.round)), 0) << what << ", round " << round;
                }
                fill_pattern(a.data(), ring.round, ring.depth);
                acp_request_t r = acp_send_bcast_direct(h, 0, ring.round);
                ASSERT_NE(r, ACP_REQUEST_NULL);
                for (int i = 0; i < 2000; ++i)
                    ASSERT_EQ(acp_test_col(r), 0) << what << ": round " << ring.depth << " overran the members' slots";
                ASSERT_EQ(acp_sync(), 0);  // lets the members send
                ASSERT_EQ(acp_wait_col(r), 0);
            } else {
                ASSERT_EQ(acp_sync(), 0);
                for (uint64_t round = 1; round <= ring.depth; ++round) {
                    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, ring.round)), 0) << what << ", round " << round;
                    ASSERT_EQ(first_mismatch(a.data(), ring.round, round), -1) << what << ", round " << round;
                }
            }
            EXPECT_EQ(acp_free_col(h), 0);
            EXPECT_EQ(acp_sync(), 0);
        }
}

TEST_P(Rounds, ThousandAllgatherRoundsKeepTheirData) {
    std::vector<int> g = make_group(Shape::kAll);
    const size_t block = 20000, n = g.size();  // rounds alternate: 32 bytes (eager) and 20000 (direct)
    std::vector<unsigned char> a(n * block);
    acp_col_t h = acp_create_allgather_direct(static_cast<int>(n), g.data(), a.data(), block);
    ASSERT_NE(h, ACP_COL_NULL);
    Jitter jitter;
    for (uint64_t round = 1; round <= 1000; ++round) {
        const size_t len = round % 2 ? 32 : block;
        fill_pattern(a.data() + index_in(g, me()) * block, len, round * 100 + me());
        jitter(100);
        acp_request_t r = acp_send_allgather_direct(h, 0, len);
        ASSERT_NE(r, ACP_REQUEST_NULL);
        ASSERT_EQ(acp_wait_col(r), 0);
        jitter(100);
        for (size_t b = 0; b < n; ++b)
            ASSERT_EQ(first_mismatch(a.data() + b * block, len, round * 100 + g[b]), -1)
                << "round " << round << " block " << b;
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST_P(Rounds, BufferedSegmentsWithJitter) {
    std::vector<int> g = make_group(Shape::kAll);
    acp_col_t h = acp_create_bcast_buffered(g.back(), static_cast<int>(g.size()), g.data(), 256);
    ASSERT_NE(h, ACP_COL_NULL);
    Jitter jitter;
    for (uint64_t round = 1; round <= 100; ++round) {
        std::vector<unsigned char> a(1000 + round);  // 4 or 5 segments
        if (me() == g.back()) fill_pattern(a.data(), a.size(), round);
        jitter(200);
        acp_request_t r = acp_send_bcast_buffered(h, a.data(), a.size());
        ASSERT_NE(r, ACP_REQUEST_NULL);
        ASSERT_EQ(acp_wait_col(r), 0);
        ASSERT_EQ(first_mismatch(a.data(), a.size(), round), -1) << "round " << round;
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST_P(Rounds, ConcurrentHandlesOnOverlappingGroups) {
    // Three handles: a bcast over everyone, an allgather over everyone and
    // a bcast over a partial group, all in flight together, waited for in
    // reverse order.
    std::vector<int> all = make_group(Shape::kAll), part = make_group(Shape::kPartial);
    const size_t n = all.size();
    std::vector<unsigned char> b1(4096), ag(n * 100), b2(777);
    acp_col_t h1 = acp_create_bcast_direct(0, static_cast<int>(n), all.data(), b1.data(), b1.size());
    acp_col_t h2 = acp_create_allgather_direct(static_cast<int>(n), all.data(), ag.data(), 100);
    acp_col_t h3 = member_of(part) ? acp_create_bcast_direct(part.back(), static_cast<int>(part.size()), part.data(),
                                                             b2.data(), b2.size())
                                   : ACP_COL_NULL;
    ASSERT_NE(h1, ACP_COL_NULL);
    ASSERT_NE(h2, ACP_COL_NULL);
    ASSERT_EQ(h3 != ACP_COL_NULL, member_of(part));
    for (uint64_t round = 1; round <= 50; ++round) {
        if (me() == 0) fill_pattern(b1.data(), b1.size(), round);
        fill_pattern(ag.data() + me() * 100, 100, round * 10 + me());
        if (h3 && me() == part.back()) fill_pattern(b2.data(), b2.size(), round + 500);
        acp_request_t r1 = acp_send_bcast_direct(h1, 0, b1.size());
        acp_request_t r2 = acp_send_allgather_direct(h2, 0, 100);
        acp_request_t r3 = h3 ? acp_send_bcast_direct(h3, 0, b2.size()) : ACP_REQUEST_NULL;
        if (h3) {
            ASSERT_EQ(acp_wait_col(r3), 0);
        }
        ASSERT_EQ(acp_wait_col(r2), 0);
        ASSERT_EQ(acp_wait_col(r1), 0);
        ASSERT_EQ(first_mismatch(b1.data(), b1.size(), round), -1);
        for (size_t b = 0; b < n; ++b) {
            ASSERT_EQ(first_mismatch(ag.data() + b * 100, 100, round * 10 + b), -1);
        }
        if (h3) {
            ASSERT_EQ(first_mismatch(b2.data(), b2.size(), round + 500), -1);
        }
    }
    EXPECT_EQ(acp_free_col(h1), 0);
    EXPECT_EQ(acp_free_col(h2), 0);
    if (h3) {
        EXPECT_EQ(acp_free_col(h3), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Rounds, ::testing::Values("delegated", "root"),
                         [](const auto &info) { return std::string(info.param); });
