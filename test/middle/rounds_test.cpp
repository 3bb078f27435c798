// Many rounds with changing data and random delays on every rank (round
// safety: a round never overwrites a member that is still reading the
// previous one), and several handles in flight at once.
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "basic/layer.hpp"
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

namespace {

// A bcast handle over `array` bytes whose root sends rounds of `round`
// bytes: the root's waits return while the members have not called send
// yet, depth - 1 rounds in a row, and the next waits for them. Each
// member then gets every round's own bytes, in order, though the root's
// array changed.
void root_runs_ahead(size_t array, size_t round_bytes, uint64_t depth, const std::string &what) {
    std::vector<int> g = make_group(Shape::kPermuted);
    const int root = g[g.size() / 2];
    std::vector<unsigned char> a(array);
    acp_col_t h = acp_create_bcast_direct(root, static_cast<int>(g.size()), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    if (me() == root) {
        for (uint64_t round = 1; round < depth; ++round) {
            fill_pattern(a.data(), round_bytes, round);
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, round_bytes)), 0) << what << ", round " << round;
        }
        fill_pattern(a.data(), round_bytes, depth);
        acp_request_t r = acp_send_bcast_direct(h, 0, round_bytes);
        ASSERT_NE(r, ACP_REQUEST_NULL);
        for (int i = 0; i < 2000; ++i)
            ASSERT_EQ(acp_test_col(r), 0) << what << ": round " << depth << " overran the members' slots";
        ASSERT_EQ(acp_sync(), 0);  // lets the members send
        ASSERT_EQ(acp_wait_col(r), 0);
    } else {
        ASSERT_EQ(acp_sync(), 0);
        for (uint64_t round = 1; round <= depth; ++round) {
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, round_bytes)), 0) << what << ", round " << round;
            ASSERT_EQ(first_mismatch(a.data(), round_bytes, round), -1) << what << ", round " << round;
        }
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

}  // namespace

// A bcast handle of 2 KiB has rings of 16 inline slots, one of 100 bytes
// rings of 32 on one node with a core per rank (acp.h; its pool's ring,
// where ACP_COL_POOL is set, is as deep) and 64 across nodes or on a
// crowded node, one of 8 KiB 4 (16 across nodes), and one of 1 MiB, rings
// of 2 for its large rounds and, for rounds up to 48 bytes, the pool's
// ring of 32 (64 across nodes; by default delegated) or a small ring of 32 or
// 64 as the 100-byte one's: its root runs that many rounds minus one
// ahead of members that have not called send (root_runs_ahead).
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
    const bool two = nodes && std::string(nodes) == "2";
    // Rounds of one or two lines: 32 slots through the pool, 32 on one node
    // with a core per rank, else 64.
    const PoolUse use = pool_use(std::string(GetParam()) != "root");
    const uint64_t across = two ? 16 : 4, lines = two || acpx::basic::layer::node_crowded() ? 64 : 32;
    const uint64_t pooled = two ? 64 : 32;  // the pooled ring: as a small handle's across nodes
    for (const Ring ring : {Ring{2048, 2048, 16}, Ring{100, 100, use.small ? pooled : lines},
                            Ring{1 << 20, 8, use.large ? pooled : lines}, Ring{8192, 8192, across}})
        for (const char *algo : {"binomial", "chain"}) {
            ScopedEnv force("ACP_COL_BCAST_ALGO", algo);
            root_runs_ahead(
                ring.array, ring.round, ring.depth,
                std::string(algo) + ", " + std::to_string(ring.round) + " of " + std::to_string(ring.array) + " bytes");
        }
}

// Rounds through the eager pool (across nodes, as held puts) go as far
// ahead as slots of their own size would let them, not the handle's: on
// a 64 KiB handle (8 KiB slots: 4 deep), 64-byte rounds 31 ahead, 1 KiB
// ones 31, 8 KiB ones 3; across nodes, as a ring there would (at least
// 16 within 128 KiB; the pooled ring is 64 deep there), 64-byte ones 63,
// 8 KiB ones 15 and 32 KiB ones (eager there up to what a held put
// carries) 3. A receiver on another node sends its ready byte often
// enough for that (ready_due): once every 8 rounds, as for the 32-slot
// ring, would leave the root waiting at 32 KiB rounds for a byte the
// receiver had not sent.
TEST_P(Rounds, PooledRoundsGoAsFarAheadAsSlotsOfTheirSize) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    ScopedEnv pool("ACP_COL_POOL", "1M"), inl("ACP_COL_INLINE", "8K"), tree("ACP_COL_BCAST_ALGO", "binomial");
    if (!pool_use(std::string(GetParam()) != "root").large) GTEST_SKIP() << "no eager pool: root mode";
    const bool two = on_two_hosts();
    std::vector<std::pair<size_t, uint64_t>> rings{{64, two ? 64 : 32}, {1024, 32}, {8192, two ? 16 : 4}};
    if (two) rings.emplace_back(32768, 4);
    for (const auto &[round, depth] : rings)
        root_runs_ahead(65536, round, depth, std::to_string(round) + "-byte rounds of a 64 KiB handle");
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

// Sixteen handles share the process's eager pool (with ACP_COL_POOL:
// rounds over 48 bytes, up to the eager cap, on one node): bcasts of 200 B-8 KiB and allgathers
// of 1 KiB blocks, every round on all of them at once, waited for in
// reverse, with jitter. Every member gets every round's own bytes.
TEST_P(Rounds, ManyHandlesShareTheEagerPool) {
    std::vector<int> g = make_group(Shape::kAll);
    const size_t n = g.size();
    constexpr int kBcasts = 8, kAllgathers = 8;
    constexpr size_t kBlock = 1000;
    std::vector<std::vector<unsigned char>> arrays;
    std::vector<acp_col_t> h;
    for (int i = 0; i < kBcasts; ++i) {
        arrays.emplace_back(200 + 1000 * static_cast<size_t>(i));
        h.push_back(acp_create_bcast_direct(g[static_cast<size_t>(i) % n], static_cast<int>(n), g.data(),
                                            arrays.back().data(), arrays.back().size()));
    }
    for (int i = 0; i < kAllgathers; ++i) {  // half of them rings: a member sends several blocks a round
        arrays.emplace_back(n * kBlock);
        ASSERT_EQ(acp_set_col_algorithm(nullptr, i % 2 ? "ring" : ""), 0);
        h.push_back(acp_create_allgather_direct(static_cast<int>(n), g.data(), arrays.back().data(), kBlock));
    }
    ASSERT_EQ(acp_set_col_algorithm(nullptr, ""), 0);
    for (const acp_col_t c : h) ASSERT_NE(c, ACP_COL_NULL);
    Jitter jitter;
    const size_t mine = index_in(g, me());
    for (uint64_t round = 1; round <= 200; ++round) {
        std::vector<acp_request_t> r;
        for (size_t i = 0; i < h.size(); ++i) {
            const uint64_t tag = round * 1000 + i;
            if (i < kBcasts) {
                if (g[i % n] == me()) fill_pattern(arrays[i].data(), arrays[i].size(), tag);
                r.push_back(acp_send_bcast_direct(h[i], 0, arrays[i].size()));
            } else {
                const size_t len = round % 3 == 0 ? 40 : kBlock;  // inline and pooled rounds in turn
                fill_pattern(arrays[i].data() + mine * kBlock, len, tag * 10 + mine);
                r.push_back(acp_send_allgather_direct(h[i], 0, len));
            }
            ASSERT_NE(r.back(), ACP_REQUEST_NULL);
            if (i % 4 == 0) jitter(20);
        }
        for (size_t i = h.size(); i-- > 0;) ASSERT_EQ(acp_wait_col(r[i]), 0) << "handle " << i << " round " << round;
        jitter(20);
        for (size_t i = 0; i < h.size(); ++i) {
            const uint64_t tag = round * 1000 + i;
            if (i < kBcasts) {
                ASSERT_EQ(first_mismatch(arrays[i].data(), arrays[i].size(), tag), -1)
                    << "bcast " << i << " round " << round;
                continue;
            }
            const size_t len = round % 3 == 0 ? 40 : kBlock;
            for (size_t b = 0; b < n; ++b)
                ASSERT_EQ(first_mismatch(arrays[i].data() + b * kBlock, len, tag * 10 + b), -1)
                    << "allgather " << i << " round " << round << " block " << b;
        }
    }
    for (const acp_col_t c : h) EXPECT_EQ(acp_free_col(c), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// More 8 KiB rounds run ahead than the eager pool holds (ACP_COL_POOL,
// the suite's): the root sends three rounds on each of enough
// handles before its members call send. Those that found a chunk end at
// once; the others wait for their members (their bytes go into the
// arrays once they called send), and nothing fails or hangs. Every member
// gets every round's own bytes.
TEST_P(Rounds, AFullEagerPoolSendsTheNonEagerWay) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const char *inl = std::getenv("ACP_COL_INLINE"), *pool_env = std::getenv("ACP_COL_POOL"),
               *nodes = std::getenv("ACPX_TEST_NODES"), *cma = std::getenv("ACP_CMA");
    if ((inl && std::string(inl) == "0") || std::string(GetParam()) == "root" || (nodes && std::string(nodes) == "2") ||
        !pool_env || std::string(pool_env) == "0")
        GTEST_SKIP() << "no eager pool: delegated handles on one node with inline slots and ACP_COL_POOL have one";
    if (cma && std::string(cma) == "0") GTEST_SKIP() << "ACP_CMA=0: no peer maps the pool (rounds go as held puts)";
    const char unit = std::string(pool_env).back();
    const size_t pool = std::strtoull(pool_env, nullptr, 10) << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
    constexpr size_t kRound = 8192, kAhead = 3;  // an 8 KiB handle's ring: 4 rounds, 3 ahead
    const size_t handles = pool / (kAhead * kRound) + 4;
    std::vector<int> g = make_group(Shape::kAll);
    const int root = g[0];
    std::vector<std::vector<unsigned char>> a(handles, std::vector<unsigned char>(kRound));
    std::vector<acp_col_t> h(handles);
    for (size_t i = 0; i < handles; ++i) {
        h[i] = acp_create_bcast_direct(root, static_cast<int>(g.size()), g.data(), a[i].data(), kRound);
        ASSERT_NE(h[i], ACP_COL_NULL);
    }
    auto tag = [](size_t i, uint64_t round) { return i * 100 + round; };
    std::vector<uint64_t> sent(handles, 0);  // root: rounds done ahead of the members
    std::vector<acp_request_t> pending(handles, ACP_REQUEST_NULL);
    if (me() == root) {
        for (uint64_t round = 1; round <= kAhead; ++round)
            for (size_t i = 0; i < handles; ++i) {
                if (pending[i] != ACP_REQUEST_NULL) continue;
                fill_pattern(a[i].data(), kRound, tag(i, round));
                acp_request_t r = acp_send_bcast_direct(h[i], 0, kRound);
                ASSERT_NE(r, ACP_REQUEST_NULL);
                int done = 0;
                for (int k = 0; k < 200 && (done = acp_test_col(r)) == 0;) ++k;
                ASSERT_GE(done, 0) << "handle " << i << " round " << round;
                if (done == 1)
                    sent[i] = round;
                else
                    pending[i] = r;
            }
        size_t early = 0, waiting = 0;
        for (size_t i = 0; i < handles; ++i) early += sent[i], waiting += pending[i] != ACP_REQUEST_NULL;
        EXPECT_GT(early, 0u) << "no round found room in the pool";
        EXPECT_GT(waiting, 0u) << "every round found room: the pool holds more than " << pool << " bytes?";
    }
    ASSERT_EQ(acp_sync(), 0);  // the members send from now on
    for (size_t i = 0; i < handles; ++i)
        for (uint64_t round = 1; round <= kAhead; ++round) {
            if (me() == root) {
                if (round <= sent[i]) continue;
                if (pending[i] != ACP_REQUEST_NULL) {
                    ASSERT_EQ(acp_wait_col(pending[i]), 0) << "handle " << i << " round " << round;
                    pending[i] = ACP_REQUEST_NULL;
                    continue;
                }
                fill_pattern(a[i].data(), kRound, tag(i, round));
                ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h[i], 0, kRound)), 0);
                continue;
            }
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h[i], 0, kRound)), 0) << "handle " << i << " round " << round;
            ASSERT_EQ(first_mismatch(a[i].data(), kRound, tag(i, round)), -1) << "handle " << i << " round " << round;
        }
    for (const acp_col_t c : h) EXPECT_EQ(acp_free_col(c), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A delegated round over a handle's inline slots, to a member whose slots
// the sender does not map (another node; on one node, with ACP_CMA=0, a
// handle with an eager pool), goes as a held put: the
// receiver's transport layer holds its bytes until the receiver takes
// them. So a bcast root runs up to 31 rounds of 8 KiB (across nodes,
// members alone on their nodes: a ring of 64 one-line slots, every round
// over 48 bytes a held put, 5.2 KB a handle; on one node
// ACP_COL_INLINE=1024 and 1 KiB rounds, the pooled handle's eager cap,
// its ring of 32) ahead of a member that has not called send,
// and the member then gets every round's own bytes; an allgather's 32 KiB
// blocks (over the 16 KiB slots across nodes) never land in a member's
// array before it called send, though its peer sent them long before. Two
// members: rank 0 and the last rank, on different hosts in the two-host
// suites.
TEST(HeldRounds, GoAheadOfMembersWhoseSlotsAreNotMapped) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const char *nodes = std::getenv("ACPX_TEST_NODES"), *cma = std::getenv("ACP_CMA"),
               *pool = std::getenv("ACP_COL_POOL");
    const bool two_hosts = nodes && std::string(nodes) == "2";
    const bool pooled_unmapped = cma && std::string(cma) == "0" && pool && std::string(pool) != "0";
    if (!two_hosts && !pooled_unmapped)
        GTEST_SKIP() << "members map each other's slots: two hosts (ACPX_TEST_NODES=2), or ACP_CMA=0 with ACP_COL_POOL";
    if (std::getenv("ACP_COL_INLINE") || std::getenv("ACP_COL_EXEC"))
        GTEST_SKIP() << "the suite sets the slots or mode";
    std::unique_ptr<ScopedEnv> inl;
    if (!two_hosts) inl = std::make_unique<ScopedEnv>("ACP_COL_INLINE", "1024");
    ScopedEnv exec("ACP_COL_EXEC", "delegated");
    std::vector<int> g{0, np() - 1};
    const bool member = me() == g[0] || me() == g[1];
    const size_t round_bytes = two_hosts ? 8192 : 1024;
    constexpr uint64_t kDepth = 32;  // an alone bcast's held rounds (plan.hpp)
    if (member) {
        std::vector<unsigned char> a(round_bytes);
        acp_col_t h = acp_create_bcast_direct(g[0], 2, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        if (two_hosts) {
            EXPECT_LE(acp_query_col_memory(h), 6144u) << "a ring of 64 one-line slots, the bytes held puts";
        }
        if (me() == g[0]) {
            for (uint64_t round = 1; round < kDepth; ++round) {
                fill_pattern(a.data(), a.size(), round);
                acp_request_t r = acp_send_bcast_direct(h, 0, a.size());
                ASSERT_NE(r, ACP_REQUEST_NULL);
                int done = 0;
                for (int k = 0; k < 200000 && (done = acp_test_col(r)) == 0; ++k) usleep(10);
                ASSERT_EQ(done, 1) << "round " << round << " waited for the member's send";
            }
            fill_pattern(a.data(), a.size(), kDepth);
            acp_request_t r = acp_send_bcast_direct(h, 0, a.size());
            for (int i = 0; i < 2000; ++i) ASSERT_EQ(acp_test_col(r), 0) << "round " << kDepth << " overran the ring";
            ASSERT_EQ(acp_sync(), 0);
            ASSERT_EQ(acp_wait_col(r), 0);
        } else {
            ASSERT_EQ(acp_sync(), 0);
            for (uint64_t round = 1; round <= kDepth; ++round) {
                ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0) << "round " << round;
                ASSERT_EQ(first_mismatch(a.data(), a.size(), round), -1) << "round " << round;
            }
        }
        EXPECT_EQ(acp_free_col(h), 0);
    } else {
        ASSERT_EQ(acp_sync(), 0);
    }
    ASSERT_EQ(acp_sync(), 0);
    if (!two_hosts) return;
    constexpr size_t kBlock = 32768;
    if (member) {
        std::vector<unsigned char> a(2 * kBlock);
        acp_col_t h = acp_create_allgather_direct(2, g.data(), a.data(), kBlock);
        ASSERT_NE(h, ACP_COL_NULL);
        const size_t mine = me() == g[0] ? 0 : 1, theirs = 1 - mine;
        Jitter jitter;
        for (uint64_t round = 1; round <= 200; ++round) {
            // The late member (in turn) finds last round's block as it was,
            // though the other one's block of this round has come.
            if ((round % 2 == 0) == (mine == 1)) {
                usleep(2000);
                if (round > 1) {
                    ASSERT_EQ(first_mismatch(a.data() + theirs * kBlock, kBlock, (round - 1) * 10 + theirs), -1)
                        << "round " << round << ": the block was written before this member's send";
                }
            }
            fill_pattern(a.data() + mine * kBlock, kBlock, round * 10 + mine);
            ASSERT_EQ(acp_wait_col(acp_send_allgather_direct(h, 0, kBlock)), 0) << "round " << round;
            ASSERT_EQ(first_mismatch(a.data() + theirs * kBlock, kBlock, round * 10 + theirs), -1) << "round " << round;
            jitter(100);
        }
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Rounds, ::testing::Values("delegated", "root"),
                         [](const auto &info) { return std::string(info.param); });
