// The C++ API: RAII registration, copies as handles, errors as exceptions
// carrying the C API's message.
#include "acpx/acpx.hpp"

#include <string>
#include <vector>

#include "../../basic/fault_injection.hpp"
#include "../mp_util.hpp"

using namespace acpx::test;

TEST(CxxApi, RegistrationCopyAndWait) {
    std::vector<uint64_t> v(16, static_cast<uint64_t>(me()) + 1);
    acpx::Registration reg{std::span(v)};
    auto gas = allgather_u64(reg.ga());
    const int from = (me() + np() - 1) % np();
    acpx::Handle h = acpx::copy(reg.ga(8 * 8), gas[from], 8 * 8);
    h.wait();
    EXPECT_TRUE(h.test());
    for (int i = 0; i < 8; ++i) EXPECT_EQ(v[i], static_cast<uint64_t>(me()) + 1);
    for (int i = 8; i < 16; ++i) EXPECT_EQ(v[i], static_cast<uint64_t>(from) + 1);
    acp_sync();
}

TEST(CxxApi, ErrorsCarryTheMessage) {
    std::vector<char> v(8);
    acpx::Registration reg{std::span(v)};
    testing::internal::CaptureStderr();
    try {
        acpx::copy(ACP_GA_NULL, reg.ga(), 8);
        ADD_FAILURE() << "no exception";
    } catch (const acpx::Error &e) {
        EXPECT_NE(std::string(e.what()).find("acpx: acp_copy: dst: is ACP_GA_NULL"), std::string::npos) << e.what();
    }
    testing::internal::GetCapturedStderr();
    EXPECT_THROW(reg.ga(8), std::out_of_range);
}

// A failed GMA throws from wait() and test(), instead of returning as if
// its bytes had arrived (wait) or never completing (test: a loop on it
// would spin forever).
TEST(CxxApi, AFailedCopyThrowsFromWaitAndTest) {
    std::vector<uint64_t> v(4, 9);
    acpx::Registration reg{std::span(v)};
    ASSERT_EQ(acpx_test_fail("start:1"), 0);
    testing::internal::CaptureStderr();
    acpx::Handle h = acpx::copy(reg.ga(0), reg.ga(16), 8);
    EXPECT_THROW(h.wait(), acpx::Error);
    EXPECT_THROW(h.test(), acpx::Error);
    testing::internal::GetCapturedStderr();
    try {
        h.test();
    } catch (const acpx::Error &e) {
        EXPECT_NE(std::string(e.what()).find("GMA " + std::to_string(h.get()) + " failed"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(v[0], 9u);
}
