// The memory a handle holds, computed in one process by building the same
// plans create builds (middle/plan.cpp), for group sizes no test launches.
// Targets (issue #4): root of a 10^6-member binomial bcast in root mode
// <= 24 MiB (seed 002 estimates 48 MB); a non-root member's control memory
// independent of the group size.
#include <gtest/gtest.h>

#include <cstdio>

#include "middle/plan.hpp"

using namespace acpx::middle;

namespace {

size_t bytes_held(Kind kind, Exec exec, uint8_t algo, uint32_t n, uint32_t me) {
    return modelled_bytes(kind, exec, algo, n, me);
}

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

TEST(PlanMemory, RootOfAMillionMemberBinomialBcastFitsIn24MiB) {
    const uint32_t n = 1000000;
    const size_t root = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, 0);
    std::printf("root mode, binomial bcast, 10^6 members: root holds %.2f MiB (%.1f bytes/member)\n",
                root / kMiB, static_cast<double>(root) / n);
    EXPECT_LE(root, 24u << 20);
    EXPECT_GE(root, 22u * n) << "list (12 B) + GA (8) + tag (2) + ready (1) per member";
}

TEST(PlanMemory, NonRootMembersDoNotGrowWithTheGroup) {
    for (Exec exec : {Exec::kRoot, Exec::kDelegated}) {
        // A leaf of the binomial tree (the last member) and, in root mode,
        // an inner member: the same bytes at 2^10 and 2^20 members.
        const size_t small = bytes_held(Kind::kBcast, exec, 0, 1u << 10, (1u << 10) - 1);
        const size_t large = bytes_held(Kind::kBcast, exec, 0, 1u << 20, (1u << 20) - 1);
        EXPECT_EQ(small, large) << name_of(exec);
        std::printf("%s mode, binomial bcast leaf: %zu bytes at 2^10 and 2^20 members\n", name_of(exec), large);
    }
    const size_t inner_small = bytes_held(Kind::kBcast, Exec::kRoot, 0, 1u << 10, 1);
    const size_t inner_large = bytes_held(Kind::kBcast, Exec::kRoot, 0, 1u << 20, 1);
    EXPECT_EQ(inner_small, inner_large);
    // Delegated binary tree: at most two children anywhere.
    EXPECT_EQ(bytes_held(Kind::kBcast, Exec::kDelegated, 1, 1u << 10, 1),
              bytes_held(Kind::kBcast, Exec::kDelegated, 1, 1u << 20, 1));
}

TEST(PlanMemory, TableOfGroupSizes) {
    std::printf("%10s %16s %16s %16s %14s\n", "members", "root-mode root", "root-mode leaf",
                "delegated root", "seed estimate");
    for (uint32_t n = 16; n <= (1u << 20); n <<= 2) {
        const size_t rr = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, 0);
        const size_t rl = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, n - 1);
        const size_t dr = bytes_held(Kind::kBcast, Exec::kDelegated, 0, n, 0);
        std::printf("%10u %16zu %16zu %16zu %14.0f\n", n, rr, rl, dr, 48.0 * n);
        EXPECT_LT(rr, 24u * n + 40000);  // + the control block (two 16 KiB inline slots)
    }
}
