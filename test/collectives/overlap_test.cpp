// Small bcast rounds back to back on a crowded node (overlap.hpp): each
// core's copies per round, the two copy prices solved from the chain and
// the flat tree, and predict using them where a handle runs its rounds
// ahead.
#include <gtest/gtest.h>

#include "collectives/model/overlap.hpp"
#include "collectives/model/predict.hpp"

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

// 4 ranks on 2 cores, as the 2-core VM measured them (2026-11-26, 1 KiB,
// a round's time): the chain 0.626 us and the flat tree 0.536 back to
// back; binomial measured 0.326 (0.329 and 0.323 with binary's list).
Calibration four_on_two_cores() {
    Calibration cal;
    cal.comm = Samples({{0, 4e-7}, {1 << 30, 4e-7 + 1e-10 * (1 << 30)}});
    cal.memcpy = Samples({{0, 1e-9}, {1 << 30, 1e-9 + 1e-10 * (1 << 30)}});
    cal.cores = 2;
    cal.crowd_ranks = 4;
    cal.comm_crowded = Samples({{0, 6e-7}, {1 << 30, 6e-7 + 1e-10 * (1 << 30)}});
    cal.comm_fanout = Samples({{0, 4e-7}, {1 << 30, 4e-7 + 1e-10 * (1 << 30)}});
    cal.comm_crowded_overlap = Samples({{1024, 0.626e-6 / 3}, {16384, 5.03e-6 / 3}});
    cal.comm_fanout_overlap = Samples({{1024, 0.536e-6 / 3}, {16384, 4.37e-6 / 3}});
    return cal;
}

Case bcast(BcastAlgo a, unsigned radix, uint64_t bytes) {
    return Case{Op::kBcast, static_cast<uint8_t>(a), radix, 4, 0, bytes, false, 16384};
}

TEST(Overlap, ACrowdedNodesSmallBcastRoundsArePricedBackToBack) {
    const Calibration cal = four_on_two_cores();
    const Prediction chain = predict(bcast(BcastAlgo::kChain, 2, 1024), cal, nullptr),
                     flat = predict(bcast(BcastAlgo::kKnomial, 4, 1024), cal, nullptr),
                     binomial = predict(bcast(BcastAlgo::kBinomial, 2, 1024), cal, nullptr);
    ASSERT_TRUE(binomial.overlapped);
    EXPECT_FALSE(binomial.simulated);
    // The two shapes measured come back; binomial crosses cores once.
    EXPECT_NEAR(chain.total(), 0.626e-6, 1e-12);
    EXPECT_NEAR(flat.total(), 0.536e-6, 1e-12);
    EXPECT_NEAR(binomial.total(), binomial.overlap.cross_s + binomial.overlap.same_s, 1e-15);
    EXPECT_NEAR(binomial.total(), 0.327e-6, 0.005e-6);
    EXPECT_EQ(best(bcast(BcastAlgo::kChain, 2, 1024), cal, nullptr).algo,
              static_cast<uint8_t>(BcastAlgo::kBinomial));
    // The steps stay listed for the tools.
    EXPECT_EQ(binomial.steps.size(), 2u);
}

TEST(Overlap, OtherRoundsAreSimulatedOrSummedAsBefore) {
    const Calibration cal = four_on_two_cores();
    // A ring cap (ACP_COL_RING_DEPTH) paces every round: simulated.
    Case capped = bcast(BcastAlgo::kBinomial, 2, 1024);
    capped.ring_capped = true;
    Prediction p = predict(capped, cal, nullptr);
    EXPECT_TRUE(p.simulated);
    EXPECT_FALSE(p.overlapped);
    // Above the inline slots, or with no slots: rounds through the data path.
    EXPECT_TRUE(predict(bcast(BcastAlgo::kBinomial, 2, 65536), cal, nullptr).simulated);
    Case slotless = bcast(BcastAlgo::kBinomial, 2, 1024);
    slotless.inline_bytes = 0;
    EXPECT_FALSE(predict(slotless, cal, nullptr).overlapped);
    // Multi-block bcasts and allgathers (two slots a block, members in step).
    EXPECT_FALSE(predict(bcast(BcastAlgo::kPipeline, 4, 1024), cal, nullptr).overlapped);
    Case gather{Op::kAllgather, static_cast<uint8_t>(AllgatherAlgo::kBruck), 2, 4, 0, 1024, false, 16384};
    EXPECT_FALSE(predict(gather, cal, nullptr).overlapped);
    // A calibration without the curves (files before them).
    Calibration old = cal;
    old.comm_fanout_overlap = Samples();
    p = predict(bcast(BcastAlgo::kBinomial, 2, 1024), old, nullptr);
    EXPECT_TRUE(p.simulated);
    EXPECT_FALSE(p.overlapped);
    // As many members as cores: no crowd, the steps' sum.
    Case two = bcast(BcastAlgo::kBinomial, 2, 1024);
    two.members = 2;
    p = predict(two, cal, nullptr);
    EXPECT_FALSE(p.overlapped);
    EXPECT_FALSE(p.simulated);
    // The trace has nothing to show for a round priced back to back.
    EXPECT_TRUE(trace_simulated_round(bcast(BcastAlgo::kBinomial, 2, 1024), cal, nullptr).events.empty());
    EXPECT_FALSE(trace_simulated_round(capped, cal, nullptr).events.empty());
}

}  // namespace
