// The C++ API of persistent collectives: RAII (the destructor frees, a
// move transfers ownership), spans, requests, and errors as acpx::Error
// carrying the C API's line.
#include <acpx/collectives.hpp>
#include <acpx/middle.hpp>

#include "col_util.hpp"

using namespace acpx::test;

TEST(CxxCollectives, BcastRoundsAndMove) {
    std::vector<int> g = make_group(Shape::kPermuted);
    std::vector<double> v(1000);
    testing::internal::CaptureStderr();
    {
        acpx::BcastDirect bc(g[0], g, std::span(v));
        EXPECT_GT(bc.memory(), 0u);
        for (int round = 1; round <= 3; ++round) {
            if (me() == g[0])
                for (size_t i = 0; i < v.size(); ++i) v[i] = round * 1000.0 + i;
            acpx::Request r = bc.send(0, v.size() * sizeof(double));
            r.wait();
            EXPECT_TRUE(r.test());
            for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], round * 1000.0 + i);
        }
        acpx::BcastDirect moved = std::move(bc);  // one handle, freed once
        if (me() == g[0]) v[0] = -1;
        moved.send(0, sizeof(double)).wait();
        EXPECT_EQ(v[0], -1);
        EXPECT_EQ(bc.get(), ACP_COL_NULL);
    }
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "no error printed: freed exactly once";
    EXPECT_EQ(acp_sync(), 0);
}

TEST(CxxCollectives, AllgatherBuffered) {
    std::vector<int> g = make_group(Shape::kAll);
    acpx::AllgatherBuffered ag(g, 64);
    std::vector<int> mine(100, me()), all(100 * g.size(), -1);
    ag.send(std::span(mine), std::span(all)).wait();  // 400 bytes: 7 segments of 64
    for (size_t b = 0; b < g.size(); ++b)
        for (size_t i = 0; i < 100; ++i) ASSERT_EQ(all[b * 100 + i], g[b]);
    std::vector<int> small(10);
    try {
        ag.send(std::span(mine), std::span(small));
        ADD_FAILURE() << "a too small output span was accepted";
    } catch (const acpx::Error &e) {
        EXPECT_NE(std::string(e.what()).find("out: smaller than np_group x in"), std::string::npos) << e.what();
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST(CxxCollectives, ErrorsCarryTheCApiLine) {
    std::vector<int> g = make_group(Shape::kAll);
    std::vector<char> a(10);
    testing::internal::CaptureStderr();
    try {
        acpx::BcastDirect bad(np(), g, std::span(a));  // root outside the group
        ADD_FAILURE() << "created";
    } catch (const acpx::Error &e) {
        EXPECT_EQ(std::string(e.what()).rfind("acpx: acp_create_bcast_direct: root: ", 0), 0u) << e.what();
    }
    acpx::BcastDirect bc(g[0], g, std::span(a));
    try {
        bc.send(5, 6);
        ADD_FAILURE() << "a range past the array was accepted";
    } catch (const acpx::Error &e) {
        EXPECT_EQ(std::string(e.what()).rfind("acpx: acp_send_bcast_direct: size: ", 0), 0u) << e.what();
    }
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(acp_sync(), 0);
}

// Global memory and channels in C++: a block on the next rank, filled by
// a copy and read back by its owner; a message of doubles along a ring;
// errors as acpx::Error.
TEST(CxxMiddle, GlobalMemoryAndChannel) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const int next = (me() + 1) % np(), prev = (me() + np() - 1) % np();
    {
        acpx::GlobalMemory block(64, next);
        EXPECT_EQ(block.rank(), next);
        EXPECT_THROW(block.local<char>(), acpx::Error);
        EXPECT_THROW(block.ga(64), std::out_of_range);
        acpx::GlobalMemory mine(64, me());
        auto words = mine.local<uint64_t>();
        ASSERT_EQ(words.size(), 8u);
        words[0] = 0x1234 + static_cast<uint64_t>(me());
        acpx::GlobalMemory moved = std::move(mine);
        acpx::copy(block.ga(), moved.ga(), 8).wait();
        acp_sync();
        EXPECT_EQ(moved.local<uint64_t>()[0], 0x1234u + static_cast<uint64_t>(me()));
        acp_sync();
    }
    {
        acpx::Channel out(me(), next), in(prev, me());
        std::vector<double> v(300), w(400);
        for (size_t i = 0; i < v.size(); ++i) v[i] = me() * 1000.0 + static_cast<double>(i);
        acpx::ChannelRequest r = in.irecv(std::span(w));
        out.send(std::span(v));
        EXPECT_EQ(r.wait(), v.size() * sizeof(double));
        EXPECT_EQ(w[299], prev * 1000.0 + 299);
    }
    testing::internal::CaptureStderr();
    EXPECT_THROW(acpx::GlobalMemory(0, me()), acpx::Error);
    EXPECT_THROW(acpx::Channel(me(), me()), acpx::Error);
    testing::internal::GetCapturedStderr();
}
