// The C++ API: RAII registration, copies as handles, errors as exceptions
// carrying the C API's message.
#include "acpx/acpx.hpp"

#include <vector>

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
        EXPECT_NE(std::string(e.what()).find("acpx: acp_copy: dst: is ACP_GA_NULL"), std::string::npos)
            << e.what();
    }
    testing::internal::GetCapturedStderr();
    EXPECT_THROW(reg.ga(8), std::out_of_range);
}
