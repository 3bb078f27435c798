// ACP's segmented buffers: thousands of segments round the ring arrive
// whole and in order on every rank; the indices say where; many per pair;
// bad input and wrong use are reported; a failed copy is never seen as a
// segment, and both ends learn of it without a hang; a peer that
// disconnects ends the other's polls.
#include <chrono>
#include <vector>

#include "../../basic/fault_injection.hpp"
#include "../mp_util.hpp"
#include "../report_util.hpp"

using namespace acpx::test;

namespace {

using Clock = std::chrono::steady_clock;

uint64_t seed_of(int from, uint64_t k) { return 7919ULL * static_cast<uint64_t>(from) + k; }

// Polls `call` until it returns something other than 1, for at most 10 s.
template <class F>
int poll(F call) {
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    int r = 1;
    while ((r = call()) == 1 && Clock::now() < deadline) {
    }
    return r;
}

}  // namespace

// Every rank streams 3,000 segments of an odd size to the next one through
// a ring of 4 and takes as many from the previous one, both at once. Each
// segment arrives whole at (k % segnum) * segsize; head and tail say
// where; sent catches up with tail.
TEST(Segbuf, RingWrapsOverThousandsOfSegments) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    constexpr size_t kSegsize = 1000, kSegnum = 4;
    constexpr uint64_t kSegments = 3000;
    const int next = (me() + 1) % np(), prev = (me() + np() - 1) % np();
    std::vector<unsigned char> out(kSegsize * kSegnum), in(kSegsize * kSegnum + 8, 0xee);
    acp_segbuf_t src = acp_create_src_segbuf(next, out.data(), kSegsize, kSegnum);
    acp_segbuf_t dst = acp_create_dst_segbuf(prev, in.data(), kSegsize, kSegnum);
    ASSERT_NE(src, ACP_SEGBUF_NULL);
    ASSERT_NE(dst, ACP_SEGBUF_NULL);
    EXPECT_EQ(acp_isconnected_segbuf(src), 1);
    ASSERT_EQ(acp_connect_segbuf(src), 0);
    ASSERT_EQ(acp_connect_segbuf(dst), 0);
    EXPECT_EQ(acp_isconnected_segbuf(src), 0);
    EXPECT_EQ(acp_isconnected_segbuf(dst), 0);
    uint64_t sent = 0, got = 0;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while ((sent < kSegments || got < kSegments) && Clock::now() < deadline) {
        if (sent < kSegments && acp_isready_segbuf(src) == 0) {
            ASSERT_EQ(acp_query_segbuf_tail(src), static_cast<int64_t>(sent % kSegnum));
            fill_pattern(out.data() + (sent % kSegnum) * kSegsize, kSegsize, seed_of(me(), sent));
            ASSERT_EQ(acp_ack_segbuf(src), 0) << "segment " << sent;
            ++sent;
        }
        if (got < kSegments && acp_isacked_segbuf(dst) == 0) {
            ASSERT_EQ(acp_query_segbuf_head(dst), static_cast<int64_t>(got % kSegnum));
            ASSERT_EQ(first_mismatch(in.data() + (got % kSegnum) * kSegsize, kSegsize, seed_of(prev, got)), -1)
                << "segment " << got;
            ASSERT_EQ(acp_ready_segbuf(dst), 0);
            ++got;
        }
    }
    ASSERT_EQ(sent, kSegments);
    ASSERT_EQ(got, kSegments);
    EXPECT_EQ(first_not(in.data() + kSegsize * kSegnum, 8, 0xee), -1) << "written past the buffer";
    // Every segment was given back, so every one arrived: sent is tail.
    EXPECT_EQ(poll([&] { return acp_query_segbuf_sent(src) == acp_query_segbuf_tail(src) ? 0 : 1; }), 0);
    EXPECT_EQ(acp_query_segbuf_tail(dst), static_cast<int64_t>(kSegments % kSegnum));
    EXPECT_EQ(acp_disconnect_segbuf(src), 0);
    EXPECT_EQ(acp_disconnect_segbuf(dst), 0);
    EXPECT_EQ(acp_free_segbuf(src), 0);
    EXPECT_EQ(acp_free_segbuf(dst), 0);
}

// Three from rank 0 to rank 1, connected in opposite orders on the two
// ends: the n-th created on one end is the n-th on the other.
TEST(Segbuf, ManyPerPair) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    constexpr int kPairs = 3;
    std::vector<uint64_t> bufs(kPairs * 2, 0);
    std::vector<acp_segbuf_t> sbs;
    for (int i = 0; i < kPairs; ++i)
        sbs.push_back(me() == 0 ? acp_create_src_segbuf(1, &bufs[2 * i], 8, 2)
                                : acp_create_dst_segbuf(0, &bufs[2 * i], 8, 2));
    for (int i = 0; i < kPairs; ++i) ASSERT_EQ(acp_connect_segbuf(sbs[me() == 0 ? kPairs - 1 - i : i]), 0);
    for (int i = 0; i < kPairs; ++i) {
        if (me() == 0) {
            bufs[2 * i] = 500 + static_cast<uint64_t>(i);
            EXPECT_EQ(acp_ack_segbuf(sbs[i]), 0);
        } else {
            EXPECT_EQ(poll([&] { return acp_isacked_segbuf(sbs[i]); }), 0);
            EXPECT_EQ(bufs[2 * i], 500u + static_cast<uint64_t>(i)) << "segmented buffer " << i;
            EXPECT_EQ(acp_ready_segbuf(sbs[i]), 0);
        }
    }
    for (acp_segbuf_t sb : sbs) {
        EXPECT_EQ(acp_disconnect_segbuf(sb), 0);
        EXPECT_EQ(acp_free_segbuf(sb), 0);
    }
}

TEST(Segbuf, BadInputIsReported) {
    char buf[64];
    acp_segbuf_t sb = reinterpret_cast<acp_segbuf_t>(1);
    EXPECT_REPORTS(stderr_of([&] { sb = acp_create_src_segbuf(me(), buf, 8, 8); }), "acp_create_src_segbuf",
                   "dst_rank");
    EXPECT_EQ(sb, ACP_SEGBUF_NULL);
    EXPECT_REPORTS(stderr_of([&] { sb = acp_create_dst_segbuf(np(), buf, 8, 8); }), "acp_create_dst_segbuf",
                   "src_rank");
    const int other = (me() + 1) % np();
    if (np() > 1) {
        EXPECT_REPORTS(stderr_of([&] { sb = acp_create_src_segbuf(other, nullptr, 8, 8); }), "acp_create_src_segbuf",
                       "buf");
        EXPECT_REPORTS(stderr_of([&] { sb = acp_create_src_segbuf(other, buf, 0, 8); }), "acp_create_src_segbuf",
                       "segsize");
        EXPECT_REPORTS(stderr_of([&] { sb = acp_create_dst_segbuf(other, buf, 8, 0); }), "acp_create_dst_segbuf",
                       "segnum");
        EXPECT_REPORTS(stderr_of([&] { sb = acp_create_dst_segbuf(other, buf, SIZE_MAX / 4, 16); }),
                       "acp_create_dst_segbuf", "segnum");
        EXPECT_EQ(sb, ACP_SEGBUF_NULL);
    }
    int rc = 0;
    EXPECT_REPORTS(stderr_of([&] { rc = acp_ack_segbuf(ACP_SEGBUF_NULL); }), "acp_ack_segbuf", "segbuf");
    EXPECT_EQ(rc, 1);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_isacked_segbuf(ACP_SEGBUF_NULL); }), "acp_isacked_segbuf", "segbuf");
    EXPECT_EQ(rc, -1);
    int64_t index = 0;
    EXPECT_REPORTS(stderr_of([&] { index = acp_query_segbuf_head(ACP_SEGBUF_NULL); }), "acp_query_segbuf_head",
                   "segbuf");
    EXPECT_EQ(index, -1);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_free_segbuf(ACP_SEGBUF_NULL); }), "acp_free_segbuf", "segbuf");
    EXPECT_EQ(rc, 1);
}

// Each call used out of turn says so and fails: before connect, on the
// wrong end, with nothing to hand over or back, a free while connected,
// a second disconnect, a handle freed already.
TEST(Segbuf, WrongUseIsReported) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    const bool src = me() == 0;
    uint64_t buf[2] = {};
    acp_segbuf_t sb = src ? acp_create_src_segbuf(1, buf, 8, 2) : acp_create_dst_segbuf(0, buf, 8, 2);
    ASSERT_NE(sb, ACP_SEGBUF_NULL);
    int rc = 0;
    if (src) {
        EXPECT_REPORTS(stderr_of([&] { rc = acp_ack_segbuf(sb); }), "acp_ack_segbuf", "segbuf");
    } else {
        EXPECT_REPORTS(stderr_of([&] { rc = acp_ready_segbuf(sb); }), "acp_ready_segbuf", "segbuf");
    }
    EXPECT_EQ(rc, 1);
    ASSERT_EQ(acp_connect_segbuf(sb), 0);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_connect_segbuf(sb); }), "acp_connect_segbuf", "segbuf");
    EXPECT_EQ(rc, 1);
    // The destination gives a segment back only once the source has seen
    // both handed over and a third refused.
    acp_ch_t turn = acp_create_ch(0, 1);
    char token = 0;
    if (src) {
        EXPECT_REPORTS(stderr_of([&] { rc = acp_ready_segbuf(sb); }), "acp_ready_segbuf", "segbuf");
        EXPECT_EQ(rc, 1);
        EXPECT_EQ(acp_ack_segbuf(sb), 0);
        EXPECT_EQ(acp_ack_segbuf(sb), 0);
        // Both segments handed over: none is ready until the first comes back.
        EXPECT_EQ(acp_isready_segbuf(sb), 1);
        EXPECT_REPORTS(stderr_of([&] { rc = acp_ack_segbuf(sb); }), "acp_ack_segbuf", "segbuf");
        EXPECT_EQ(rc, 1);
        EXPECT_EQ(acp_send_ch(turn, &token, 1), 0);
        EXPECT_EQ(poll([&] { return acp_isready_segbuf(sb); }), 0);
        EXPECT_EQ(acp_query_segbuf_head(sb), 1);
    } else {
        int64_t sent = 0;
        EXPECT_REPORTS(stderr_of([&] { sent = acp_query_segbuf_sent(sb); }), "acp_query_segbuf_sent", "segbuf");
        EXPECT_EQ(sent, -1);
        EXPECT_REPORTS(stderr_of([&] { rc = acp_isready_segbuf(sb); }), "acp_isready_segbuf", "segbuf");
        EXPECT_EQ(rc, -1);
        EXPECT_EQ(acp_recv_ch(turn, &token, 1), 1);
        EXPECT_EQ(poll([&] { return acp_isacked_segbuf(sb); }), 0);
        EXPECT_EQ(acp_ready_segbuf(sb), 0);
        EXPECT_EQ(poll([&] { return acp_isacked_segbuf(sb); }), 0);
        EXPECT_EQ(acp_query_segbuf_head(sb), 1);
        EXPECT_EQ(acp_query_segbuf_tail(sb), 0) << "two arrived: tail went round to 0";
    }
    EXPECT_EQ(acp_free_ch(turn), 0);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_free_segbuf(sb); }), "acp_free_segbuf", "segbuf");
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(acp_disconnect_segbuf(sb), 0);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_disconnect_segbuf(sb); }), "acp_disconnect_segbuf", "segbuf");
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(acp_isconnected_segbuf(sb), 1);
    EXPECT_EQ(acp_free_segbuf(sb), 0);
    EXPECT_REPORTS(stderr_of([&] { rc = acp_ack_segbuf(sb); }), "acp_ack_segbuf", "segbuf");
}

// The two ends disagree on the ring: connect fails on both, naming both
// shapes; the ends can still be freed.
TEST(Segbuf, MismatchedEndsFailToConnect) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    std::vector<char> buf(64);
    acp_segbuf_t sb =
        me() == 0 ? acp_create_src_segbuf(1, buf.data(), 8, 4) : acp_create_dst_segbuf(0, buf.data(), 8, 8);
    ASSERT_NE(sb, ACP_SEGBUF_NULL);
    int rc = 0;
    const std::string err = stderr_of([&] { rc = acp_connect_segbuf(sb); });
    EXPECT_EQ(rc, 1);
    EXPECT_NE(err.find("segments of 8 bytes"), std::string::npos) << err;
    EXPECT_EQ(acp_free_segbuf(sb), 0);
}

// The source's copy of segment 0 fails (injected): the destination never
// takes it for a segment, both ends' polls end with -1 (not at a
// timeout), and the source's disconnect says it failed.
TEST(Segbuf, FailedCopyIsNeverSeen) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    std::vector<unsigned char> buf(64 * 2, 0);
    acp_segbuf_t sb =
        me() == 0 ? acp_create_src_segbuf(1, buf.data(), 64, 2) : acp_create_dst_segbuf(0, buf.data(), 64, 2);
    ASSERT_NE(sb, ACP_SEGBUF_NULL);
    ASSERT_EQ(acp_connect_segbuf(sb), 0);
    const auto t0 = Clock::now();
    if (me() == 0) {
        ASSERT_EQ(acpx_test_fail("data:1"), 0);
        fill_pattern(buf.data(), 64, 1);
        fill_pattern(buf.data() + 64, 64, 2);
        int first = 1, rc = 0;
        const std::string err = stderr_of([&] {
            first = acp_ack_segbuf(sb);  // issued; its failure shows later
            acp_ack_segbuf(sb);          // may show it already
            rc = poll([&] { return acp_isready_segbuf(sb); });
        });
        EXPECT_EQ(first, 0) << err;
        EXPECT_EQ(rc, -1) << err;
        EXPECT_NE(err.find("copy of segment 0 to rank 1 failed"), std::string::npos) << err;
        EXPECT_EQ(acp_disconnect_segbuf(sb), 1);
        acpx_test_fail("data:1000000000");  // disarm what was not used
    } else {
        int rc = 0;
        const std::string err = stderr_of([&] { rc = poll([&] { return acp_isacked_segbuf(sb); }); });
        EXPECT_EQ(rc, -1) << err;
        EXPECT_NE(err.find("rank 0's copies for it failed"), std::string::npos) << err;
        EXPECT_EQ(first_not(buf.data(), 64, 0), -1) << "segment 0's place was written";
        EXPECT_EQ(acp_disconnect_segbuf(sb), 0);
    }
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 10);
    EXPECT_EQ(acp_free_segbuf(sb), 0);
}

// The destination disconnects: the source's poll ends with -1 and its
// ack fails, both naming that.
TEST(Segbuf, PeerDisconnectEndsThePolls) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    uint64_t buf[2] = {};
    acp_segbuf_t sb = me() == 0 ? acp_create_src_segbuf(1, buf, 8, 2) : acp_create_dst_segbuf(0, buf, 8, 2);
    ASSERT_EQ(acp_connect_segbuf(sb), 0);
    if (me() == 0) {
        EXPECT_EQ(acp_ack_segbuf(sb), 0);
        EXPECT_EQ(acp_ack_segbuf(sb), 0);
        int rc = 0;
        const std::string err = stderr_of([&] { rc = poll([&] { return acp_isready_segbuf(sb); }); });
        EXPECT_EQ(rc, -1) << err;
        EXPECT_NE(err.find("rank 1 disconnected its end"), std::string::npos) << err;
        EXPECT_REPORTS(stderr_of([&] { rc = acp_ack_segbuf(sb); }), "acp_ack_segbuf", "segbuf");
        EXPECT_EQ(rc, 1);
        EXPECT_EQ(acp_isconnected_segbuf(sb), 1);
    } else {
        EXPECT_EQ(poll([&] { return acp_isacked_segbuf(sb); }), 0);
    }
    EXPECT_EQ(acp_disconnect_segbuf(sb), 0);
    EXPECT_EQ(acp_free_segbuf(sb), 0);
}
