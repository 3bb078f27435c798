// ACP's channels: messages of every size arrive whole and in order, many
// in flight and on many channels per pair; truncation; bad input; a free
// that leaves a message behind fails, naming it, without a hang; a failed
// copy fails both ends at once.
#include <chrono>
#include <vector>

#include "../../basic/fault_injection.hpp"
#include "../mp_util.hpp"
#include "../report_util.hpp"

using namespace acpx::test;

namespace {

constexpr size_t kFailed = static_cast<size_t>(-1);

// The pattern of message k on a channel.
uint64_t seed_of(int from, uint64_t k) { return 1000003ULL * static_cast<uint64_t>(from) + k; }

}  // namespace

// Rank 0 and rank np-1 (on the two-host bed, one per host) bounce a
// message of each size; every byte arrives, and the size is returned.
TEST(Channel, PingPongEverySize) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const int a = 0, b = np() - 1;
    if (me() != a && me() != b) return;
    acp_ch_t to_b = acp_create_ch(a, b), to_a = acp_create_ch(b, a);
    ASSERT_NE(to_b, ACP_CH_NULL);
    ASSERT_NE(to_a, ACP_CH_NULL);
    uint64_t k = 0;
    for (size_t size : {size_t{0}, size_t{1}, size_t{8}, size_t{1024}, size_t{1025}, size_t{4096}, size_t{1} << 20}) {
        std::vector<unsigned char> out(size + 1), in(size + 1, 0xee);
        for (int turn = 0; turn < 2; ++turn, ++k) {
            const bool sending = (me() == a) == (turn == 0);
            if (sending) {
                fill_pattern(out.data(), size, seed_of(me(), k));
                EXPECT_EQ(acp_wait_ch(acp_nbsend_ch(me() == a ? to_b : to_a, out.data(), size)), 0u) << size;
            } else {
                const size_t got = acp_wait_ch(acp_nbrecv_ch(me() == a ? to_a : to_b, in.data(), size + 1));
                EXPECT_EQ(got, size);
                EXPECT_EQ(first_mismatch(in.data(), size, seed_of(me() == a ? b : a, k)), -1) << size;
                EXPECT_EQ(in[size], 0xee) << "a byte past the message was written";
            }
        }
    }
    EXPECT_EQ(acp_free_ch(to_b), 0);
    EXPECT_EQ(acp_free_ch(to_a), 0);
}

// Every rank sends to the next one 200 messages of mixed sizes, all posted
// before any wait; the receiver posts its receives likewise. Each arrives
// whole, in order.
TEST(Channel, ManyInFlightArriveInOrder) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const int next = (me() + 1) % np(), prev = (me() + np() - 1) % np();
    // Pairs are told apart by (sender, receiver): the two channels of a
    // two-rank ring are the first of each direction.
    acp_ch_t out = acp_create_ch(me(), next), in = acp_create_ch(prev, me());
    ASSERT_NE(out, ACP_CH_NULL);
    ASSERT_NE(in, ACP_CH_NULL);
    constexpr int kMessages = 200;
    auto size_of = [](int k) { return static_cast<size_t>(k % 7 == 0 ? 5000 + k : k * 5 % 1100); };
    std::vector<std::vector<unsigned char>> sent(kMessages), got(kMessages);
    std::vector<acp_request_t> sends, recvs;
    for (int k = 0; k < kMessages; ++k) {
        sent[k].resize(size_of(k));
        fill_pattern(sent[k].data(), sent[k].size(), seed_of(me(), static_cast<uint64_t>(k)));
        got[k].resize(6000);
        recvs.push_back(acp_nbrecv_ch(in, got[k].data(), got[k].size()));
        sends.push_back(acp_nbsend_ch(out, sent[k].data(), sent[k].size()));
    }
    std::vector<size_t> sizes(kMessages);
    EXPECT_EQ(acp_waitall_ch(recvs.data(), kMessages, sizes.data()), 0);
    EXPECT_EQ(acp_waitall_ch(sends.data(), kMessages, nullptr), 0);
    for (int k = 0; k < kMessages; ++k) {
        ASSERT_EQ(sizes[k], size_of(k)) << "message " << k;
        EXPECT_EQ(first_mismatch(got[k].data(), sizes[k], seed_of(prev, static_cast<uint64_t>(k))), -1)
            << "message " << k;
    }
    EXPECT_EQ(acp_free_ch(out), 0);
    EXPECT_EQ(acp_free_ch(in), 0);
}

// A message larger than the receive buffer is cut to it, small or large.
TEST(Channel, TruncatedToTheReceiveBuffer) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    acp_ch_t ch = acp_create_ch(0, 1);
    ASSERT_NE(ch, ACP_CH_NULL);
    for (const auto &[size, room] : {std::pair<size_t, size_t>{100, 40}, {5000, 3000}, {5000, 0}}) {
        if (me() == 0) {
            std::vector<unsigned char> m(size);
            fill_pattern(m.data(), size, size);
            EXPECT_EQ(acp_wait_ch(acp_nbsend_ch(ch, m.data(), size)), 0u);
        } else {
            std::vector<unsigned char> r(room + 8, 0xee);
            EXPECT_EQ(acp_wait_ch(acp_nbrecv_ch(ch, r.data(), room)), room);
            EXPECT_EQ(first_mismatch(r.data(), room, size), -1);
            EXPECT_EQ(first_not(r.data() + room, 8, 0xee), -1) << "written past the buffer";
        }
    }
    EXPECT_EQ(acp_free_ch(ch), 0);
}

// Ten channels from 0 to 1: the n-th created on one end is the n-th on
// the other, whatever order they are used in.
TEST(Channel, ManyChannelsPerPair) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    std::vector<acp_ch_t> chs;
    for (int i = 0; i < 10; ++i) chs.push_back(acp_create_ch(0, 1));
    for (int i = 9; i >= 0; --i) {
        uint64_t v = 100 + static_cast<uint64_t>(i);
        if (me() == 0) {
            EXPECT_EQ(acp_wait_ch(acp_nbsend_ch(chs[i], &v, sizeof v)), 0u);
        } else {
            v = 0;
            EXPECT_EQ(acp_wait_ch(acp_nbrecv_ch(chs[i], &v, sizeof v)), sizeof v);
            EXPECT_EQ(v, 100u + static_cast<uint64_t>(i)) << "channel " << i;
        }
    }
    for (acp_ch_t c : chs) EXPECT_EQ(acp_free_ch(c), 0);
}

TEST(Channel, BadInputIsReported) {
    acp_ch_t c = reinterpret_cast<acp_ch_t>(1);
    EXPECT_REPORTS(stderr_of([&] { c = acp_create_ch(me(), me()); }), "acp_create_ch", "receiver");
    EXPECT_EQ(c, ACP_CH_NULL);
    EXPECT_REPORTS(stderr_of([&] { c = acp_create_ch(-1, me()); }), "acp_create_ch", "sender");
    EXPECT_REPORTS(stderr_of([&] { c = acp_create_ch(me(), np()); }), "acp_create_ch", "receiver");
    acp_request_t r = reinterpret_cast<acp_request_t>(1);
    EXPECT_REPORTS(stderr_of([&] { r = acp_nbsend_ch(ACP_CH_NULL, &c, 1); }), "acp_nbsend_ch", "ch");
    EXPECT_EQ(r, ACP_REQUEST_NULL);
    size_t s = 0;
    EXPECT_REPORTS(stderr_of([&] { s = acp_wait_ch(ACP_REQUEST_NULL); }), "acp_wait_ch", "request");
    EXPECT_EQ(s, kFailed);
    EXPECT_REPORTS(stderr_of([&] { acp_free_ch(ACP_CH_NULL); }), "acp_nbfree_ch", "ch");
    if (np() < 3) return;
    // A rank that is neither end.
    EXPECT_REPORTS(stderr_of([&] { c = acp_create_ch((me() + 1) % np(), (me() + 2) % np()); }), "acp_create_ch",
                   "sender");
}

TEST(Channel, WrongEndAndUseAfterFreeAreReported) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    acp_ch_t ch = acp_create_ch(0, 1);
    char byte = 0;
    acp_request_t r = reinterpret_cast<acp_request_t>(1);
    if (me() == 1) {
        EXPECT_REPORTS(stderr_of([&] { r = acp_nbsend_ch(ch, &byte, 1); }), "acp_nbsend_ch", "ch");
    } else {
        EXPECT_REPORTS(stderr_of([&] { r = acp_nbrecv_ch(ch, &byte, 1); }), "acp_nbrecv_ch", "ch");
    }
    EXPECT_EQ(r, ACP_REQUEST_NULL);
    EXPECT_EQ(acp_free_ch(ch), 0);
    EXPECT_REPORTS(stderr_of([&] { r = acp_nbsend_ch(ch, &byte, 1); }), "acp_nbsend_ch", "ch");
    // A collective's request is not a channel's.
    EXPECT_REPORTS(stderr_of([&] { acp_wait_ch(reinterpret_cast<acp_request_t>(uintptr_t{1} << 24 | 1)); }),
                   "acp_wait_ch", "request");
}

// The receiver frees its end without receiving: the sender's large send
// fails naming that, the receiver's free fails naming the message it left,
// both at once (not at ACP_TIMEOUT).
TEST(Channel, FreeWithAMessageLeftFailsWithoutAHang) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    acp_ch_t ch = acp_create_ch(0, 1);
    ASSERT_NE(ch, ACP_CH_NULL);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<unsigned char> big(5000, 7);
    if (me() == 0) {
        size_t sent = 0;
        const std::string err = stderr_of([&] { sent = acp_wait_ch(acp_nbsend_ch(ch, big.data(), big.size())); });
        EXPECT_EQ(sent, kFailed);
        EXPECT_NE(err.find("freed its end before receiving it"), std::string::npos) << err;
        EXPECT_EQ(acp_free_ch(ch), 0);
    } else {
        // The message may be in its slot when the free looks, or not yet:
        // the free fails naming it, or succeeds; the sender's send fails
        // either way.
        int rc = 0;
        const std::string err = stderr_of([&] { rc = acp_free_ch(ch); });
        EXPECT_TRUE(rc == -1 || rc == 0) << err;
        if (rc == -1) {
            EXPECT_NE(err.find("arrived and was never received"), std::string::npos) << err;
        }
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
}

// The receiver's pull of a large message fails (injected): its receive
// fails naming the copy, the sender's send fails at once (not at
// ACP_TIMEOUT) saying the channel broke, later calls on either end are
// refused, and both ends free.
TEST(Channel, FailedCopyFailsBothEnds) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    if (me() > 1) return;
    acp_ch_t ch = acp_create_ch(0, 1);
    ASSERT_NE(ch, ACP_CH_NULL);
    std::vector<unsigned char> big(5000, 7);
    const auto t0 = std::chrono::steady_clock::now();
    size_t rc = 0;
    std::string err;
    if (me() == 0) {
        err = stderr_of([&] { rc = acp_wait_ch(acp_nbsend_ch(ch, big.data(), big.size())); });
        EXPECT_NE(err.find("the channel broke: rank 1's copy for it failed"), std::string::npos) << err;
    } else {
        ASSERT_EQ(acpx_test_fail("data:1"), 0);
        err = stderr_of([&] { rc = acp_wait_ch(acp_nbrecv_ch(ch, big.data(), big.size())); });
        acpx_test_fail("data:1000000000");  // disarm what was not used
        EXPECT_NE(err.find("its copy from rank 0's buffer failed"), std::string::npos) << err;
    }
    EXPECT_EQ(rc, kFailed) << err;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
    acp_request_t r = reinterpret_cast<acp_request_t>(1);
    EXPECT_REPORTS(
        stderr_of([&] { r = me() == 0 ? acp_nbsend_ch(ch, big.data(), 8) : acp_nbrecv_ch(ch, big.data(), 8); }),
        (me() == 0 ? "acp_nbsend_ch" : "acp_nbrecv_ch"), "ch");
    EXPECT_EQ(r, ACP_REQUEST_NULL);
    EXPECT_EQ(acp_free_ch(ch), 0);
}
