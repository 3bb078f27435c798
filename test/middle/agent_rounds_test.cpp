// Rounds that run while a member computes (ACP_PROGRESS=agent, the
// default): once every member has called send, the progress agents carry
// the round through, so a member busy between its send and its wait
// stalls nobody. One member sends on five handles at once and computes
// for 2 s without an acpx call; the others send 100 ms later (so its send
// cannot have done their parts) and must get every byte long before it
// comes back.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>

#include "../../basic/fault_injection.hpp"
#include "../report_util.hpp"
#include "col_util.hpp"

using namespace acpx::test;

namespace {

using Clock = std::chrono::steady_clock;

// Busy for `s` seconds without a call into acpx (a clock read is none).
void compute_for(double s) {
    const auto end = Clock::now() + std::chrono::duration<double>(s);
    volatile double x = 1;
    while (Clock::now() < end)
        for (int i = 0; i < 1000; ++i) x = x * 0.9999999 + 1e-7;
}

constexpr double kComputeS = 2.0;
constexpr double kBoundS = 1.0;  // generous: a round takes milliseconds here

class AgentRounds : public ::testing::TestWithParam<const char *> {};

}  // namespace

TEST_P(AgentRounds, AMemberThatComputesStallsNobody) {
    if (np() < 2) GTEST_SKIP() << "needs 2 processes (the suites run it at 2 to 5)";
    const std::string exec = GetParam();
    ScopedEnv e("ACP_COL_EXEC", exec);
    // A chain makes member 1 forward what it gets (delegated); in root
    // mode the root issues every copy, so the root computes.
    ScopedEnv a("ACP_COL_BCAST_ALGO", "chain");
    std::vector<int> g = make_group(Shape::kPermuted);
    const int n = static_cast<int>(g.size());
    const int busy = exec == "root" ? g[0] : g[1];
    const int mine = index_in(g, me());
    constexpr size_t kBytes = 200000, kBlock = 100000, kCount = 20000;

    std::vector<unsigned char> bd(kBytes), bb(kBytes), ad(kBlock * n), ain(kBlock), aout(kBlock * n);
    std::vector<double> rin(kCount), rout(kCount);
    acp_col_t h[5] = {
        acp_create_bcast_direct(g[0], n, g.data(), bd.data(), kBytes),
        acp_create_bcast_buffered(g[0], n, g.data(), kBytes),
        acp_create_allgather_direct(n, g.data(), ad.data(), kBlock),
        acp_create_allgather_buffered(n, g.data(), kBlock),
        acp_create_allreduce(n, g.data(), kCount, ACP_TYPE_DOUBLE, ACP_OP_SUM),
    };
    for (acp_col_t x : h) ASSERT_NE(x, ACP_COL_NULL);
    const uint64_t seed = 77;
    if (mine == 0) fill_pattern(bd.data(), kBytes, seed), fill_pattern(bb.data(), kBytes, seed);
    fill_pattern(ad.data() + mine * kBlock, kBlock, seed + mine);
    fill_pattern(ain.data(), kBlock, seed + mine);
    for (size_t i = 0; i < kCount; ++i) rin[i] = static_cast<double>(mine + i % 7);
    ASSERT_EQ(acp_sync(), 0);

    if (me() != busy) usleep(100000);
    const auto t0 = Clock::now();
    acp_request_t r[5] = {
        acp_send_bcast_direct(h[0], 0, kBytes),
        acp_send_bcast_buffered(h[1], bb.data(), kBytes),
        acp_send_allgather_direct(h[2], 0, kBlock),
        acp_send_allgather_buffered(h[3], ain.data(), aout.data(), kBlock),
        acp_send_allreduce(h[4], rin.data(), rout.data()),
    };
    if (me() == busy) compute_for(kComputeS);
    for (acp_request_t x : r) ASSERT_EQ(acp_wait_col(x), 0);
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    if (me() != busy) {
        EXPECT_LT(took, kBoundS) << "rank " << me() << " waited " << took << " s for rank " << busy
                                 << ", which computed for " << kComputeS << " s after its sends";
    }

    EXPECT_EQ(first_mismatch(bd.data(), kBytes, seed), -1);
    EXPECT_EQ(first_mismatch(bb.data(), kBytes, seed), -1);
    for (int m = 0; m < n; ++m) {
        EXPECT_EQ(first_mismatch(ad.data() + m * kBlock, kBlock, seed + m), -1) << "direct, block " << m;
        EXPECT_EQ(first_mismatch(aout.data() + m * kBlock, kBlock, seed + m), -1) << "buffered, block " << m;
    }
    for (size_t i = 0; i < kCount; ++i) {
        const double want = static_cast<double>(n * (n - 1) / 2 + n * static_cast<int>(i % 7));
        ASSERT_EQ(rout[i], want) << "element " << i;
    }
    for (acp_col_t x : h) EXPECT_EQ(acp_free_col(x), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A copy the agent issues while its member computes fails: the members
// below it learn at once (the agent passes the failed stamps on), not when
// the computing member comes back to its wait; the computing member's
// wait then fails, naming the copy; the members above it succeed; the
// next round is whole everywhere.
TEST_P(AgentRounds, AFailedCopyTheAgentIssuedFailsTheMembersBelowAtOnce) {
    const std::string exec = GetParam();
    const bool root_mode = exec == "root";
    if (np() < (root_mode ? 2 : 3)) GTEST_SKIP() << "needs a member below the computing one";
    ScopedEnv e("ACP_COL_EXEC", exec);
    ScopedEnv chain("ACP_COL_BCAST_ALGO", "chain");
    // On one node a delegated round above the inline slots is read by its
    // receiver (ACP_COL_PULL): here the computing member must write.
    ScopedEnv pull("ACP_COL_PULL", "0");
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    const int busy = root_mode ? 0 : 1;  // issues the copy to busy + 1
    constexpr size_t kBytes = 200000;
    std::vector<unsigned char> a(kBytes);
    acp_col_t h = acp_create_bcast_direct(0, np(), g.data(), a.data(), kBytes);
    ASSERT_NE(h, ACP_COL_NULL);
    if (me() == 0) fill_pattern(a.data(), kBytes, 5);
    ASSERT_EQ(acp_sync(), 0);

    if (me() == busy) {
        ASSERT_EQ(acpx_test_fail("data:1"), 0);
    } else {
        usleep(100000);  // the busy member's send cannot have issued the copy
    }
    int rc = 0;
    double took = 0;
    const std::string err = stderr_of([&] {
        const auto t0 = Clock::now();
        acp_request_t r = acp_send_bcast_direct(h, 0, kBytes);
        if (me() == busy) compute_for(kComputeS);
        rc = acp_wait_col(r);
        took = std::chrono::duration<double>(Clock::now() - t0).count();
    });
    acpx_test_fail("data:1000000000");  // disarm what was not used
    if (!expect_chain_failure(rc, err, busy)) {
        EXPECT_EQ(rc, 0) << err;
        EXPECT_EQ(first_mismatch(a.data(), kBytes, 5), -1);
    } else if (me() > busy) {
        EXPECT_LT(took, kBoundS) << "rank " << me() << " learnt of the failure when rank " << busy
                                 << " came back from computing, not when its agent saw it";
    }
    ASSERT_EQ(acp_sync(), 0);
    if (me() == 0) fill_pattern(a.data(), kBytes, 6);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, kBytes)), 0);
    EXPECT_EQ(first_mismatch(a.data(), kBytes, 6), -1) << "the next round";
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Exec, AgentRounds, ::testing::Values("delegated", "root"));
