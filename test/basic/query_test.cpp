// Ranks, starter memory and GA queries, on every rank.
#include "../mp_util.hpp"

using namespace acpx::test;

TEST(Query, RankAndProcs) {
    EXPECT_GE(me(), 0);
    EXPECT_LT(me(), np());
    auto all = allgather_u64(static_cast<uint64_t>(me()));
    for (int r = 0; r < np(); ++r) EXPECT_EQ(all[r], static_cast<uint64_t>(r));
}

TEST(Query, StarterMemoryOfEveryRank) {
    for (int r = 0; r < np(); ++r) {
        const acp_ga_t g = acp_query_starter_ga(r);
        ASSERT_NE(g, ACP_GA_NULL);
        EXPECT_EQ(acp_query_rank(g), r);
        EXPECT_EQ(acp_query_color(g), 0);
        if (r == me())
            EXPECT_NE(acp_query_address(g), nullptr);
        else
            EXPECT_EQ(acp_query_address(g), nullptr);  // another rank's memory has no address here
    }
    acp_sync();
}

TEST(Query, StarterMemoryIsZeroedAtInit) {
    // The first 64 bytes and the receive slots are used by allgather_u64;
    // the rest must still hold the zeroes acp_init wrote.
    auto *p = static_cast<unsigned char *>(acp_query_address(acp_query_starter_ga(me())));
    for (size_t i = 4096; i < 65536; ++i) ASSERT_EQ(p[i], 0) << "byte " << i;
}

TEST(Query, RegisteredAddressRoundTrips) {
    std::vector<char> buf(1000);
    acp_atkey_t k = acp_register_memory(buf.data(), buf.size(), 0);
    ASSERT_NE(k, ACP_ATKEY_NULL);
    for (size_t off : {size_t{0}, size_t{1}, size_t{999}}) {
        acp_ga_t g = acp_query_ga(k, buf.data() + off);
        ASSERT_NE(g, ACP_GA_NULL);
        EXPECT_EQ(acp_query_address(g), buf.data() + off);
        EXPECT_EQ(acp_query_rank(g), me());
        EXPECT_EQ(acp_query_color(g), 0);
        EXPECT_EQ(acp_query_ga(k, buf.data()) + off, g);  // GA arithmetic
    }
    EXPECT_EQ(acp_colors(), 1);
    EXPECT_EQ(acp_unregister_memory(k), 0);
}

TEST(Query, ColorOfAPeersRegistration) {
    SharedBuffer b(64);
    for (int r = 0; r < np(); ++r) EXPECT_EQ(acp_query_color(b.ga[r]), 0);
}

TEST(Query, ManyLiveRegistrations) {
    // 1023 registrations beside the starter memory: the documented limit.
    std::vector<char> buf(1023);
    std::vector<acp_atkey_t> keys;
    for (size_t i = 0; i < buf.size(); ++i) {
        keys.push_back(acp_register_memory(&buf[i], 1, 0));
        ASSERT_NE(keys.back(), ACP_ATKEY_NULL) << "registration " << i;
    }
    testing::internal::CaptureStderr();
    char extra;
    EXPECT_EQ(acp_register_memory(&extra, 1, 0), ACP_ATKEY_NULL);
    EXPECT_NE(testing::internal::GetCapturedStderr().find("acp_register_memory"), std::string::npos);
    for (acp_atkey_t k : keys) EXPECT_EQ(acp_unregister_memory(k), 0);
}
