// Registrations seen from other ranks: looked up on first use, and never
// reached through a stale key after the owner unregisters and reuses a tag,
// nor written after the owner's unregister returns.
#include <sys/mman.h>

#include "../mp_util.hpp"

using namespace acpx::test;

TEST(Registration, ReusedTagIsNotReachedThroughAStaleKey) {
    const int from = (me() + np() - 1) % np();
    std::vector<unsigned char> first(256), second(256), got(256);
    acp_atkey_t kg = acp_register_memory(got.data(), got.size(), 0);
    const acp_ga_t g = acp_query_ga(kg, got.data());
    acp_ga_t prev_ga = ACP_GA_NULL;
    for (int round = 0; round < 20; ++round) {
        auto &buf = (round % 2) ? second : first;
        fill_pattern(buf.data(), buf.size(), 1000 * round + me());
        acp_atkey_t k = acp_register_memory(buf.data(), buf.size(), 0);
        ASSERT_NE(k, ACP_ATKEY_NULL);
        auto gas = allgather_u64(acp_query_ga(k, buf.data()));
        // The peer's registration alternates between two buffers under
        // (usually) the same tag; each round must read the current one.
        acp_complete(acp_copy(g, gas[from], buf.size(), ACP_HANDLE_NULL));
        EXPECT_EQ(first_mismatch(got.data(), got.size(), 1000 * round + from), -1) << "round " << round;
        acp_sync();
        ASSERT_EQ(acp_unregister_memory(k), 0);
        // Tags are reused as late as possible; cycle through the others so
        // the next round's registration gets this very tag (and GA) again.
        for (int i = 0; i < 1021; ++i) {
            acp_atkey_t d = acp_register_memory(got.data(), 1, 0);
            ASSERT_NE(d, ACP_ATKEY_NULL);
            ASSERT_EQ(acp_unregister_memory(d), 0);
        }
        if (round > 0) {
            EXPECT_EQ(gas[from], prev_ga) << "the tag was not reused";
        }
        prev_ga = gas[from];
    }
    acp_unregister_memory(kg);
}

TEST(Registration, RegisterUnregisterManyTimes) {
    std::vector<char> buf(4096);
    for (int i = 0; i < 5000; ++i) {
        acp_atkey_t k = acp_register_memory(buf.data(), buf.size(), 0);
        ASSERT_NE(k, ACP_ATKEY_NULL) << "iteration " << i;
        ASSERT_EQ(acp_unregister_memory(k), 0) << "iteration " << i;
    }
}

// An owner's unregister returns only once the copies peers had issued
// into the registration have landed: after it, the memory may be unmapped
// or reused, and a transport that emulates RMA would write into whatever
// is mapped there then. Rank 0 sets a flag on rank 1, then issues a put
// into rank 1's buffer ordered after a large get from rank 2, so that the
// put is still to start when rank 1, on seeing the flag, unregisters the
// buffer. If the put was issued (not refused as too late: with mapped
// memory or CMA the get is done by then), every byte of it is there when
// the unregister returns.
TEST(Registration, UnregisterWaitsForAPeersCopyInFlight) {
    if (np() < 3) GTEST_SKIP() << "needs three ranks";
    constexpr size_t kPut = size_t{1} << 20, kGet = size_t{64} << 20;
    auto *buf =
        static_cast<unsigned char *>(mmap(nullptr, kPut, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(buf, MAP_FAILED);
    std::vector<unsigned char> big(kGet);
    uint64_t flag = 0;
    const uint64_t one = 1;
    const acp_atkey_t k = acp_register_memory(buf, kPut, 0);
    const acp_atkey_t kbig = acp_register_memory(big.data(), big.size(), 0);
    const acp_atkey_t kf = acp_register_memory(&flag, sizeof flag, 0);
    const acp_atkey_t k1 = acp_register_memory(const_cast<uint64_t *>(&one), sizeof one, 0);
    ASSERT_TRUE(k != ACP_ATKEY_NULL && kbig != ACP_ATKEY_NULL && kf != ACP_ATKEY_NULL && k1 != ACP_ATKEY_NULL);
    const auto gas = allgather_u64(acp_query_ga(k, buf));
    const auto bigs = allgather_u64(acp_query_ga(kbig, big.data()));
    const auto flags = allgather_u64(acp_query_ga(kf, &flag));
    if (me() == 0) {  // looked up first: the put below goes with a cached key
        acp_complete(acp_copy(gas[1], gas[0], 1, ACP_HANDLE_NULL));
        acp_complete(acp_copy(bigs[0], bigs[2], 1, ACP_HANDLE_NULL));
        acp_complete(acp_copy(flags[1], flags[0], sizeof flag, ACP_HANDLE_NULL));
    }
    acp_sync();
    bool issued = false, landed = false;
    if (me() == 0) {
        fill_pattern(buf, kPut, 77);
        const acp_handle_t set =
            acp_copy(flags[1], acp_query_ga(k1, const_cast<uint64_t *>(&one)), sizeof one, ACP_HANDLE_NULL);
        const acp_handle_t get = acp_copy(bigs[0], bigs[2], kGet, ACP_HANDLE_NULL);
        const acp_handle_t put = acp_copy(gas[1], gas[0], kPut, get);
        EXPECT_TRUE(set != ACP_HANDLE_NULL && get != ACP_HANDLE_NULL);
        acp_complete(ACP_HANDLE_ALL);
        issued = put != ACP_HANDLE_NULL;
        if (issued) {
            EXPECT_EQ(acp_inquire(put), 0) << "an issued put failed";
        }
    }
    if (me() == 1) {
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0) acp_inquire(ACP_HANDLE_ALL);
        EXPECT_EQ(acp_unregister_memory(k), 0);
        landed = first_mismatch(buf, kPut, 77) == -1;
    } else {
        acp_unregister_memory(k);
    }
    munmap(buf, kPut);
    const auto told = allgather_u64(issued);
    if (me() == 1 && told[0]) {
        EXPECT_TRUE(landed) << "unregister returned before the peer's put landed";
    }
    acp_unregister_memory(kbig);
    acp_unregister_memory(kf);
    acp_unregister_memory(k1);
}
