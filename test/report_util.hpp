// Checking the one-line error reports of the C API in tests:
//   EXPECT_REPORTS(stderr_of([&] { h = acp_copy(...); }), "acp_copy", "dst");
// passes when the call printed exactly one line "acpx: acp_copy: dst: ...".
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace acpx::test {

// Runs `call`, returns what it printed on stderr.
template <class F>
std::string stderr_of(F call) {
    testing::internal::CaptureStderr();
    call();
    return testing::internal::GetCapturedStderr();
}

}  // namespace acpx::test

#define EXPECT_REPORTS(output, fn, arg)                                                        \
    do {                                                                                       \
        const std::string out_ = (output);                                                     \
        EXPECT_NE(out_.find(std::string("acpx: ") + fn + ": " + arg + ":"), std::string::npos) \
            << "stderr was: " << out_;                                                         \
        EXPECT_EQ(std::count(out_.begin(), out_.end(), '\n'), 1) << out_;                      \
    } while (0)
