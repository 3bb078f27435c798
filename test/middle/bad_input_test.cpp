// Bad input to the persistent collectives: each call returns its failure
// value, prints one line naming the function and the argument, and leaves
// everything usable (a good create and round work right after).
#include <chrono>
#include <memory>
#include <tuple>

#include "../report_util.hpp"
#include "col_util.hpp"

using namespace acpx::test;

namespace {

bool has(const std::string &s, const char *what) { return s.find(what) != std::string::npos; }

// A good round on a fresh handle: nothing was left broken.
void expect_usable() {
    std::vector<int> g = make_group(Shape::kAll);
    std::vector<unsigned char> a(100);
    acp_col_t h = acp_create_bcast_direct(g[0], static_cast<int>(g.size()), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    if (me() == g[0]) fill_pattern(a.data(), a.size(), 4242);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);
    EXPECT_EQ(first_mismatch(a.data(), a.size(), 4242), -1);
    EXPECT_EQ(acp_free_col(h), 0);
}

}  // namespace

TEST(ColBadInput, GroupArguments) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(64);
    acp_col_t h = ACP_COL_NULL;
    const char *fn = "acp_create_bcast_direct";
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(0, 0, g.data(), a.data(), 64); }), fn, "np_group");
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(0, -3, g.data(), a.data(), 64); }), fn, "np_group");
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(0, n, nullptr, a.data(), 64); }), fn, "group");
    EXPECT_EQ(h, ACP_COL_NULL);
    std::vector<int> out_of_range = g;
    out_of_range.back() = np();
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(0, n, out_of_range.data(), a.data(), 64); }), fn,
                   "group");
    std::vector<int> negative = g;
    negative.back() = -1;
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_allgather_direct(n, negative.data(), a.data(), 8); }),
                   "acp_create_allgather_direct", "group");
    std::vector<int> twice = g;
    twice.push_back(g[0]);
    std::string out = stderr_of([&] { h = acp_create_bcast_direct(0, n + 1, twice.data(), a.data(), 64); });
    EXPECT_REPORTS(out, fn, "group");
    EXPECT_TRUE(has(out, "listed twice")) << out;
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(np(), n, g.data(), a.data(), 64); }), fn, "root");
    EXPECT_EQ(h, ACP_COL_NULL);
    if (np() > 1) {
        // A root outside a partial group, and a group without the caller.
        std::vector<int> part = make_group(Shape::kPartial);
        if (member_of(part)) {
            const int outsider = np() / 2;
            EXPECT_REPORTS(stderr_of([&] {
                               h = acp_create_bcast_buffered(outsider, static_cast<int>(part.size()), part.data(), 64);
                           }),
                           "acp_create_bcast_buffered", "root");
        }
        std::vector<int> other = {(me() + 1) % np()};
        out = stderr_of([&] { h = acp_create_allgather_buffered(1, other.data(), 64); });
        EXPECT_REPORTS(out, "acp_create_allgather_buffered", "group");
        EXPECT_TRUE(has(out, "does not contain the calling rank")) << out;
    }
    EXPECT_EQ(h, ACP_COL_NULL);
    expect_usable();
    EXPECT_EQ(acp_sync(), 0);
}

TEST(ColBadInput, ArraysSizesAndSettings) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    acp_col_t h = ACP_COL_NULL;
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_direct(0, n, g.data(), nullptr, 10); }),
                   "acp_create_bcast_direct", "array");
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_allgather_direct(n, g.data(), nullptr, 10); }),
                   "acp_create_allgather_direct", "array");
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 0); }), "acp_create_bcast_buffered",
                   "buffersize");
    EXPECT_REPORTS(stderr_of([&] { h = acp_create_allgather_buffered(n, g.data(), 0); }),
                   "acp_create_allgather_buffered", "buffersize");
    {
        ScopedEnv bad("ACP_COL_EXEC", "fastest");
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 8); }),
                       "acp_create_bcast_buffered", "ACP_COL_EXEC");
    }
    {
        ScopedEnv bad("ACP_COL_ALLGATHER_ALGO", "telepathy");
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_allgather_buffered(n, g.data(), 8); }),
                       "acp_create_allgather_buffered", "ACP_COL_ALLGATHER_ALGO");
    }
    for (const char *inl : {"65K", "-1", "lots"}) {
        ScopedEnv bad("ACP_COL_INLINE", inl);
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 8); }),
                       "acp_create_bcast_buffered", "ACP_COL_INLINE");
    }
    for (const char *ring : {"1", "3", "128", "deep"}) {
        ScopedEnv bad("ACP_COL_RING_DEPTH", ring);
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 8); }),
                       "acp_create_bcast_buffered", "ACP_COL_RING_DEPTH");
    }
    EXPECT_EQ(h, ACP_COL_NULL);
    // NULL array with size 0 is a valid (empty) direct handle.
    h = acp_create_bcast_direct(0, n, g.data(), nullptr, 0);
    ASSERT_NE(h, ACP_COL_NULL);
    EXPECT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, 0)), 0);
    EXPECT_EQ(acp_free_col(h), 0);
    expect_usable();
    EXPECT_EQ(acp_sync(), 0);
}

TEST(ColBadInput, MembersWhoseArgumentsDisagreeAllFail) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(128);
    acp_col_t h = ACP_COL_NULL;
    // Rank 1 passes another arraysize; every member learns it at create.
    std::string out = stderr_of([&] { h = acp_create_bcast_direct(0, n, g.data(), a.data(), me() == 1 ? 100 : 128); });
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_REPORTS(out, "acp_create_bcast_direct", "group");
    EXPECT_TRUE(has(out, "disagree") && has(out, "arraysize")) << out;
    // A different root, and a different order of the same ranks.
    out = stderr_of([&] { h = acp_create_bcast_direct(me() == 1 ? 1 : 0, n, g.data(), a.data(), 128); });
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_TRUE(has(out, "root")) << out;
    std::vector<int> order = g;
    if (me() == 1) std::reverse(order.begin(), order.end());
    out = stderr_of([&] { h = acp_create_allgather_direct(n, order.data(), a.data(), 128 / n); });
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_TRUE(has(out, "order")) << out;
    // Another execution mode on one member.
    {
        ScopedEnv mode("ACP_COL_EXEC", me() == 1 ? "root" : "delegated");
        out = stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); });
    }
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_TRUE(has(out, "ACP_COL_EXEC")) << out;
    // Another inline size: the control blocks would not match.
    {
        ScopedEnv inl("ACP_COL_INLINE", me() == 1 ? "0" : "4K");
        out = stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); });
    }
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_TRUE(has(out, "ACP_COL_INLINE")) << out;
    // Another ring depth: the same.
    {
        ScopedEnv ring("ACP_COL_RING_DEPTH", me() == 1 ? "2" : "64");
        out = stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); });
    }
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_TRUE(has(out, "ACP_COL_RING_DEPTH")) << out;
    expect_usable();
    EXPECT_EQ(acp_sync(), 0);
}

// A member whose own arguments are bad still takes part in the create:
// every member fails it, at once and with that member's reason, and the
// next create on the same group matches up and works (before, the bad
// member returned without counting the create, and every later create
// on the group paired up wrongly).
TEST(ColBadInput, OneMembersBadArgumentFailsTheCreateEverywhereAndTheNextWorks) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(256);
    for (const int bad : {1, 0}) {  // a member, then the coordinator (the lowest rank)
        const auto t0 = std::chrono::steady_clock::now();
        acp_col_t h = ACP_COL_NULL;
        std::string out =
            stderr_of([&] { h = acp_create_bcast_direct(0, n, g.data(), me() == bad ? nullptr : a.data(), a.size()); });
        EXPECT_EQ(h, ACP_COL_NULL);
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
        EXPECT_TRUE(has(out, "array: ") && has(out, "is NULL but arraysize is 256")) << out;
        if (me() != bad) {
            EXPECT_TRUE(has(out, ("rank " + std::to_string(bad)).c_str())) << out;
        }
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10)
            << "failed at once, not at ACP_TIMEOUT";
        // A good create on the same group now works, with its data.
        h = acp_create_bcast_direct(0, n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        if (me() == 0) fill_pattern(a.data(), a.size(), 7 + bad);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);
        EXPECT_EQ(first_mismatch(a.data(), a.size(), 7 + bad), -1);
        EXPECT_EQ(acp_free_col(h), 0);
    }
    // A bad environment setting on one member, the same way.
    {
        ScopedEnv mode("ACP_COL_EXEC", me() == 1 ? "sideways" : "delegated");
        acp_col_t h = ACP_COL_NULL;
        const std::string out = stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); });
        EXPECT_EQ(h, ACP_COL_NULL);
        EXPECT_TRUE(has(out, "ACP_COL_EXEC")) << out;
    }
    acp_col_t h = acp_create_bcast_buffered(0, n, g.data(), 64);
    ASSERT_NE(h, ACP_COL_NULL);
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(ColBadInput, SendArguments) {
    std::vector<int> g = make_group(Shape::kAll);
    const int n = static_cast<int>(g.size());
    std::vector<unsigned char> a(100);
    acp_col_t h = acp_create_bcast_direct(0, n, g.data(), a.data(), a.size());
    acp_col_t hb = acp_create_bcast_buffered(0, n, g.data(), 64);
    ASSERT_NE(h, ACP_COL_NULL);
    ASSERT_NE(hb, ACP_COL_NULL);
    acp_request_t r = ACP_REQUEST_NULL;
    const char *fn = "acp_send_bcast_direct";
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_direct(h, 0, 101); }), fn, "size");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_direct(h, 90, 11); }), fn, "size");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_direct(h, SIZE_MAX, 2); }), fn, "size");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_direct(ACP_COL_NULL, 0, 1); }), fn, "handle");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_allgather_direct(h, 0, 1); }), "acp_send_allgather_direct", "handle");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_buffered(hb, nullptr, 5); }), "acp_send_bcast_buffered", "array");
    EXPECT_REPORTS(stderr_of([&] { r = acp_send_bcast_buffered(h, a.data(), 5); }), "acp_send_bcast_buffered",
                   "handle");
    EXPECT_EQ(r, ACP_REQUEST_NULL);
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_wait_col(ACP_REQUEST_NULL), -1); }), "acp_wait_col", "request");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_test_col(ACP_REQUEST_NULL), -1); }), "acp_test_col", "request");
    // A second send while this member's previous round is unfinished: a
    // round larger than the inline slots (64 KiB) is written into the
    // members' arrays, so the root's round cannot finish before the others
    // send, and the root's second send is refused.
    if (np() > 1) {
        std::vector<unsigned char> big(128 << 10);
        acp_col_t hl = acp_create_bcast_direct(0, n, g.data(), big.data(), big.size());
        ASSERT_NE(hl, ACP_COL_NULL);
        if (me() == 0) {
            r = acp_send_bcast_direct(hl, 0, big.size());
            ASSERT_NE(r, ACP_REQUEST_NULL);
            EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_send_bcast_direct(hl, 0, 10), ACP_REQUEST_NULL); }), fn,
                           "handle");
            acp_sync();  // only now the others send
        } else {
            acp_sync();
            r = acp_send_bcast_direct(hl, 0, big.size());
        }
        EXPECT_EQ(acp_wait_col(r), 0);
        EXPECT_EQ(acp_free_col(hl), 0);
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_free_col(hb), 0);
    expect_usable();
    EXPECT_EQ(acp_sync(), 0);
}

TEST(ColBadInput, FreedHandlesAndTheirRequestsAreRecognised) {
    std::vector<int> g = make_group(Shape::kAll);
    std::vector<unsigned char> a(16);
    acp_col_t h = acp_create_bcast_direct(0, static_cast<int>(g.size()), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    acp_request_t r = acp_send_bcast_direct(h, 0, 16);
    ASSERT_EQ(acp_wait_col(r), 0);
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_wait_col(r), -1); }), "acp_wait_col", "request");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_test_col(r), -1); }), "acp_test_col", "request");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_free_col(h), -1); }), "acp_free_col", "handle");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_send_bcast_direct(h, 0, 1), ACP_REQUEST_NULL); }),
                   "acp_send_bcast_direct", "handle");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_query_col_memory(h), 0u); }), "acp_query_col_memory", "handle");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_free_col(ACP_COL_NULL), -1); }), "acp_free_col", "handle");
    expect_usable();
    EXPECT_EQ(acp_sync(), 0);
}

// Members whose offsets disagree: the ones that disagree with the rank
// their block comes from get -1 naming both offsets, and no member ends
// its round with success and bytes other than the root's. Ranks 1 and 2
// send at offset 8, the rest at 0. In a delegated chain (0 -> 1 -> 2 ->
// 3 ...) rank 2 agrees with rank 1, which passes it a failed stamp in
// place of bytes it never received; in root mode the root writes every
// member, so rank 3 and on get the root's bytes. Inline rounds (8 B)
// and GMA rounds (past the 64 KiB slots) alike.
class OffsetsDisagree : public ::testing::TestWithParam<std::tuple<const char *, size_t>> {
  protected:
    void SetUp() override {
        if (np() < 2) GTEST_SKIP() << "needs two ranks";
        exec_ = std::make_unique<ScopedEnv>("ACP_COL_EXEC", std::get<0>(GetParam()));
    }
    std::unique_ptr<ScopedEnv> exec_;
    ScopedEnv algo_{"ACP_COL_BCAST_ALGO", "chain"};
};

TEST_P(OffsetsDisagree, FailTheRoundNamingBothAndNoMemberTakesWrongBytes) {
    const bool root_mode = std::string(std::get<0>(GetParam())) == "root";
    const size_t bytes = std::get<1>(GetParam());
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(bytes + 8);
    acp_col_t h = acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    for (int round = 1; round <= 3; ++round) {  // the ring of slots turns: each round alike
        std::fill(a.begin(), a.end(), 0);
        if (me() == 0) fill_pattern(a.data(), bytes, round);
        const size_t offset = me() == 1 || me() == 2 ? 8 : 0;
        int rc = 0;
        const std::string out = stderr_of([&] {
            acp_request_t r = acp_send_bcast_direct(h, offset, bytes);
            ASSERT_NE(r, ACP_REQUEST_NULL);
            rc = acp_wait_col(r);
        });
        if (me() == 0) {
            EXPECT_EQ(rc, 0) << out;
        } else if (me() == 1) {
            EXPECT_EQ(rc, -1);
            EXPECT_TRUE(has(out, "offsets disagree: rank 0 sent offset 0, this rank 8")) << out;
        } else if (me() == 2) {
            EXPECT_EQ(rc, -1) << "rank 2 took rank 1's bytes, which never came";
            EXPECT_TRUE(has(out, root_mode ? "offsets disagree: rank 0 sent offset 0, this rank 8"
                                           : "block 0 from rank 1 failed on its way here"))
                << out;
        } else {
            EXPECT_EQ(rc, root_mode ? 0 : -1) << out;
        }
        if (rc == 0) {
            EXPECT_EQ(first_mismatch(a.data(), bytes, round), -1) << "success with bytes not the root's";
        } else {
            EXPECT_REPORTS(out, "acp_wait_col", "request");
        }
    }
    // Agreeing again, at offset 8, the handle works.
    std::fill(a.begin(), a.end(), 0);
    if (me() == 0) fill_pattern(a.data() + 8, bytes, 77);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 8, bytes)), 0);
    EXPECT_EQ(first_mismatch(a.data() + 8, bytes, 77), -1);
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// An allgather in which rank 1 sends its block from offset 8, the rest
// from 0: every member gets rank 1's block (or rank 1 everyone else's),
// so every member's round fails, and the next round works.
TEST_P(OffsetsDisagree, InAnAllgatherFailEveryRound) {
    const size_t bytes = std::get<1>(GetParam()), block = bytes + 8;
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(np() * block);
    acp_col_t h = acp_create_allgather_direct(np(), g.data(), a.data(), block);
    ASSERT_NE(h, ACP_COL_NULL);
    int rc = 0;
    const std::string out =
        stderr_of([&] { rc = acp_wait_col(acp_send_allgather_direct(h, me() == 1 ? 8 : 0, bytes)); });
    EXPECT_EQ(rc, -1);
    EXPECT_TRUE(has(out, "offsets disagree") || has(out, "failed on its way here")) << out;
    for (int m = 0; m < np(); ++m) fill_pattern(a.data() + m * block, bytes, m == me() ? 90 + me() : 0);
    ASSERT_EQ(acp_wait_col(acp_send_allgather_direct(h, 0, bytes)), 0);
    for (int m = 0; m < np(); ++m) EXPECT_EQ(first_mismatch(a.data() + m * block, bytes, 90 + m), -1) << m;
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, OffsetsDisagree,
                         ::testing::Combine(::testing::Values("root", "delegated"),
                                            ::testing::Values(size_t{8}, size_t{100000})));

TEST(ColBadInput, SendSizesThatDisagreeFailAtWait) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    std::vector<int> g = make_group(Shape::kAll);
    // The root sends 100 bytes, everyone else expects 50: whoever receives
    // from the root sees it at wait, and the members below it; the root's
    // own part succeeds. On a 4 KiB handle, rounds of 8 bytes take its
    // small ring and of 1000 its first (plan.hpp): a receiver finds the
    // sender's stamps in the other ring, and names the sizes too.
    struct Case {
        size_t array, root_sends, others_send;
    };
    for (const Case k : {Case{100, 100, 50}, Case{4096, 8, 1000}, Case{4096, 1000, 8}}) {
        std::vector<unsigned char> a(k.array);
        acp_col_t h = acp_create_bcast_direct(0, static_cast<int>(g.size()), g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        acp_request_t r = acp_send_bcast_direct(h, 0, me() == 0 ? k.root_sends : k.others_send);
        ASSERT_NE(r, ACP_REQUEST_NULL);
        int status = 0;
        const std::string out = stderr_of([&] { status = acp_wait_col(r); });
        if (me() == 0) {
            EXPECT_EQ(status, 0);
        }
        if (status != 0) {
            EXPECT_REPORTS(out, "acp_wait_col", "request");
            // It disagrees with the rank it heard from, or that rank did with
            // the root and passed a failed stamp on in place of the bytes.
            EXPECT_TRUE(has(out, "sizes disagree") || has(out, "failed on its way here")) << out;
        }
        const auto all = allgather_u64(static_cast<uint64_t>(status == 0 ? 0 : 1));
        EXPECT_GE(std::count(all.begin(), all.end(), 1u), 1) << "nobody noticed";
        // The handle stays usable.
        if (me() == 0) fill_pattern(a.data(), a.size(), 31);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);
        EXPECT_EQ(first_mismatch(a.data(), a.size(), 31), -1);
        EXPECT_EQ(acp_free_col(h), 0);
        EXPECT_EQ(acp_sync(), 0);
    }
}
