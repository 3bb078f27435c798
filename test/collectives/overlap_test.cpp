// Small bcast rounds back to back on a crowded node (overlap.hpp): each
// core's copies per round, the two copy prices solved from the chain and
// the flat tree.
#include <gtest/gtest.h>

#include "collectives/model/overlap.hpp"

using namespace acpx::collectives;
using namespace acpx::collectives::model;

namespace {

using Copies = std::vector<std::pair<uint32_t, uint32_t>>;

void expect_loads(const std::vector<CoreLoad> &got, const std::vector<CoreLoad> &want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t c = 0; c < want.size(); ++c) {
        EXPECT_EQ(got[c].cross, want[c].cross) << "core " << c;
        EXPECT_EQ(got[c].same, want[c].same) << "core " << c;
    }
}

TEST(Overlap, ACrossCoreCopyLoadsBothCoresAndALocalOneItsOwn) {
    // 4 members on 2 cores: 0 and 2 on core 0, 1 and 3 on core 1.
    const Copies binomial = {{0, 1}, {0, 2}, {1, 3}}, flat = {{0, 1}, {0, 2}, {0, 3}},
                 chain = {{0, 1}, {1, 2}, {2, 3}};
    expect_loads(core_loads(binomial, 2), {{1, 1}, {1, 1}});
    expect_loads(core_loads(flat, 2), {{2, 1}, {2, 0}});
    expect_loads(core_loads(chain, 2), {{3, 0}, {3, 0}});
    // One core: every copy stays on it.
    expect_loads(core_loads(chain, 1), {{0, 3}});
    // The busiest core sets the pace.
    EXPECT_DOUBLE_EQ(overlap_round(core_loads(flat, 2), {0.2, 0.1}), 0.5);
    EXPECT_DOUBLE_EQ(overlap_round(core_loads(binomial, 2), {0.2, 0.1}), 0.3);
    EXPECT_DOUBLE_EQ(overlap_round({}, {0.2, 0.1}), 0);
}

TEST(Overlap, PricesComeBackFromTheChainAndTheFlatTree) {
    const OverlapCosts k{0.2, 0.12};
    for (uint32_t members : {3u, 4u, 5u}) {
        Copies chain, flat;
        for (uint32_t m = 1; m < members; ++m) {
            chain.emplace_back(m - 1, m);
            flat.emplace_back(0, m);
        }
        const OverlapCosts back = overlap_costs(members, 2, overlap_round(core_loads(chain, 2), k),
                                                overlap_round(core_loads(flat, 2), k));
        EXPECT_NEAR(back.cross_s, k.cross_s, 1e-12) << members;
        EXPECT_NEAR(back.same_s, k.same_s, 1e-12) << members;
    }
    // A flat tree as fast as its cross copies alone make it: a copy within
    // a core costs nothing, never less.
    EXPECT_EQ(overlap_costs(4, 2, 0.6, 0.3).same_s, 0);
    // One core: the chain's copies are all within it.
    EXPECT_NEAR(overlap_costs(3, 1, 0.4, 0.5).same_s, 0.2, 1e-12);
    // Nothing measured: nothing costs.
    EXPECT_EQ(overlap_costs(4, 2, 0, 0).cross_s, 0);
    EXPECT_EQ(overlap_costs(4, 2, -1, -1).same_s, 0);
}

}  // namespace
