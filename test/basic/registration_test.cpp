// Registrations seen from other ranks: looked up on first use, and never
// reached through a stale key after the owner unregisters and reuses a tag.
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
