// In-process: what acp_init does about Yama's ptrace policy for Cross-
// Memory Attach, and what the warning says when a copy is refused.
#include <gtest/gtest.h>

#include <cerrno>

#include "basic/onnode/ptrace_access.hpp"

namespace ca = acpx::basic::cma_access;

TEST(CmaAccess, OnlyScopeOneCanBeOpenedByTheProcessItself) {
    EXPECT_EQ(ca::step_for(-1), ca::Step::kNone);  // no Yama
    EXPECT_EQ(ca::step_for(0), ca::Step::kNone);
    EXPECT_EQ(ca::step_for(1), ca::Step::kPtracerAny);
    EXPECT_EQ(ca::step_for(2), ca::Step::kNotPermitted);
    EXPECT_EQ(ca::step_for(3), ca::Step::kNotPermitted);
}

TEST(CmaAccess, TheScopeReadIsThisMachines) {
    const int scope = ca::yama_scope();
    EXPECT_GE(scope, -1);
    EXPECT_LE(scope, 3);
    // What acp_init says under acprun -v names the same scope.
    const std::string said = ca::open_to_peers();
    if (scope < 0)
        EXPECT_EQ(said, "no Yama");
    else
        EXPECT_EQ(said.rfind("Yama ptrace_scope=" + std::to_string(scope), 0), 0u) << said;
}

TEST(CmaAccess, TheRefusalNamesItsLikelyCause) {
    EXPECT_NE(ca::refusal_hint(EPERM, 1).find("ptrace_scope=1"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(EPERM, 2).find("CAP_SYS_PTRACE"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(EPERM, 3).find("no process"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(EPERM, -1).find("seccomp"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(EPERM, 0).find("seccomp"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(ENOSYS, 0).find("process_vm_readv/writev"), std::string::npos);
    EXPECT_NE(ca::refusal_hint(ESRCH, 0).find("gone"), std::string::npos);
}
