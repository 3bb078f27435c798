// acp_malloc's allocator, in one process: blocks never overlap and stay in
// their arena, best fit, freed neighbours merge back into one block, and
// frees of what is not a live block's start are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "basic/heap.hpp"

using acpx::basic::Heap;

namespace {

struct Live {
    Heap::Block b;
    uint64_t size;
};

// No two live blocks overlap, and each lies inside its arena.
void expect_disjoint(std::vector<Live> live, const std::vector<uint64_t> &arena_size) {
    std::sort(live.begin(), live.end(), [](const Live &x, const Live &y) {
        return std::tie(x.b.arena, x.b.offset) < std::tie(y.b.arena, y.b.offset);
    });
    for (size_t i = 0; i < live.size(); ++i) {
        EXPECT_EQ(live[i].b.offset % Heap::kAlign, 0u);
        EXPECT_LE(live[i].b.offset + live[i].size, arena_size[live[i].b.arena]);
        if (i && live[i].b.arena == live[i - 1].b.arena) {
            EXPECT_LE(live[i - 1].b.offset + live[i - 1].size, live[i].b.offset) << "blocks overlap";
        }
    }
}

}  // namespace

TEST(Heap, BlocksAreAlignedRoundedAndBestFit) {
    Heap h;
    EXPECT_FALSE(h.alloc(1)) << "no arena yet";
    h.add_arena(4096);
    const auto a = h.alloc(1), b = h.alloc(100), c = h.alloc(64);
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->offset, 0u);
    EXPECT_EQ(b->offset, 64u);
    EXPECT_EQ(c->offset, 192u);
    EXPECT_EQ(h.bytes_live(), 64u + 128u + 64u);
    EXPECT_FALSE(h.alloc(0));
    // Free a and b (they merge: 192 bytes at 0) and leave 64 at the end:
    // a 40-byte request takes the 64-byte hole, the best fit.
    ASSERT_TRUE(h.free(*b));
    ASSERT_TRUE(h.free(*a));
    const auto d = h.alloc(4096 - 256 - 64);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->offset, 256u);
    const auto e = h.alloc(40);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->offset, 4096u - 64) << "the 64-byte hole fits best";
    const auto f = h.alloc(192);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->offset, 0u) << "a and b merged";
    EXPECT_FALSE(h.alloc(4096)) << "nothing that large is free";
}

TEST(Heap, FreedNeighboursMergeIntoOneBlock) {
    Heap h;
    h.add_arena(64 * 10);
    std::vector<Heap::Block> blocks;
    for (int i = 0; i < 10; ++i) blocks.push_back(*h.alloc(64));
    EXPECT_FALSE(h.alloc(1));
    // Free in an order that merges left, right and both ways.
    for (int i : {1, 3, 2, 0, 9, 7, 8, 5, 4, 6}) ASSERT_TRUE(h.free(blocks[i]));
    EXPECT_EQ(h.blocks_free(), 1u);
    EXPECT_EQ(h.largest_free(), 640u);
    EXPECT_EQ(h.bytes_live(), 0u);
    EXPECT_TRUE(h.alloc(640));
}

// free_around names the free block a freed one merged into: where a
// caller may give whole pages back.
TEST(Heap, FreeAroundIsTheMergedFreeBlock) {
    Heap h;
    h.add_arena(64 * 10);
    std::vector<Heap::Block> blocks;
    for (int i = 0; i < 10; ++i) blocks.push_back(*h.alloc(64));
    EXPECT_FALSE(h.free_around(blocks[3]));  // live
    ASSERT_TRUE(h.free(blocks[3]));
    ASSERT_TRUE(h.free(blocks[5]));
    auto f = h.free_around(blocks[5]);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->first.offset, 5u * 64);
    EXPECT_EQ(f->second, 64u);
    ASSERT_TRUE(h.free(blocks[4]));
    f = h.free_around({0, 4 * 64 + 10});  // any byte inside it
    ASSERT_TRUE(f);
    EXPECT_EQ(f->first.offset, 3u * 64);
    EXPECT_EQ(f->second, 3u * 64);
    EXPECT_FALSE(h.free_around({1, 0}));  // no such arena
}

TEST(Heap, RefusesWhatIsNotALiveBlockStart) {
    Heap h;
    h.add_arena(4096);
    const auto a = h.alloc(256);
    ASSERT_TRUE(a);
    uint64_t size = 0;
    EXPECT_FALSE(h.free({a->arena, a->offset + 64})) << "inside a block";
    const auto in = h.containing({a->arena, a->offset + 64});
    ASSERT_TRUE(in);
    EXPECT_EQ(in->first.offset, a->offset);
    EXPECT_EQ(in->second, 256u);
    EXPECT_FALSE(h.free({1, 0})) << "no such arena";
    EXPECT_TRUE(h.free(*a, &size));
    EXPECT_EQ(size, 256u);
    EXPECT_FALSE(h.free(*a)) << "double free";
    EXPECT_FALSE(h.containing(*a));
}

TEST(Heap, RandomMixOverArenasStaysConsistent) {
    Heap h;
    std::vector<uint64_t> arena_size;
    std::mt19937_64 rng(7);
    std::vector<Live> live;
    for (int step = 0; step < 20000; ++step) {
        if (live.empty() || rng() % 5 < 3) {
            const uint64_t size = 1 + rng() % (rng() % 8 ? 2000 : 200000);
            auto b = h.alloc(size);
            if (!b) {
                arena_size.push_back(std::max<uint64_t>(Heap::rounded(size), 1 << 20));
                h.add_arena(arena_size.back());
                b = h.alloc(size);
            }
            ASSERT_TRUE(b);
            live.push_back({*b, Heap::rounded(size)});
        } else {
            const size_t i = rng() % live.size();
            ASSERT_TRUE(h.free(live[i].b));
            live[i] = live.back();
            live.pop_back();
        }
        if (step % 1000 == 0) expect_disjoint(live, arena_size);
    }
    uint64_t sum = 0;
    for (const Live &l : live) sum += l.size;
    EXPECT_EQ(h.bytes_live(), sum);
    for (const Live &l : live) ASSERT_TRUE(h.free(l.b));
    EXPECT_EQ(h.blocks_free(), arena_size.size()) << "every arena is one free block again";
    EXPECT_EQ(h.bytes_live(), 0u);
}
