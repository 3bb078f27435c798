// Command lists in one process, at sizes no test job launches: every list
// is sound (check_list), and executing the entries in a random order that
// respects only their dependencies leaves every member with exactly the
// right bytes -- so no entry reads data its dependency has not delivered.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "collectives/algorithms.hpp"

using namespace acpx::collectives;

namespace {

// Runs the lists (one per block) in a random dependency-respecting
// interleaving. has[m][b]: member m holds block b. Returns "" or the fault.
std::string simulate(const std::vector<CommandList> &lists, const std::vector<uint32_t> &origin, uint32_t n,
                     unsigned seed) {
    std::vector<std::vector<uint8_t>> has(n, std::vector<uint8_t>(lists.size(), 0));
    std::vector<std::vector<uint8_t>> done(lists.size());
    std::vector<std::pair<uint32_t, uint32_t>> ready;  // (list, entry) runnable
    std::vector<std::vector<std::vector<uint32_t>>> waiters(lists.size());
    for (uint32_t b = 0; b < lists.size(); ++b) {
        has[origin[b]][b] = 1;
        done[b].assign(lists[b].size(), 0);
        waiters[b].assign(lists[b].size(), {});
        for (uint32_t e = 0; e < lists[b].size(); ++e) {
            if (lists[b][e].dep == kNoDep)
                ready.push_back({b, e});
            else
                waiters[b][lists[b][e].dep].push_back(e);
        }
    }
    std::mt19937 rng(seed);
    size_t executed = 0;
    while (!ready.empty()) {
        const size_t pick = std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng);
        const auto [b, e] = ready[pick];
        ready[pick] = ready.back();
        ready.pop_back();
        const Command &c = lists[b][e];
        if (!has[c.src][b])
            return "block " + std::to_string(b) + " entry " + std::to_string(e) + " reads member " +
                   std::to_string(c.src) + " before the block reached it";
        has[c.dst][b] = 1;
        done[b][e] = 1;
        ++executed;
        for (uint32_t w : waiters[b][e]) ready.push_back({b, w});
    }
    for (uint32_t m = 0; m < n; ++m)
        for (uint32_t b = 0; b < lists.size(); ++b)
            if (!has[m][b]) return "member " + std::to_string(m) + " lacks block " + std::to_string(b);
    size_t total = 0;
    for (const auto &l : lists) total += l.size();
    if (executed != total) return "entries never became runnable (a dependency cycle)";
    return "";
}

const std::vector<uint32_t> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 100, 1000, 4097, 65536};

}  // namespace

TEST(BcastLists, SoundForEverySizeAndRoot) {
    for (const BcastAlgo a : algos_of(bcast_table()))
        for (unsigned radix : {2u, 3u, 4u, 7u})
            for (uint32_t n : kSizes)
                for (uint32_t root : {0u, n / 2, n - 1}) {
                    if (n > 5000 &&
                        (a == BcastAlgo::kChain || a == BcastAlgo::kPipeline || a == BcastAlgo::kScatterRing))
                        continue;  // n steps deep: slow to simulate
                    const CommandList l = bcast_list(a, n, root, radix);
                    ASSERT_EQ(check_list(l, n, root), "") << name_of(a, radix) << " n=" << n << " root=" << root;
                    ASSERT_EQ(simulate({l}, {root}, n, n + root), "") << name_of(a, radix) << " n=" << n;
                }
}

// Multi-block bcasts: every block's list starts at the root and is sound,
// and all blocks together, interleaved at random, reach every member.
TEST(BcastLists, MultiBlockListsAreSoundTogether) {
    for (BcastAlgo a : {BcastAlgo::kPipeline, BcastAlgo::kScatterRing})
        for (unsigned segs : {2u, 3u, 8u, 64u})
            for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 9u, 17u, 100u})
                for (uint32_t root : {0u, n / 2, n - 1}) {
                    const uint32_t blocks = bcast_blocks(a, n, segs);
                    ASSERT_EQ(blocks, n <= 1 ? 1u : a == BcastAlgo::kPipeline ? segs : n - 1);
                    std::vector<CommandList> lists;
                    for (uint32_t b = 0; b < blocks; ++b) {
                        lists.push_back(bcast_block_list(a, n, root, b, segs));
                        ASSERT_EQ(check_list(lists.back(), n, root), "")
                            << name_of(a, segs) << " n=" << n << " root=" << root << " block " << b;
                    }
                    ASSERT_EQ(simulate(lists, std::vector<uint32_t>(blocks, root), n, n * 7 + root), "")
                        << name_of(a, segs) << " n=" << n;
                }
    EXPECT_EQ(bcast_applies(BcastAlgo::kScatterRing, kMaxScatterRingMembers), "");
    EXPECT_NE(bcast_applies(BcastAlgo::kScatterRing, kMaxScatterRingMembers + 1), "");
}

TEST(BcastLists, ScatterRingScattersThenPassesOneBlockAStep) {
    const uint32_t n = 6, root = 2;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> sends;  // (depth, member) -> blocks sent
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> gets;
    for (uint32_t b = 0; b < n - 1; ++b) {
        const CommandList l = bcast_block_list(BcastAlgo::kScatterRing, n, root, b, 2);
        ASSERT_EQ(l.size(), n - 1);
        EXPECT_EQ(l[0].src, root);
        EXPECT_EQ(l[0].dst, (root + b + 1) % n) << "block b goes to member root + b + 1";
        for (uint32_t e = 1; e < l.size(); ++e) {
            EXPECT_NE(l[e].src, root) << "the ring leaves the root out";
            EXPECT_EQ(l[e].dep, e - 1);
            ++sends[{e, l[e].src}];
            ++gets[{e, l[e].dst}];
        }
    }
    // Ring steps 1..n-2: each of the n-1 non-roots sends and receives one block.
    for (uint32_t e = 1; e + 1 < n; ++e)
        for (uint32_t m = 0; m < n; ++m) {
            if (m == root) continue;
            EXPECT_EQ((sends[{e, m}]), 1u) << "step " << e << " member " << m;
            EXPECT_EQ((gets[{e, m}]), 1u) << "step " << e << " member " << m;
        }
}

TEST(BcastLists, PipelineSendsEverySegmentDownTheChain) {
    const CommandList chain = bcast_list(BcastAlgo::kChain, 7, 3);
    for (uint32_t b = 0; b < 5; ++b) {
        const CommandList l = bcast_block_list(BcastAlgo::kPipeline, 7, 3, b, 5);
        ASSERT_EQ(l.size(), chain.size());
        for (size_t i = 0; i < l.size(); ++i)
            EXPECT_TRUE(l[i].dst == chain[i].dst && l[i].src == chain[i].src && l[i].dep == chain[i].dep);
    }
}

TEST(BcastLists, BlockRangesTileTheRoundOnCacheLines) {
    for (uint32_t blocks : {1u, 2u, 3u, 7u, 64u})
        for (uint64_t bytes : {0ull, 1ull, 63ull, 64ull, 1000ull, 4096ull, (1ull << 20) + 1}) {
            uint64_t next = 0;
            for (uint32_t b = 0; b < blocks; ++b) {
                const ByteRange r = block_range(bytes, blocks, b);
                EXPECT_EQ(r.offset, next) << blocks << " blocks of " << bytes << ", block " << b;
                if (r.length) {
                    EXPECT_EQ(r.offset % 64, 0u);
                }
                next = r.offset + r.length;
            }
            EXPECT_EQ(next, bytes) << blocks << " blocks of " << bytes;
        }
    // Equal blocks but the last.
    EXPECT_EQ(block_range(1000, 3, 0).length, 384u);
    EXPECT_EQ(block_range(1000, 3, 2).length, 1000u - 768u);
}

// The longest chain of dependencies: the steps a list needs at least.
static uint32_t depth(const CommandList &l) {
    std::vector<uint32_t> d(l.size());
    uint32_t most = 0;
    for (size_t e = 0; e < l.size(); ++e) {
        d[e] = (l[e].dep == kNoDep ? 0 : d[l[e].dep]) + 1;
        most = std::max(most, d[e]);
    }
    return most;
}

TEST(BcastLists, KnomialTakesLogKStepsWithKMinusOneSendsEach) {
    for (unsigned k : {2u, 3u, 4u, 8u})
        for (uint32_t n : {2u, 3u, 9u, 27u, 28u, 1000u}) {
            const CommandList l = bcast_list(BcastAlgo::kKnomial, n, 0, k);
            uint32_t steps = 0;
            for (uint64_t span = 1; span < n; span *= k) ++steps;
            // The root sends k-1 entries per step (fewer in the last).
            uint32_t from_root = 0;
            for (const Command &c : l) from_root += c.src == 0;
            uint64_t want_root = 0;
            for (uint64_t span = 1; span < n; span *= k) want_root += std::min<uint64_t>(k - 1, (n - 1) / span);
            EXPECT_EQ(from_root, want_root) << "k=" << k << " n=" << n;
            EXPECT_LE(depth(l), steps) << "k=" << k << " n=" << n;
        }
    // knomial:2 is the binomial tree, entry for entry.
    const CommandList a = bcast_list(BcastAlgo::kKnomial, 13, 4, 2), b = bcast_list(BcastAlgo::kBinomial, 13, 4);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_TRUE(a[i].dst == b[i].dst && a[i].src == b[i].src && a[i].dep == b[i].dep) << i;
}

TEST(BcastLists, ChainPassesAlongFromTheRoot) {
    const CommandList l = bcast_list(BcastAlgo::kChain, 5, 3);
    const CommandList want = {{4, 3, kNoDep}, {0, 4, 0}, {1, 0, 1}, {2, 1, 2}};
    ASSERT_EQ(l.size(), want.size());
    for (size_t i = 0; i < l.size(); ++i)
        EXPECT_TRUE(l[i].dst == want[i].dst && l[i].src == want[i].src && l[i].dep == want[i].dep) << i;
}

TEST(BcastLists, BinaryTreeIsSeedFigure5) {
    // Fig. 5 of seed 002: (0) 0->1, (1) 0->2, (2) 1->3 after 0, (3) 1->4
    // after 0, (4) 2->5 after 1, (5) 2->6 after 1.
    const CommandList l = bcast_list(BcastAlgo::kBinaryTree, 7, 0);
    const CommandList want = {{1, 0, kNoDep}, {2, 0, kNoDep}, {3, 1, 0}, {4, 1, 0}, {5, 2, 1}, {6, 2, 1}};
    ASSERT_EQ(l.size(), want.size());
    for (size_t i = 0; i < l.size(); ++i) {
        EXPECT_EQ(l[i].dst, want[i].dst) << i;
        EXPECT_EQ(l[i].src, want[i].src) << i;
        EXPECT_EQ(l[i].dep, want[i].dep) << i;
    }
}

TEST(BcastLists, BinomialTakesLogSteps) {
    // With every member sending one entry at a time, in list order, the
    // round takes ceil(log2 n) steps.
    for (uint32_t n : {2u, 3u, 8u, 9u, 1000u, 65536u}) {
        const CommandList l = bcast_list(BcastAlgo::kBinomial, n, 0);
        std::vector<uint32_t> step(l.size()), busy_until(n, 0);
        uint32_t longest = 0;
        for (size_t e = 0; e < l.size(); ++e) {
            const uint32_t after_dep = l[e].dep == kNoDep ? 0 : step[l[e].dep];
            step[e] = std::max(after_dep, busy_until[l[e].src]) + 1;
            busy_until[l[e].src] = step[e];
            longest = std::max(longest, step[e]);
        }
        uint32_t log2n = 0;
        while ((1ull << log2n) < n) ++log2n;
        EXPECT_EQ(longest, log2n) << "n=" << n;
    }
}

namespace {

// Node maps a hierarchical list is tried over: members in a row per node,
// dealt round-robin, nodes of unequal sizes, one node, a member a node.
std::vector<std::vector<uint32_t>> node_maps() {
    std::vector<std::vector<uint32_t>> maps;
    for (uint32_t nodes : {2u, 3u, 5u})
        for (uint32_t per : {2u, 4u}) {
            std::vector<uint32_t> rows, dealt;
            for (uint32_t m = 0; m < nodes * per; ++m) {
                rows.push_back(100 + m / per);  // ids need not be 0..nodes-1
                dealt.push_back(100 + m % nodes);
            }
            maps.push_back(rows);
            maps.push_back(dealt);
        }
    maps.push_back({7, 7, 7, 3, 9, 9, 9, 9, 9, 3});
    maps.push_back({1, 1, 1, 1, 1});
    maps.push_back({0, 1, 2, 3, 4, 5});
    return maps;
}

// Entries of l whose two members are on different nodes, by receiving node.
std::map<uint32_t, uint32_t> crossings(const CommandList &l, const std::vector<uint32_t> &node_of) {
    std::map<uint32_t, uint32_t> into;
    for (const Command &c : l)
        if (node_of[c.src] != node_of[c.dst]) ++into[node_of[c.dst]];
    return into;
}

}  // namespace

// Hierarchical: sound, and the bytes enter every other node exactly once.
TEST(HierLists, CrossIntoEachOtherNodeOnceThenStayOnIt) {
    for (const std::vector<uint32_t> &nodes : node_maps()) {
        const auto n = static_cast<uint32_t>(nodes.size());
        const std::set<uint32_t> ids(nodes.begin(), nodes.end());
        for (const BcastAlgo a : algos_of(bcast_table())) {
            if (!hier_offered(a)) continue;
            for (uint32_t origin = 0; origin < n; ++origin) {
                const CommandList l = hier_bcast_list(a, 3, nodes, origin);
                const std::string at = std::string(name_of(a)) + " n=" + std::to_string(n) + " origin " +
                                       std::to_string(origin) + " nodes " + std::to_string(ids.size());
                ASSERT_EQ(check_list(l, n, origin), "") << at;
                ASSERT_EQ(simulate({l}, {origin}, n, n + origin), "") << at;
                const std::map<uint32_t, uint32_t> into = crossings(l, nodes);
                EXPECT_EQ(into.size(), ids.size() - 1) << at;
                for (const auto &[node, count] : into) {
                    EXPECT_EQ(count, 1u) << at << " into node " << node;
                    EXPECT_NE(node, nodes[origin]) << at;
                }
                if (ids.size() == 1 || ids.size() == n) {  // nothing to group: the flat list
                    EXPECT_EQ(l.size(), n - 1) << at;
                }
            }
        }
    }
}

TEST(HierLists, OnlyTheSingleBlockAlgorithmsHaveOne) {
    EXPECT_TRUE(hier_offered(BcastAlgo::kBinomial));
    EXPECT_TRUE(hier_offered(BcastAlgo::kBinaryTree));
    EXPECT_TRUE(hier_offered(BcastAlgo::kKnomial));
    EXPECT_TRUE(hier_offered(BcastAlgo::kChain));
    EXPECT_FALSE(hier_offered(BcastAlgo::kPipeline));
    EXPECT_FALSE(hier_offered(BcastAlgo::kScatterRing));
    for (const AllgatherAlgo a : algos_of(allgather_table()))
        EXPECT_EQ(hier_offered(a), a == AllgatherAlgo::kBlockTree) << name_of(a);
    EXPECT_TRUE(hier_differs(std::vector<uint32_t>{0, 0, 1, 1}));
    EXPECT_FALSE(hier_differs(std::vector<uint32_t>{0, 0, 0}));
    EXPECT_FALSE(hier_differs(std::vector<uint32_t>{0, 1, 2}));
}

// The flat binomial over two nodes of members in a row crosses between
// them as often as a node has members (its last step); the hierarchical
// one once, first, and the same for the allgather's per-block trees.
TEST(HierLists, BinomialOverTwoNodesCrossesOnceNotOnceAMember) {
    const std::vector<uint32_t> nodes = {0, 0, 0, 0, 1, 1, 1, 1};
    EXPECT_EQ(crossings(bcast_list(BcastAlgo::kBinomial, 8, 0), nodes).at(1), 4u);
    const CommandList h = hier_bcast_list(BcastAlgo::kBinomial, 2, nodes, 0);
    EXPECT_EQ(crossings(h, nodes).at(1), 1u);
    EXPECT_EQ(h[0].src, 0u);
    EXPECT_EQ(h[0].dst, 4u) << "the bytes leave for the other node first";
    for (uint32_t owner = 0; owner < 8; ++owner) {
        EXPECT_GT(crossings(allgather_block_list(AllgatherAlgo::kBlockTree, 8, owner), nodes).size(), 0u);
        EXPECT_EQ(crossings(hier_allgather_block_list(nodes, owner), nodes).begin()->second, 1u);
    }
}

TEST(AllgatherLists, EveryBlockReachesEveryMember) {
    for (const AllgatherAlgo a : algos_of(allgather_table()))
        for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 12u, 33u, 100u, 128u, 129u}) {
            if (!allgather_applies(a, n).empty()) continue;
            std::vector<CommandList> lists;
            std::vector<uint32_t> origin;
            for (uint32_t b = 0; b < n; ++b) {
                lists.push_back(allgather_block_list(a, n, b));
                origin.push_back(b);
                ASSERT_EQ(check_list(lists.back(), n, b), "") << name_of(a) << " n=" << n << " block " << b;
            }
            ASSERT_EQ(simulate(lists, origin, n, 7 * n), "") << name_of(a) << " n=" << n;
        }
}

// allgather_turn: where it names a turn, every block's list is its base
// block's with each member moved to its image (and back by preimage),
// entry for entry, dependencies alike; recursive doubling only over a
// power of two, neighbor exchange by pairs. The model and create rely on it.
TEST(AllgatherLists, TurnedListsAreTheirBasesMoved) {
    for (const AllgatherAlgo algo : algos_of(allgather_table()))
        for (uint32_t n = 2; n <= 70; ++n) {
            if (!allgather_applies(algo, n).empty()) continue;
            const AllgatherTurn t = allgather_turn(algo, n);
            const bool pow2 = (n & (n - 1)) == 0;
            EXPECT_EQ(t.period, algo == AllgatherAlgo::kNeighborExchange    ? 2u
                                : algo == AllgatherAlgo::kRecursiveDoubling ? (pow2 ? 1u : 0u)
                                                                            : 1u);
            if (t.period == 0) continue;
            for (uint32_t b = 0; b < n; ++b) {
                const CommandList base = allgather_block_list(algo, n, t.base(b));
                const CommandList got = allgather_block_list(algo, n, b);
                ASSERT_EQ(got.size(), base.size());
                for (size_t e = 0; e < got.size(); ++e) {
                    ASSERT_EQ(got[e].src, t.image(base[e].src, b, n)) << name_of(algo) << " " << n << " " << b;
                    ASSERT_EQ(got[e].dst, t.image(base[e].dst, b, n)) << name_of(algo) << " " << n << " " << b;
                    ASSERT_EQ(got[e].dep, base[e].dep);
                    ASSERT_EQ(t.preimage(got[e].src, b, n), base[e].src);
                }
            }
        }
}

TEST(AllgatherLists, RingSendsOnlyToTheNextMember) {
    const uint32_t n = 6;
    for (uint32_t b = 0; b < n; ++b)
        for (const Command &c : allgather_block_list(AllgatherAlgo::kRing, n, b)) EXPECT_EQ(c.dst, (c.src + 1) % n);
}

// Message counts and steps, as the textbook algorithms have them, once
// each block's path is laid side by side with the others.
TEST(AllgatherLists, BruckDoublesWhatItSendsEachStep) {
    // n = 8: member i sends to i-1, i-2, i-4 only; 1 + 2 + 4 blocks.
    const uint32_t n = 8;
    std::vector<std::vector<uint32_t>> blocks_to(n, std::vector<uint32_t>(n, 0));
    for (uint32_t b = 0; b < n; ++b)
        for (const Command &c : allgather_block_list(AllgatherAlgo::kBruck, n, b)) ++blocks_to[c.src][c.dst];
    for (uint32_t i = 0; i < n; ++i) {
        EXPECT_EQ(blocks_to[i][(i + n - 1) % n], 1u);
        EXPECT_EQ(blocks_to[i][(i + n - 2) % n], 2u);
        EXPECT_EQ(blocks_to[i][(i + n - 4) % n], 4u);
        uint32_t total = 0;
        for (uint32_t j = 0; j < n; ++j) total += blocks_to[i][j];
        EXPECT_EQ(total, 7u);
    }
    for (uint32_t b = 0; b < n; ++b) EXPECT_EQ(depth(allgather_block_list(AllgatherAlgo::kBruck, n, b)), 3u);
}

TEST(AllgatherLists, RecursiveDoublingPairsByXorAndFoldsTheRest) {
    // Power of two: only partners i xor 2^k, 2^k blocks in step k.
    const uint32_t n = 16;
    for (uint32_t b = 0; b < n; ++b) {
        const CommandList l = allgather_block_list(AllgatherAlgo::kRecursiveDoubling, n, b);
        for (const Command &c : l) {
            const uint32_t x = c.src ^ c.dst;
            EXPECT_TRUE(x && (x & (x - 1)) == 0) << c.src << "->" << c.dst;
        }
        EXPECT_EQ(depth(l), 4u);
    }
    // n = 6: 4 and 5 hand their blocks to 0 and 1, and get everything back from them.
    for (uint32_t b = 0; b < 6; ++b)
        for (const Command &c : allgather_block_list(AllgatherAlgo::kRecursiveDoubling, 6, b)) {
            if (c.src >= 4) {
                EXPECT_EQ(c.dst, c.src - 4);
            }
            if (c.dst >= 4) {
                EXPECT_EQ(c.src, c.dst - 4);
            }
        }
}

TEST(AllgatherLists, NeighborExchangeTalksOnlyToNeighboursInHalfTheSteps) {
    EXPECT_NE(allgather_applies(AllgatherAlgo::kNeighborExchange, 5), "");
    EXPECT_EQ(allgather_applies(AllgatherAlgo::kNeighborExchange, 6), "");
    const uint32_t n = 10;
    for (uint32_t b = 0; b < n; ++b) {
        const CommandList l = allgather_block_list(AllgatherAlgo::kNeighborExchange, n, b);
        for (const Command &c : l) EXPECT_TRUE((c.src + 1) % n == c.dst || (c.dst + 1) % n == c.src);
        EXPECT_EQ(depth(l), n / 2);
    }
}

TEST(CheckList, CatchesBrokenLists) {
    EXPECT_NE(check_list({{1, 0, kNoDep}, {2, 1, kNoDep}}, 3, 0), "");  // reads 1 without waiting
    EXPECT_NE(check_list({{2, 1, kNoDep}, {1, 0, kNoDep}}, 3, 0), "");  // reads 1 before it has data
    EXPECT_NE(check_list({{1, 0, kNoDep}, {1, 0, kNoDep}}, 3, 0), "");  // 1 twice, 2 never
    EXPECT_NE(check_list({{0, 1, kNoDep}, {2, 0, kNoDep}}, 3, 0), "");  // sends to the origin
    EXPECT_EQ(check_list({{1, 0, kNoDep}, {2, 1, 0}}, 3, 0), "");
}

// info_of indexes the tables by enum value; every name is one algorithm's.
TEST(Names, TablesAreInEnumOrderWithDistinctNames) {
    std::set<std::string> names;
    for (size_t k = 0; k < bcast_table().size(); ++k) {
        EXPECT_EQ(static_cast<size_t>(bcast_table()[k].algo), k);
        EXPECT_TRUE(names.insert(bcast_table()[k].name).second) << bcast_table()[k].name;
    }
    names.clear();
    for (size_t k = 0; k < allgather_table().size(); ++k) {
        EXPECT_EQ(static_cast<size_t>(allgather_table()[k].algo), k);
        EXPECT_TRUE(names.insert(allgather_table()[k].name).second) << allgather_table()[k].name;
    }
    EXPECT_EQ(bcast_applies(BcastAlgo::kScatterRing, kMaxScatterRingMembers + 1).find("scatter_ring is limited to"),
              0u);
    EXPECT_EQ(allgather_applies(AllgatherAlgo::kNeighborExchange, 5),
              "neighbor needs an even number of members, not 5");
    EXPECT_EQ(bcast_algo_names(),
              "binomial, binary, knomial, chain, pipeline, scatter_ring (knomial:N, N = 2..64 (4 "
              "unless given); pipeline:N, N = 2..64 (8 unless given))");
}

TEST(Names, RoundTrip) {
    for (const BcastAlgo a : algos_of(bcast_table())) EXPECT_EQ(parse_bcast_algo(name_of(a))->algo, a);
    for (const AllgatherAlgo a : algos_of(allgather_table())) EXPECT_EQ(parse_allgather_algo(name_of(a)), a);
    EXPECT_EQ(parse_bcast_algo("knomial")->radix, kDefaultRadix);
    EXPECT_EQ(parse_bcast_algo("knomial:3")->radix, 3u);
    EXPECT_EQ(name_of(BcastAlgo::kKnomial, 3), "knomial:3");
    EXPECT_EQ(parse_bcast_algo("pipeline")->radix, kDefaultSegments);
    EXPECT_EQ(parse_bcast_algo("pipeline:64")->radix, 64u);
    EXPECT_EQ(name_of(BcastAlgo::kPipeline, 16), "pipeline:16");
    EXPECT_EQ(parse_bcast_algo("scatter_ring")->algo, BcastAlgo::kScatterRing);
    for (const char *bad : {"fastest", "knomial:", "knomial:1", "knomial:65", "knomial:3x", "binomial:2", "pipeline:1",
                            "pipeline:65", "scatter_ring:2"})
        EXPECT_FALSE(parse_bcast_algo(bad)) << bad;
}
