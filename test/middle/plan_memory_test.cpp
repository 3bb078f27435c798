// The memory a handle holds, computed in one process by building the same
// plans create builds (middle/plan.cpp), for group sizes no test launches.
// Targets (issues #4, #66): root of a 10^6-member binomial bcast in root
// mode <= 12 MiB (seed 002 estimates 48 MB); a non-root member's control memory
// independent of the group size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "basic/config.hpp"
#include "basic/ga.hpp"
#include "collectives/algorithms.hpp"
#include "middle/plan.hpp"

using namespace acpx::middle;

namespace {

size_t bytes_held(Kind kind, Exec exec, uint8_t algo, uint32_t n, uint32_t me) {
    return modelled_bytes(kind, exec, algo, n, me);
}

constexpr double kMiB = 1024.0 * 1024.0;

// A handle of 4 members (a bcast's root member 0) of `size` bytes, its
// inline cap ACP_COL_INLINE's `inline_max`.
Params four_members(Kind kind, uint64_t size, uint32_t inline_max) {
    Params p;
    p.kind = kind;
    p.members = 4;
    p.root = kind == Kind::kBcast ? 0 : -1;
    p.size = size;
    p.inline_max = inline_max;
    return p;
}

}  // namespace

// Its list is a formula (collectives/stored_list.hpp): what is left is
// every member's GA, control tag and ready byte.
TEST(PlanMemory, RootOfAMillionMemberBinomialBcastFitsIn12MiB) {
    const uint32_t n = 1000000;
    const size_t root = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, 0);
    std::printf("root mode, binomial bcast, 10^6 members: root holds %.2f MiB (%.1f bytes/member)\n", root / kMiB,
                static_cast<double>(root) / n);
    EXPECT_LE(root, 12u << 20);
    EXPECT_GE(root, 11u * n) << "GA (8) + tag (2) + ready (1) per member";
    // A list with no formula is kept whole: 12 bytes an entry more.
    const size_t chain =
        bytes_held(Kind::kBcast, Exec::kRoot, static_cast<uint8_t>(acpx::collectives::BcastAlgo::kChain), n, 0);
    EXPECT_GE(chain, root + 12u * (n - 1)) << "chain";
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
    std::printf("%10s %16s %16s %16s %14s\n", "members", "root-mode root", "root-mode leaf", "delegated root",
                "seed estimate");
    for (uint32_t n = 16; n <= (1u << 20); n <<= 2) {
        const size_t rr = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, 0);
        const size_t rl = bytes_held(Kind::kBcast, Exec::kRoot, 0, n, n - 1);
        const size_t dr = bytes_held(Kind::kBcast, Exec::kDelegated, 0, n, 0);
        std::printf("%10u %16zu %16zu %16zu %14.0f\n", n, rr, rl, dr, 48.0 * n);
        EXPECT_LT(rr, 12u * n + 140000);  // + the control block (two 64 KiB inline slots)
    }
}

// A tree bcast's inline slots fit its rounds (its size rounded up to 64
// B, at most 64 KiB) and come in rings of as many as fit in 32 KiB, 2 to
// 64 (on one node 32 for slots of one or two lines with their stamps:
// kLineRingDepth): its control block is at most the 131 KB of two full
// slots, plus the rings' 16 B of signals a slot, and small handles' are
// far smaller.
TEST(PlanMemory, BcastInlineRingsFitTheHandle) {
    struct Want {
        uint64_t size;
        uint32_t inl, depth;
        uint32_t across = 0;  // the depth across nodes where it differs (0: depth)
    };
    for (const Want w : {Want{1, 48, 32, 64}, Want{48, 48, 32, 64}, Want{49, 112, 32, 64}, Want{64, 112, 32, 64},
                         Want{112, 112, 32, 64}, Want{113, 128, 64}, Want{512, 512, 64}, Want{513, 576, 32},
                         Want{1000, 1024, 32}, Want{2048, 2048, 16}, Want{2049, 2112, 8}, Want{4096, 4096, 8},
                         Want{8192, 8192, 4}, Want{8193, 8256, 2}, Want{16384, 16384, 2}, Want{16385, 16448, 2},
                         Want{65536, 65536, 2}, Want{65537, 65536, 2}, Want{1u << 20, 65536, 2}}) {
        Params p;
        p.kind = Kind::kBcast;
        p.members = 5;
        p.size = w.size;
        p.inline_max = kDefaultInlineMax;  // ACP_COL_INLINE=64K (on one node the default is 8K)
        EXPECT_EQ(inline_bytes_for(p), w.inl) << w.size;
        EXPECT_EQ(ring_depth_for(p, inline_bytes_for(p)), w.depth) << w.size;
        p.ring_max = 2;  // ACP_COL_RING_DEPTH=2: every round paced by the slowest member
        EXPECT_EQ(ring_depth_for(p, inline_bytes_for(p)), 2u) << w.size;
        p.ring_max = 8;
        EXPECT_EQ(ring_depth_for(p, inline_bytes_for(p)), std::min(w.depth, 8u)) << w.size;
        // A crowded node keeps 64 for slots of one or two lines, as across nodes.
        p.ring_max = kDefaultRingMax;
        p.crowded = 1;
        EXPECT_EQ(ring_depth_for(p, inline_bytes_for(p)), w.across ? w.across : w.depth) << w.size << " crowded";
        p.crowded = 0;
        // A group across nodes: at least 16 as fit in 128 KiB, no more
        // than the two slots a 64 KiB handle has.
        p.ring_max = kDefaultRingMax;
        p.across_nodes = 1;
        const uint32_t deep = ring_depth_for(p, inline_bytes_for(p));
        uint32_t fits = 2;
        while (fits < 16 && size_t{2 * fits} * w.inl <= kRingBytesAcrossNodes) fits *= 2;
        EXPECT_EQ(deep, std::max(fits, w.across ? w.across : w.depth)) << w.size;
        EXPECT_LE(size_t{deep} * w.inl, std::max<size_t>(kRingBytesAcrossNodes, 2 * w.inl)) << w.size;
    }
    for (const auto &[size, depth] : {std::pair<uint64_t, uint32_t>{4096, 16},
                                      {8192, 16},
                                      {16384, 8},
                                      {32768, 4},
                                      {65536, 2},
                                      {512, 64},
                                      {1000, 32},
                                      {2048, 16}}) {
        Params q;
        q.kind = Kind::kBcast;
        q.members = 5;
        q.size = size;
        q.across_nodes = 1;
        EXPECT_EQ(ring_depth_for(q, inline_bytes_for(q)), depth) << size << " across nodes";
    }
    Params p;
    p.kind = Kind::kBcast;
    p.members = 5;
    p.size = 0;
    EXPECT_EQ(inline_bytes_for(p), 0u);
    EXPECT_EQ(ring_depth_for(p, 0), 2u);
    p.inline_max = 0;  // ACP_COL_INLINE=0
    p.size = 1000;
    EXPECT_EQ(inline_bytes_for(p), 0u);
    Params ag;
    ag.kind = Kind::kAllgather;
    EXPECT_EQ(ring_depth_for(ag, 256), 2u) << "allgather members move in step anyway";
    const size_t before = ctl::Layout{1, 65536, 2}.ready();  // 64 + 2 x (16 + 64 KiB + 8)
    EXPECT_EQ(before, 112u + 2 * 65536);
    const size_t small_ring = kSmallRingDepth * (16 + kSmallRingInline);  // 4 KiB
    EXPECT_EQ(small_ring, 4096u);
    for (uint64_t size = 1; size <= (1u << 17); size += 61) {
        p.size = size;
        p.inline_max = kDefaultInlineMax;
        // Root mode's executor tells a forwarder its copies are done (fwd
        // stamps); delegated members need no such ring.
        p.exec = size % 2 ? Exec::kRoot : Exec::kDelegated;
        const uint32_t inl = inline_bytes_for(p);
        const ctl::Layout at = layout_of(p);
        ASSERT_EQ(at.inl, inl);
        ASSERT_EQ(at.depth, ring_depth_for(p, inl));
        // Slots are found by seq & (depth - 1).
        ASSERT_EQ(at.depth & (at.depth - 1), 0u) << size;
        ASSERT_EQ(at.small_depth & (at.small_depth - 1), 0u) << size;
        // A ring under 32 deep (slots over 1 KiB) has a small ring of 32
        // (on one node) beside it.
        ASSERT_EQ(at.small_depth, at.depth < kLineRingDepth ? kLineRingDepth : 0u) << size;
        ASSERT_LE(at.ready(), before + 16 * at.depth + small_ring + 8 * at.small_depth) << size;
        if (size > 48 && size <= 112) {  // two lines a slot with its stamps
            ASSERT_EQ(at.arrive(0, 0, size) % 64, 0u);
            ASSERT_EQ(at.arrive_stride(), 128u);
        }
        if (size <= 48) {  // a line a slot with its stamps, and (root mode) a fwd stamp
            ASSERT_EQ(at.ready(), 64 + kLineRingDepth * (64 + (p.exec == Exec::kRoot ? 8 : 0))) << size;
            ASSERT_EQ(at.arrive(0, 0, size) % 64, 0u) << "the slot is one whole line";
            ASSERT_EQ(at.arrive_stride(), 64u);
        }
        ASSERT_GE(inl, std::min<uint64_t>(size, 65536)) << size << ": a round of the handle's size must fit";
        // Slots of different rounds and blocks never overlap: each round's
        // stamp, then its inline slot; then the small ring's; then the fwd
        // stamps; then the ready bytes.
        ASSERT_EQ(inl == 48 || inl == 112 ? 0u : inl % 64, 0u) << size;
        ASSERT_EQ(at.arrive_stride(), inl == 48 ? 64u : inl == 112 ? 128u : 16 + inl);
        const size_t big = inl;  // a round of the handle's size: the first ring
        ASSERT_FALSE(at.in_small(big));
        ASSERT_EQ(at.inline_at(0, 0, big), at.arrive(0, 0, big) + 16);
        ASSERT_EQ(at.inline_at(0, 1, big) - at.inline_at(0, 0, big), at.arrive_stride());
        ASSERT_EQ(at.inline_at(0, at.depth, big), at.inline_at(0, 0, big));
        ASSERT_EQ(at.arrive(0, at.depth - 1, big) + at.arrive_stride(), at.small_base());
        ASSERT_EQ(at.rings_bytes(), at.fwd(0, 0) - at.arrive(0, 0, 0));
        if (at.small_depth) {
            ASSERT_TRUE(at.in_small(8));
            ASSERT_TRUE(at.in_small(kSmallRingInline));
            ASSERT_FALSE(at.in_small(kSmallRingInline + 1));
            ASSERT_FALSE(at.in_small(0)) << "a round of no bytes carries no inline bytes";
            ASSERT_EQ(at.arrive(0, 0, 8), at.small_base());
            ASSERT_EQ(at.arrive(0, at.small_depth, 8), at.small_base());
            ASSERT_EQ(at.arrive(0, at.small_depth - 1, 8) + at.small_stride(), at.fwd(0, 0));
            ASSERT_EQ(at.arrive_other(0, 3, 8), at.arrive(0, 3, big));
            ASSERT_EQ(at.arrive_other(0, 3, big), at.arrive(0, 3, 8));
            ASSERT_EQ(at.depth_for(8), at.small_depth);
            ASSERT_EQ(at.depth_for(big), at.depth);
        }
        ASSERT_EQ(at.fwd(0, 0), at.signal(1, 0, big));  // block 1 (fwd, n_in = 1)
        if (p.exec == Exec::kRoot) {
            ASSERT_EQ(at.fwd(0, at.fwd_depth() - 1) + 8, at.ready());
            ASSERT_EQ(at.fwd_depth(), std::max(at.depth, at.small_depth));
        } else {
            ASSERT_EQ(at.fwd_depth(), 0u);
            ASSERT_EQ(at.fwd(0, 0), at.ready()) << "no fwd ring";
        }
    }
    // ACP_COL_RING_DEPTH caps the small ring too; none where it is not deeper.
    p.size = 1 << 20;
    p.ring_max = 8;
    EXPECT_EQ(layout_of(p).small_depth, 8u);
    p.ring_max = 2;
    EXPECT_EQ(layout_of(p).small_depth, 0u);
}

// With an eager pool (ACP_COL_POOL) a delegated handle on one node keeps
// the same small ring whatever its size (issue 66: <= 4 KiB a handle):
// kPooledRingDepth one-line slots a block for a bcast tree, 2 for an
// allgather; rounds over 48 bytes, up to the slots it would have had, go
// through the senders' pools, as far ahead as those slots would go.
TEST(PlanMemory, APooledHandleKeepsTheSameSmallRingWhateverItsSize) {
    for (const Kind kind : {Kind::kBcast, Kind::kAllgather})
        for (uint64_t size = 1; size <= (1u << 20); size = size * 3 + 1) {
            Params p;
            p.kind = kind;
            p.members = 4;
            p.root = kind == Kind::kBcast ? 0 : -1;
            p.size = size;
            p.pooled = 1;
            const uint32_t inl = inline_bytes_for(p), ring = kind == Kind::kBcast ? kPooledRingDepth : 2;
            const ctl::Layout at = layout_of(p);
            const std::string what = std::string(name_of(kind)) + " of " + std::to_string(size) + " bytes";
            ASSERT_EQ(at.inl, std::min(inl, kPooledInline)) << what;
            ASSERT_EQ(at.depth, ring) << what;
            ASSERT_EQ(at.arrive_stride(), 64u) << what << ": a slot and its stamps are one line";
            ASSERT_EQ(at.small_depth, 0u) << what;
            ASSERT_EQ(at.eager, inl) << what;
            ASSERT_EQ(at.eager_depth, ring) << what;
            // A pooled round goes as far ahead as slots of its own size
            // would let it, whatever the handle's size: its chunks in the
            // pool stay within 32 KiB (or two chunks).
            for (size_t round = kPooledInline + 1; round <= inl; round = round * 2 + 7) {
                const uint32_t d = pooled_depth(at, round);
                ASSERT_EQ(d & (d - 1), 0u) << what << ", a round of " << round;
                ASSERT_LE(d, ring) << what << ", a round of " << round;
                ASSERT_LE(size_t{d} * ((round + 63) / 64 * 64),
                          std::max<size_t>(kRingBytes, 2 * ((round + 63) / 64 * 64)))
                    << what << ", a round of " << round;
                const uint32_t slots_of_its_size = std::min(ring_depth_for(p, (round + 63) / 64 * 64), ring);
                ASSERT_EQ(d, std::max(slots_of_its_size, 2u)) << what << ", a round of " << round;
            }
            if (kind == Kind::kBcast && inl >= 8192) {
                EXPECT_EQ(pooled_depth(at, 64), kPooledRingDepth) << what << ": small rounds go 31 ahead";
                EXPECT_EQ(pooled_depth(at, 8192), 4u) << what;
            }
            ASSERT_EQ(at.pools(size), size > kPooledInline && size <= inl) << what;
            // Stamps and slots, forwards' notices, ready bytes.
            ASSERT_LE(at.ready(), 64 + at.n_in * ring * (64 + 8)) << what;
            if (kind == Kind::kBcast) {
                ASSERT_LE(at.ready(), 2400u) << what;
            }
        }
    // ACP_COL_RING_DEPTH caps the ring.
    Params p;
    p.members = 4;
    p.root = 0;
    p.size = 4096;
    p.pooled = 1;
    p.ring_max = 8;
    EXPECT_EQ(layout_of(p).depth, 8u);
    EXPECT_EQ(layout_of(p).eager_depth, 8u);
    EXPECT_EQ(pooled_depth(layout_of(p), 64), 8u);
}

// ACP_COL_INLINE unset (auto): a group on one node with a core per rank
// gets slots of up to 8 KiB, where two copies through them beat one
// through Cross-Memory Attach; on a crowded node and across nodes a bcast tree's go to 64 KiB and an allgather's to
// 16 KiB (a round and its stamp are one network message). A set value
// is the cap wherever the group runs, within the kind's. Below the cap a
// slot holds the handle's size, as a bcast's does (an allgather of 64-byte
// blocks: 112, two lines with the stamps; it had 8 KiB slots, 132 KB at 4
// ranks).
TEST(PlanMemory, TheDefaultInlineCapFollowsWhereTheGroupRuns) {
    struct Want {
        Kind kind;
        uint64_t size;
        bool across;
        uint32_t inline_max, inl;
    };
    for (const Want w :
         {Want{Kind::kBcast, 4096, false, kInlineAuto, 4096}, Want{Kind::kBcast, 8192, false, kInlineAuto, 8192},
          Want{Kind::kBcast, 8193, false, kInlineAuto, 8192}, Want{Kind::kBcast, 65536, false, kInlineAuto, 8192},
          Want{Kind::kBcast, 1u << 20, false, kInlineAuto, 8192}, Want{Kind::kBcast, 65536, true, kInlineAuto, 65536},
          Want{Kind::kBcast, 65536, false, 65536, 65536}, Want{Kind::kBcast, 65536, true, 4096, 4096},
          Want{Kind::kBcast, 65536, false, 0, 0}, Want{Kind::kAllgather, 65536, false, kInlineAuto, 8192},
          Want{Kind::kAllgather, 65536, true, kInlineAuto, 16384}, Want{Kind::kAllgather, 65536, false, 65536, 16384},
          Want{Kind::kAllgather, 64, false, kInlineAuto, 112}, Want{Kind::kAllgather, 8, true, kInlineAuto, 48},
          Want{Kind::kAllgather, 1000, false, kInlineAuto, 1024},
          Want{Kind::kAllgather, 8193, false, kInlineAuto, 8192}}) {
        Params p = four_members(w.kind, w.size, w.inline_max);
        p.across_nodes = w.across;
        EXPECT_EQ(inline_bytes_for(p), w.inl) << name_of(w.kind) << " " << w.size << (w.across ? " across" : "");
        EXPECT_EQ(layout_of(p).inl, w.inl);
    }
    // A node whose ranks outnumber its cores keeps the full caps: eager
    // rounds let a sender run ahead of members waiting for a core.
    for (const Kind kind : {Kind::kBcast, Kind::kAllgather}) {
        Params p;
        p.kind = kind;
        p.members = 4;
        p.root = kind == Kind::kBcast ? 0 : -1;
        p.size = 65536;
        p.crowded = 1;
        EXPECT_EQ(inline_bytes_for(p), kind == Kind::kBcast ? kDefaultInlineMax : kAllgatherInlineMax);
        p.inline_max = 4096;
        EXPECT_EQ(inline_bytes_for(p), 4096u) << "a set ACP_COL_INLINE holds on a crowded node too";
    }
    // The tools' cap (acpx-model, model-check, calibrate) is the same rule.
    EXPECT_EQ(inline_bytes_for(Kind::kBcast, 2, 1, false, kInlineAuto), kOnNodeInlineMax);
    EXPECT_EQ(inline_bytes_for(Kind::kBcast, 2, 1, true, kInlineAuto), kDefaultInlineMax);
    EXPECT_EQ(inline_bytes_for(Kind::kBcast, 2, 8, true, kInlineAuto), 0u) << "multi-block bcasts have none";
}

// ACP_COL_POOL unset: a delegated handle on one node pools its rounds
// over 48 bytes where it is larger than its slots or, ACP_COL_INLINE
// unset, than 4 KiB (bcast, crowded node or not) or 1 KiB (allgather,
// with a core per rank; on a crowded node it keeps slots up to its 16 KiB).
TEST(PlanMemory, ByDefaultTheLargerHandlesPool) {
    struct Want {
        Kind kind;
        uint64_t size;
        bool crowded;
        uint32_t inline_max;
        bool pools;
    };
    for (const Want w :
         {Want{Kind::kBcast, 4096, false, kInlineAuto, false}, Want{Kind::kBcast, 4097, false, kInlineAuto, true},
          Want{Kind::kBcast, 4096, true, kInlineAuto, false}, Want{Kind::kBcast, 4097, true, kInlineAuto, true},
          Want{Kind::kBcast, 8192, false, 8192, false}, Want{Kind::kAllgather, 1024, false, kInlineAuto, false},
          Want{Kind::kAllgather, 1025, false, kInlineAuto, true},
          Want{Kind::kAllgather, 8192, true, kInlineAuto, false}, Want{Kind::kBcast, 65536, true, kInlineAuto, true},
          Want{Kind::kBcast, 65536, true, 65536, false}, Want{Kind::kBcast, 65536, false, 65536, false},
          Want{Kind::kBcast, 48, false, kInlineAuto, false}, Want{Kind::kAllgather, 8193, false, kInlineAuto, true},
          Want{Kind::kAllgather, 16384, true, kInlineAuto, false},
          Want{Kind::kAllgather, 16385, true, kInlineAuto, true}}) {
        Params p = four_members(w.kind, w.size, w.inline_max);
        p.crowded = w.crowded;
        EXPECT_EQ(pools_by_default(p), w.pools)
            << name_of(w.kind) << " of " << w.size << (w.crowded ? ", crowded" : "") << ", inline_max " << w.inline_max;
    }
}

// Across nodes a bcast pools by the same rule (its rounds to members of
// other nodes go as held puts); one whose members are each alone on their
// nodes, every handle over 48 bytes (nothing goes through the pool: held
// puts only), where the transport has held puts and ACP_COL_INLINE is
// unset. Its ring is 64 one-line slots, as a small handle's there, and
// its pooled rounds go as far ahead as a ring across nodes of their size
// would (at least 16 within 128 KiB), not 32 KiB's worth; an alone
// bcast's, 31 at any size.
TEST(PlanMemory, ABcastAcrossNodesPoolsAndItsRoundsGoAsFarAsRingsThere) {
    struct Want {
        uint64_t size;
        bool alone;
        uint8_t held_kib;
        uint32_t inline_max;
        bool pools;
    };
    for (const Want w : {Want{48, true, 64, kInlineAuto, false}, Want{49, true, 64, kInlineAuto, true},
                         Want{1024, true, 64, kInlineAuto, true}, Want{1024, true, 0, kInlineAuto, false},
                         Want{1024, true, 64, 1024, false}, Want{1024, false, 64, kInlineAuto, false},
                         Want{4096, false, 64, kInlineAuto, false}, Want{4097, false, 64, kInlineAuto, true},
                         Want{65536, true, 32, kInlineAuto, true}}) {
        Params p = four_members(Kind::kBcast, w.size, w.inline_max);
        p.across_nodes = true;
        p.alone = w.alone;
        p.held_kib = w.held_kib;
        EXPECT_EQ(pools_by_default(p), w.pools) << w.size << " bytes, alone " << w.alone << ", held " << int{w.held_kib}
                                                << " KiB, inline_max " << w.inline_max;
    }
    Params p = four_members(Kind::kBcast, 65536, kInlineAuto);
    p.across_nodes = true;
    p.held_kib = 64;
    p.pooled = 1;
    const ctl::Layout at = layout_of(p);
    EXPECT_EQ(at.depth, kSmallRingDepth);
    EXPECT_EQ(at.eager_depth, kSmallRingDepth);
    EXPECT_EQ(at.arrive_stride(), 64u);
    EXPECT_EQ(at.eager, 65536u) << "up to what a held put carries";
    for (const auto &[round, one_node, across] : {std::tuple<size_t, uint32_t, uint32_t>{64, 64, 64},
                                                  {1024, 32, 32},
                                                  {8192, 4, 16},
                                                  {32768, 2, 4},
                                                  {65536, 2, 2}}) {
        EXPECT_EQ(pooled_depth(at, round), one_node) << round;
        EXPECT_EQ(pooled_depth(at, round, true), across) << round << " across nodes";
        EXPECT_EQ(pooled_depth(at, round, true), ring_depth_for(p, static_cast<uint32_t>(round)))
            << round << ": as deep as a ring of its size across nodes";
    }
    // Every member alone on its node: held rounds 31 ahead at any size,
    // up to what the transport's held puts carry (libfabric: 32 KiB).
    p.held_kib = 32;
    p.size = 1024;
    p.alone = 1;
    EXPECT_EQ(layout_of(p).depth, kSmallRingDepth);
    EXPECT_EQ(layout_of(p).eager_depth, kPooledRingDepth);
    EXPECT_EQ(layout_of(p).eager, 32768u);
}

// The configuration table (basic/config.cpp, which acpx-info prints and
// the README documents) states middle/'s defaults as text.
TEST(PlanMemory, TheConfigurationTableStatesTheDefaults) {
    auto default_of = [](const char *name) -> size_t {
        for (const auto &v : acpx::basic::config_vars())
            if (std::string(v.name) == name) {
                size_t n = 0;
                EXPECT_TRUE(acpx::basic::parse_size(v.default_value, &n)) << name;
                return n;
            }
        ADD_FAILURE() << name << " is not in the table";
        return 0;
    };
    EXPECT_EQ(default_of("ACP_COL_RING_DEPTH"), kDefaultRingMax);
    for (const auto &v : acpx::basic::config_vars()) {
        if (std::string(v.name) == "ACP_COL_INLINE") {
            EXPECT_STREQ(v.default_value, "auto");
        }
    }
}

TEST(PlanMemory, StampsStayAlignedWhateverTheInlineSize) {
    // ACP_COL_INLINE may cap a slot at any size: the stamps behind the
    // slots are 8-byte atomic stores, aligned all the same, and a pair
    // (16 bytes at a multiple of 16) never straddles a cache line.
    for (const size_t inl : {size_t{0}, size_t{1}, size_t{12}, size_t{100}, size_t{1000}}) {
        const ctl::Layout at{3, inl, 4};
        for (uint32_t b = 0; b < 3; ++b)
            for (uint64_t s = 0; s < 4; ++s) {
                EXPECT_EQ(at.arrive(b, s, inl) % 16, 0u) << inl;
                EXPECT_EQ(at.fwd(b, s) % 8, 0u) << inl;
                // The slot ends before the next round's stamp.
                EXPECT_LE(at.inline_at(b, s, inl) + inl, at.arrive(b, s, inl) + at.arrive_stride()) << inl;
            }
        EXPECT_EQ(at.fwd(0, 0), at.arrive(2, 3, inl) + at.arrive_stride());
        EXPECT_EQ(at.ready(), at.fwd(2, 3) + 8);
    }
}

// An allgather member holds, a member of the group: its block's list or
// its forwarded entries, every member's GAs, 32 B of slots, and what it
// waits for and whom it tells ready (72-79 B in all at 2^20). Inline slots
// (two a block, 1 MiB / members each) stop at 4,096 members, where they
// would fall under 256 B: at 256 B they took 512 MB a member at 2^20.
TEST(PlanMemory, AnAllgatherMemberHoldsBytesLinearInTheGroup) {
    EXPECT_EQ(inline_bytes_for(Kind::kAllgather, 4096, 4096, true, kInlineAuto), 256u);
    EXPECT_EQ(inline_bytes_for(Kind::kAllgather, 4097, 4097, true, kInlineAuto), 0u);
    const uint32_t n = 1u << 20;
    for (Exec exec : {Exec::kRoot, Exec::kDelegated}) {
        const size_t held = bytes_held(Kind::kAllgather, exec, 1 /* ring */, n, n / 2);
        std::printf("%s mode, ring allgather member, 2^20 members: %.1f MiB\n", name_of(exec), held / kMiB);
        EXPECT_LT(held, 96.0 * n) << name_of(exec);
    }
}

// A turned allgather's plan comes from its base lists indexed by member;
// it must be the plan walking every block's list gives: the same entries,
// waits, ready bytes and targets, in the same order, for every member,
// algorithm and execution mode.
TEST(PlanTurned, EveryMembersPlanIsTheOneEveryListGives) {
    using acpx::collectives::AllgatherAlgo;
    for (uint8_t algo = 0; algo <= static_cast<uint8_t>(AllgatherAlgo::kNeighborExchange); ++algo)
        for (Exec exec : {Exec::kRoot, Exec::kDelegated})
            for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 12u, 16u, 17u, 24u, 32u, 33u, 64u}) {
                if (!acpx::collectives::allgather_applies(static_cast<AllgatherAlgo>(algo), n).empty()) continue;
                Params p;
                p.kind = Kind::kAllgather;
                p.storage = Storage::kDirect;
                p.exec = exec;
                p.algo = algo;
                p.members = n;
                p.root = -1;
                std::vector<int> group(n);
                std::vector<MemberAddr> table(n);
                for (uint32_t i = 0; i < n; ++i) {
                    group[i] = static_cast<int>(100 + i);  // ranks unlike indices: a mix-up shows
                    table[i] = {acpx::basic::ga::encode(100 + i, 5, 0), acpx::basic::ga::encode(100 + i, 6, 64)};
                }
                for (uint32_t me = 0; me < n; ++me) {
                    const PlanBuilder planner(p, me, group);
                    const Plan got = planner.build(table);
                    const Plan want = build_plan(p, me, group, table, true);
                    const std::string at = std::string(name_of(exec)) + " algo " + std::to_string(algo) + " n " +
                                           std::to_string(n) + " member " + std::to_string(me);
                    EXPECT_EQ(got.n_ready, want.n_ready) << at;
                    EXPECT_EQ(got.wait_slots, want.wait_slots) << at;
                    EXPECT_EQ(got.wait_from, want.wait_from) << at;
                    EXPECT_EQ(got.ready_targets, want.ready_targets) << at;
                    EXPECT_EQ(got.lists.size(), want.lists.size()) << at;
                    ASSERT_EQ(got.out.size(), want.out.size()) << at;
                    for (size_t i = 0; i < got.out.size(); ++i) {
                        const OutEntry &a = got.out[i], &b = want.out[i];
                        EXPECT_TRUE(a.block == b.block && a.ready == b.ready && a.dst_rank == b.dst_rank &&
                                    a.wait == b.wait && a.dst_data == b.dst_data && a.dst_arrive == b.dst_arrive)
                            << at << " entry " << i;
                    }
                    EXPECT_EQ(planner.ready_count(), want.n_ready) << at;
                }
            }
}

// A per-block tree allgather's member receives from nearly every other,
// and finding its ready byte at each source walked that source's entries
// (O(P^2) a member: 121 s for one plan at 65,536 members; now 20 ms).
// Its ready bytes are numbered by member: each sender holds one per
// member, and a receiver's byte there is its own index.
TEST(PlanTurned, APerBlockTreeNumbersReadyBytesByMember) {
    Params p;
    p.kind = Kind::kAllgather;
    p.storage = Storage::kDirect;
    p.exec = Exec::kDelegated;
    p.algo = static_cast<uint8_t>(acpx::collectives::AllgatherAlgo::kBlockTree);
    p.root = -1;
    for (uint32_t n : {2u, 5u, 33u}) {
        p.members = n;
        std::vector<int> group(n);
        std::vector<MemberAddr> table(n);
        for (uint32_t i = 0; i < n; ++i) {
            group[i] = static_cast<int>(100 + i);
            table[i] = {acpx::basic::ga::encode(100 + i, 5, 0), acpx::basic::ga::encode(100 + i, 6, 64)};
        }
        for (uint32_t me = 0; me < n; ++me) {
            const PlanBuilder planner(p, me, group);
            const Plan pl = planner.build(table);
            const std::string at = "n " + std::to_string(n) + " member " + std::to_string(me);
            EXPECT_EQ(pl.n_ready, n) << at;
            EXPECT_EQ(planner.ready_count(), n) << at;
            ASSERT_FALSE(pl.out.empty() && n > 1 && me == 0) << at;  // the owner of block 0 sends it
            for (const OutEntry &o : pl.out) EXPECT_EQ(o.ready, static_cast<uint32_t>(o.dst_rank - 100)) << at;
            // One target per source, at byte `me` of the source's ready bytes.
            std::set<acp_ga_t> want;
            for (const int r : pl.wait_from)
                if (r - 100 < static_cast<int>(n)) want.insert(table[r - 100].ctl + pl.layout().ready() + me);
            EXPECT_EQ(std::set<acp_ga_t>(pl.ready_targets.begin(), pl.ready_targets.end()), want) << at;
            EXPECT_EQ(pl.ready_targets.size(), want.size()) << at;
        }
    }
}
