// Failures: a GMA that fails stays failed (acp_inquire -1, one line naming
// it, the ranks and the reason), what is ordered after it is not executed,
// and the executing rank of a delegated copy checks its destination
// against the owner's registration, not the issuer's word. Faults are
// injected with basic/fault_injection.hpp.
#include "../../basic/fault_injection.hpp"
#include "../mp_util.hpp"
#include "../report_util.hpp"

using namespace acpx::test;

TEST(Failure, AFailedPutStaysFailedAndWhatIsOrderedAfterItIsNotExecuted) {
    SharedBuffer b(64, 0x11);
    const int peer = (me() + 1) % np();
    unsigned char src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {};
    acp_atkey_t k = acp_register_memory(src, sizeof src, 0), kd = acp_register_memory(dst, sizeof dst, 0);
    const acp_ga_t gsrc = acp_query_ga(k, src), gdst = acp_query_ga(kd, dst);
    ASSERT_EQ(acpx_test_fail("start:1"), 0);
    acp_handle_t failed = ACP_HANDLE_NULL, after = ACP_HANDLE_NULL, free_one = ACP_HANDLE_NULL;
    const std::string err = stderr_of([&] {
        failed = acp_copy(b.ga[peer], gsrc, 8, ACP_HANDLE_NULL);
        after = acp_copy(gdst, gsrc, 8, failed);                  // depends on the failed one
        free_one = acp_copy(gdst + 4, gsrc, 4, ACP_HANDLE_NULL);  // does not
        acp_complete(ACP_HANDLE_ALL);
    });
    ASSERT_NE(failed, ACP_HANDLE_NULL);
    EXPECT_NE(err.find("acp_copy: GMA " + std::to_string(failed) + ": put of 8 bytes from rank " +
                       std::to_string(me()) + " to rank " + std::to_string(peer) + " failed: fault injected"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("GMA " + std::to_string(after) + ": local copy of 8 bytes on rank " + std::to_string(me()) +
                       " failed: not executed: ordered after GMA " + std::to_string(failed)),
              std::string::npos)
        << err;
    EXPECT_EQ(acp_inquire(failed), -1);
    EXPECT_EQ(acp_inquire(after), -1);
    EXPECT_EQ(acp_inquire(free_one), 0);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(dst[i], 0) << "the dependent copy ran";
    for (int i = 4; i < 8; ++i) EXPECT_EQ(dst[i], i - 3) << "the independent copy did not";
    EXPECT_EQ(acp_query_failed(failed, ACP_HANDLE_ALL), failed);
    EXPECT_EQ(acp_query_failed(after, ACP_HANDLE_ALL), after);
    EXPECT_EQ(acp_query_failed(free_one, free_one), ACP_HANDLE_NULL);
    // Later GMAs work; a failure does not poison the process.
    const acp_handle_t later = acp_copy(gdst, gsrc, 8, ACP_HANDLE_ALL);
    acp_complete(later);
    EXPECT_EQ(acp_inquire(later), 0);
    EXPECT_EQ(dst[0], 1);
    acp_sync();
    for (unsigned char c : b.data) EXPECT_EQ(c, 0x11) << "the failed put wrote";
    EXPECT_EQ(acp_unregister_memory(k), 0);
    EXPECT_EQ(acp_unregister_memory(kd), 0);
}

TEST(Failure, AFailedAtomicLeavesItsResultUnwritten) {
    SharedBuffer b(64);
    const int peer = (me() + 1) % np();
    uint64_t out = 77;
    acp_atkey_t k = acp_register_memory(&out, sizeof out, 0);
    ASSERT_EQ(acpx_test_fail("start:1"), 0);
    acp_handle_t h = ACP_HANDLE_NULL;
    const std::string err = stderr_of([&] {
        h = acp_add8(acp_query_ga(k, &out), b.ga[peer], 5, ACP_HANDLE_NULL);
        acp_complete(h);
    });
    EXPECT_NE(err.find("acp_add8: GMA " + std::to_string(h) + ": atomic on 8 bytes at rank " + std::to_string(peer)),
              std::string::npos)
        << err;
    EXPECT_EQ(acp_inquire(h), -1);
    EXPECT_EQ(out, 77u);
    acp_sync();
    uint64_t v;
    std::memcpy(&v, b.data.data(), 8);
    EXPECT_EQ(v, 0u) << "the failed atomic changed its target";
    EXPECT_EQ(acp_unregister_memory(k), 0);
}

TEST(Failure, ADelegatedCopyTheExecutorFailsFailsAtItsIssuerWithTheExecutorsReason) {
    if (np() < 3) GTEST_SKIP() << "needs a third rank";
    SharedBuffer b(64, 0x22);
    // Rank 1 executes rank 0's copy from rank 1 to rank 2, and fails it.
    if (me() == 1) {
        ASSERT_EQ(acpx_test_fail("exec:1"), 0);
    }
    acp_sync();
    if (me() == 0) {
        acp_handle_t h = ACP_HANDLE_NULL;
        const std::string err = stderr_of([&] {
            h = acp_copy(b.ga[2], b.ga[1], 16, ACP_HANDLE_NULL);
            acp_complete(h);
        });
        EXPECT_EQ(acp_inquire(h), -1);
        EXPECT_NE(err.find("copy of 16 bytes from rank 1 to rank 2 (executed by rank 1) failed: rank 1 refused it: "
                           "fault injected"),
                  std::string::npos)
            << err;
    }
    acp_sync();
    for (unsigned char c : b.data) EXPECT_EQ(c, 0x22);
}

TEST(Failure, TheExecutorRefusesADestinationItsOwnerDidNotRegister) {
    if (np() < 3) GTEST_SKIP() << "needs a third rank";
    SharedBuffer b(64, 0x33);
    // A GA past the end of rank 2's registration, one of a tag it never
    // registered, and one it has unregistered: rank 1, which would write,
    // refuses each, whatever rank 0 claims.
    std::vector<unsigned char> gone(64);
    acp_atkey_t kg = acp_register_memory(gone.data(), gone.size(), 0);
    const std::vector<uint64_t> gone_ga = allgather_u64(acp_query_ga(kg, gone.data()));
    EXPECT_EQ(acp_unregister_memory(kg), 0);
    acp_sync();
    if (me() == 0) {
        const acp_ga_t past_end = b.ga[2] + 60, no_tag = b.ga[2] + (1000ULL << 34), stale = gone_ga[2];
        for (acp_ga_t dst : {past_end, no_tag, stale}) {
            acp_handle_t h = ACP_HANDLE_NULL;
            const std::string err = stderr_of([&] {
                h = acpx_test_copy_unchecked(dst, b.ga[1], 16);
                acp_complete(h);
            });
            ASSERT_NE(h, ACP_HANDLE_NULL);
            EXPECT_EQ(acp_inquire(h), -1);
            EXPECT_NE(err.find("failed: rank 1 refused it: destination"), std::string::npos) << err;
        }
    }
    acp_sync();
    for (unsigned char c : b.data) EXPECT_EQ(c, 0x33);
}

TEST(Failure, AMalformedFaultSpecIsRefused) {
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acpx_test_fail("copy:x"), -1); }), "acpx_test_fail", "spec");
    EXPECT_REPORTS(stderr_of([&] { EXPECT_EQ(acp_query_failed(5, 2), ACP_HANDLE_NULL); }), "acp_query_failed", "first");
}
