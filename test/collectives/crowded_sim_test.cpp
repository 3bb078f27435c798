// The crowded node's simulation (collectives/model/crowded_sim.hpp):
// rounds worked out by hand, member by member, on 2 cores.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "collectives/model/crowded_sim.hpp"

namespace acpx::collectives::model {
namespace {

constexpr double kUs = 1e-6;

SimInput on_two_cores(uint32_t members, double switch_us) {
    SimInput in;
    in.members = members;
    in.cores = 2;
    in.switch_s = switch_us * kUs;
    return in;
}

TEST(CrowdedSim, AMemberAloneOnItsCoreSeesItsDataAtOnce) {
    // 2 members, 2 cores: a round is the copy; the next one goes as soon
    // as the receiver has seen the data and signalled ready.
    SimInput in = on_two_cores(2, 10);
    in.entries = {{0, 1, -1, 3 * kUs}};
    EXPECT_NEAR(simulate_rounds(in), 3 * kUs, 1e-12);
    // A chain over 3 members on 4 cores: the two copies, nothing else.
    in.members = 3;
    in.cores = 4;
    in.entries = {{0, 1, -1, kUs}, {1, 2, 0, kUs}};
    EXPECT_NEAR(simulate_rounds(in), 2 * kUs, 1e-12);
}

TEST(CrowdedSim, MembersSharingACoreWaitForTheirTurn) {
    // 3 members on 2 cores: 0 and 2 share core 0, 1 is alone on core 1.
    // Copies of 1 us, switches of 10 us.
    SimInput chain = on_two_cores(3, 10);
    chain.entries = {{0, 1, -1, kUs}, {1, 2, 0, kUs}};
    // Chain: 0 copies to 1 (1 us); 1 forwards at once (done at 2 us); 0
    // cannot start its next round (1 is not ready yet), yields; 2 runs at
    // 11 us, sees its data, yields; 0 runs at 21 us: c + 2 w a round.
    EXPECT_NEAR(simulate_rounds(chain), 21 * kUs, 1e-9);
    // Flat tree: 0 copies to 1 and 2 (2 us), then the same two switches
    // before 2 has seen its data and 0 may copy to it again: 2 c + 2 w
    // (the switch times spread around 10 us: within 5%).
    SimInput tree = on_two_cores(3, 10);
    tree.entries = {{0, 1, -1, kUs}, {0, 2, -1, kUs}};
    const double t = simulate_rounds(tree);
    EXPECT_NEAR(t, 22 * kUs, 1.1 * kUs);
    // So on a crowded node the chain wins small rounds, as measured on
    // the 2-core VM (9.4 us against 11.5 at 3 ranks).
    EXPECT_LT(simulate_rounds(chain), t);
    // Without switches to wait for, the tree's parallel copies win.
    chain.switch_s = tree.switch_s = 0;
    chain.entries[0].copy_s = chain.entries[1].copy_s = 10 * kUs;
    tree.entries[0].copy_s = tree.entries[1].copy_s = 10 * kUs;
    chain.cores = tree.cores = 3;
    EXPECT_NEAR(simulate_rounds(chain), 20 * kUs, 1e-9);
    EXPECT_NEAR(simulate_rounds(tree), 20 * kUs, 1e-9);  // one sender's CPU makes both copies
}

TEST(CrowdedSim, ATraceListsOneRoundsCopiesAndEndsInTimeOrder) {
    // The chain above, switches of exactly 10 us: 0 copies to 1 (there at
    // 1 us) and ends its round; 1 forwards at once (there at 2) and ends
    // its round; 2 gets core 0 at 11, sees its data and ends its round.
    SimInput chain = on_two_cores(3, 10);
    chain.entries = {{0, 1, -1, kUs}, {1, 2, 0, kUs}};
    const std::vector<SimEvent> ev = trace_round(chain);
    ASSERT_EQ(ev.size(), 5u);
    struct Want {
        double t;
        uint32_t core, member;
        int32_t entry;
        double lands;
    };
    const Want want[] = {{0, 0, 0, 0, 1}, {1, 0, 0, -1, 0}, {1, 1, 1, 1, 2}, {2, 1, 1, -1, 0}, {11, 0, 2, -1, 0}};
    for (size_t i = 0; i < ev.size(); ++i) {
        EXPECT_NEAR(ev[i].t, want[i].t * kUs, 1e-12) << i;
        EXPECT_EQ(ev[i].core, want[i].core) << i;
        EXPECT_EQ(ev[i].member, want[i].member) << i;
        EXPECT_EQ(ev[i].entry, want[i].entry) << i;
        EXPECT_NEAR(ev[i].lands, want[i].lands * kUs, 1e-12) << i;
    }
    // Nothing to trace where nothing can complete.
    chain.entries[1].dep = 1;
    EXPECT_TRUE(trace_round(chain).empty());
}

TEST(CrowdedSim, ARoundTakesAtLeastItsBusiestCoresCopies) {
    // Flat tree over 3 members on 2 cores, copies of 100 us, switches of
    // 5: the root makes both copies each round, and 2 must get a turn to
    // see its data and signal ready before the next one: 2 c + 2 w.
    // (Timed on the last rounds, where the others have stopped taking
    // turns, it came out at 0.88 of the two copies.)
    SimInput tree = on_two_cores(3, 5);
    tree.entries = {{0, 1, -1, 100 * kUs}, {0, 2, -1, 100 * kUs}};
    const double t = simulate_rounds(tree);
    EXPECT_GE(t, 200 * kUs);
    EXPECT_NEAR(t, 210 * kUs, 1 * kUs);
}

TEST(CrowdedSim, ACopyPaysItsColdCostWhenAnotherCoreForwardsItsData) {
    // 3 members on 3 cores, no switches. A chain: 1 forwards on another
    // core what 0 wrote, so 0's copy pays: c + cold + c a round.
    SimInput chain = on_two_cores(3, 0);
    chain.cores = 3;
    chain.entries = {{0, 1, -1, kUs, 5 * kUs}, {1, 2, 0, kUs}};
    EXPECT_NEAR(simulate_rounds(chain), 7 * kUs, 1e-9);
    // The last copy's data goes nowhere: its cold cost is never paid.
    chain.entries[1].cold_s = 5 * kUs;
    EXPECT_NEAR(simulate_rounds(chain), 7 * kUs, 1e-9);
    // On 2 cores, 2 forwards on core 0 what 0 wrote there: no cold cost.
    // Each round 0 copies to 2, 2 to 1: 2 c, and the switches to 2 and
    // back, which are 0 here.
    SimInput same = on_two_cores(3, 0);
    same.entries = {{0, 2, -1, kUs, 5 * kUs}, {2, 1, 0, kUs}};
    EXPECT_NEAR(simulate_rounds(same), 2 * kUs, 1e-9);
    // Paid however busy the writer: 0 also copies 10 us to 2 each round,
    // and 1 forwards beside it, so a round is 0's copies and the cold
    // cost (11 us without it).
    SimInput busy = on_two_cores(3, 0);
    busy.cores = 3;
    busy.entries = {{0, 2, -1, 10 * kUs}, {0, 1, -1, kUs, 5 * kUs}, {1, 2, 1, kUs}};
    EXPECT_NEAR(simulate_rounds(busy), 16 * kUs, 1e-9);
    busy.entries[1].cold_s = -kUs;  // a negative cost is no list
    EXPECT_TRUE(std::isinf(simulate_rounds(busy)));
}

TEST(CrowdedSim, APlainStoreHoldsItsCoreForItsBusyTimeOnly) {
    // 2 members: the receiver still waits for the whole copy.
    SimInput pair = on_two_cores(2, 10);
    pair.entries = {{0, 1, -1, 3 * kUs, 0, 1, 1 * kUs}};
    EXPECT_NEAR(simulate_rounds(pair), 3 * kUs, 1e-12);
    // A flat tree over 3 members on 3 cores, copies of 10 us: held
    // throughout, the root makes one after the other, 20 us a round.
    // Held for 2 us, the second goes at 2 and lands at 12; each receiver
    // is ready again when its copy lands, and the root's core is free by
    // then: a copy a round.
    SimInput tree = on_two_cores(3, 0);
    tree.cores = 3;
    tree.entries = {{0, 1, -1, 10 * kUs}, {0, 2, -1, 10 * kUs}};
    EXPECT_NEAR(simulate_rounds(tree), 20 * kUs, 1e-9);
    tree.entries[0].busy_s = tree.entries[1].busy_s = 2 * kUs;
    EXPECT_NEAR(simulate_rounds(tree), 10 * kUs, 1e-9);
    // The cold cost delays the data but does not hold the core. A chain
    // on 3 cores, copies of 1 us, 0's 5 us colder: 0->1 lands at 6, 1
    // forwards (its core held 0.5 us) and starts the next round at 6.5,
    // when 0 may copy to it again: 6.5 a round; held throughout, 0->1
    // holds 0 till 6, 1->2 holds 1 till 7: 7.
    SimInput chain = on_two_cores(3, 0);
    chain.cores = 3;
    chain.entries = {{0, 1, -1, kUs, 5 * kUs}, {1, 2, 0, kUs}};
    EXPECT_NEAR(simulate_rounds(chain), 7 * kUs, 1e-9);
    chain.entries[0].busy_s = chain.entries[1].busy_s = 0.5 * kUs;
    EXPECT_NEAR(simulate_rounds(chain), 6.5 * kUs, 1e-9);
    chain.entries[0].busy_s = std::nan("");  // not a number: no list
    EXPECT_TRUE(std::isinf(simulate_rounds(chain)));
}

TEST(CrowdedSim, CopiesIntoOneReceiverFromTwoCoresShareTheirTime) {
    // 4 members on 4 cores, no switches, copies into the same receiver 2
    // times slower each while they overlap. 0 copies 10 us to 3; 1 copies
    // 4 us to 2, which forwards 10 us to 3 from t = 4: then 0's copy has
    // 6 us left, which take 12 (till 16); 2's copy runs at half speed
    // till then (6 of its 10 us done), then alone: done at 20.
    SimInput in = on_two_cores(4, 0);
    in.cores = 4;
    in.entries = {{0, 3, -1, 10 * kUs, 0, 2}, {1, 2, -1, 4 * kUs}, {2, 3, 1, 10 * kUs, 0, 2}};
    EXPECT_NEAR(simulate_rounds(in), 20 * kUs, 1e-9);
    in.entries[0].converge = in.entries[2].converge = 1;  // no contention: the longer path, 4 + 10
    EXPECT_NEAR(simulate_rounds(in), 14 * kUs, 1e-9);
    // Into different receivers they do not slow each other.
    in.entries = {{0, 2, -1, 10 * kUs, 0, 2}, {1, 3, -1, 10 * kUs, 0, 2}};
    EXPECT_NEAR(simulate_rounds(in), 10 * kUs, 1e-9);
    // scatter_ring over 3 members on 3 cores: 0 sends the halves to 1 and
    // 2, which swap them. 0's second copy and 1's forward land in 2 at
    // once, from 10 to 25 at 1.5x; then 2's forward: 35 a round, not 30.
    in.members = 3;
    in.cores = 3;
    in.entries = {{0, 1, -1, 10 * kUs, 0, 1.5}, {0, 2, -1, 10 * kUs, 0, 1.5}, {1, 2, 0, 10 * kUs, 0, 1.5},
                  {2, 1, 1, 10 * kUs, 0, 1.5}};
    EXPECT_NEAR(simulate_rounds(in), 35 * kUs, 1e-9);
    in.entries[2].converge = 0.5;  // a factor below 1 is no list
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
}

TEST(CrowdedSim, CopiesIntoTwoReceiversFromTwoCoresSlowByTheirConcurrentFactor) {
    // 4 members on 4 cores, no switches. 0 copies 10 us to 2 and 1 copies
    // 10 us to 3 at once: 15 each at 1.5x; 0.8x, 8.
    SimInput in = on_two_cores(4, 0);
    in.cores = 4;
    SimEntry a{0, 2, -1, 10 * kUs}, b{1, 3, -1, 10 * kUs};
    a.concurrent = b.concurrent = 1.5;
    in.entries = {a, b};
    EXPECT_NEAR(simulate_rounds(in), 15 * kUs, 1e-9);
    in.entries[0].concurrent = in.entries[1].concurrent = 0.8;
    EXPECT_NEAR(simulate_rounds(in), 8 * kUs, 1e-9);
    // A binomial tree over 4: 0->1 alone till 10, then 0->2 and 1->3 at
    // once at 1.5x, both done at 25.
    SimEntry first{0, 1, -1, 10 * kUs}, second{0, 2, -1, 10 * kUs}, forward{1, 3, 0, 10 * kUs};
    first.concurrent = second.concurrent = forward.concurrent = 1.5;
    in.entries = {first, second, forward};
    EXPECT_NEAR(simulate_rounds(in), 25 * kUs, 1e-9);
    // Into one receiver, converge applies, not concurrent: 0 and 1 copy
    // 10 us each into 2 at converge 2 (20 each), concurrent 1.5 ignored.
    SimEntry c{0, 2, -1, 10 * kUs, 0, 2}, d{1, 2, -1, 10 * kUs, 0, 2};
    c.concurrent = d.concurrent = 1.5;
    in.entries = {c, d};
    EXPECT_NEAR(simulate_rounds(in), 20 * kUs, 1e-9);
    // Copies of one core never overlap: a flat tree's root copies in turn.
    SimEntry e{0, 1, -1, 10 * kUs}, f{0, 2, -1, 10 * kUs};
    e.concurrent = f.concurrent = 1.5;
    in.entries = {e, f};
    EXPECT_NEAR(simulate_rounds(in), 20 * kUs, 1e-9);
    in.entries[1].concurrent = 0;  // a factor not above 0 is no list
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
}

TEST(CrowdedSim, EagerRoundsSendIntoTheNextRoundEarly) {
    // Inline rounds go once the receiver started the previous round, so
    // the root does not wait for 2's ready signal: fewer switches a round.
    SimInput tree = on_two_cores(3, 10);
    tree.entries = {{0, 1, -1, kUs}, {0, 2, -1, kUs}};
    const double plain = simulate_rounds(tree);
    tree.eager = true;
    EXPECT_LT(simulate_rounds(tree), plain);
}

TEST(CrowdedSim, CoresOutOfPhaseNeverRunRecursiveDoublingsPartnersAtOnce) {
    // Recursive doubling over 4 members on 2 cores pairs (0,1) and (2,3)
    // across the cores, then (0,2) and (1,3) with what came in; Bruck
    // makes the same copies around a cycle (r -> r-1, then r -> r-2).
    // Inline rounds, copies of 1 us, switches of 10 us.
    SimInput rd = on_two_cores(4, 10);
    rd.eager = true;
    rd.entries = {{0, 1, -1, kUs}, {1, 0, -1, kUs}, {2, 3, -1, kUs}, {3, 2, -1, kUs},
                  {0, 2, -1, kUs}, {0, 2, 1, kUs},  {2, 0, -1, kUs}, {2, 0, 3, kUs},
                  {1, 3, -1, kUs}, {1, 3, 0, kUs},  {3, 1, -1, kUs}, {3, 1, 2, kUs}};
    SimInput bruck = rd;
    bruck.entries = {{1, 0, -1, kUs}, {2, 1, -1, kUs}, {3, 2, -1, kUs}, {0, 3, -1, kUs},
                     {2, 0, -1, kUs}, {2, 0, 2, kUs},  {3, 1, -1, kUs}, {3, 1, 3, kUs},
                     {0, 2, -1, kUs}, {0, 2, 0, kUs},  {1, 3, -1, kUs}, {1, 3, 1, kUs}};
    // Both cores in step, each starting on its first member: 0 and 1
    // always run at once, and recursive doubling takes a switch less.
    const double rd_in_step = simulate_rounds(rd), bruck_in_step = simulate_rounds(bruck);
    EXPECT_NEAR(rd_in_step, 16 * kUs, 0.5 * kUs);
    EXPECT_NEAR(bruck_in_step, 21 * kUs, 0.5 * kUs);
    // Core 1 on member 3 first: recursive doubling's partners never run
    // at once, and it takes a switch more than in step; Bruck, whose
    // partners are not those two, takes as long as in step. So the 2-core
    // VM measured them (1-4 KiB blocks, 4 ranks: recursive doubling a
    // median 1.06x the tree, which makes Bruck's copies).
    rd.out_of_phase = bruck.out_of_phase = true;
    EXPECT_NEAR(simulate_rounds(rd), rd_in_step + 10 * kUs, 0.5 * kUs);
    EXPECT_NEAR(simulate_rounds(bruck), bruck_in_step, 0.5 * kUs);
    // A trace is one run, starting as out_of_phase says.
    SimInput in_step = rd;
    in_step.out_of_phase = false;
    const std::vector<SimEvent> a = trace_round(rd), b = trace_round(in_step);
    ASSERT_FALSE(a.empty());
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(a.front().member, 0u);
    EXPECT_EQ(b.front().member, 0u);
    const auto core1_first = [](const std::vector<SimEvent> &ev) {
        for (const SimEvent &e : ev)
            if (e.core == 1) return e.member;
        return 0u;
    };
    EXPECT_EQ(core1_first(a), 3u);
    EXPECT_EQ(core1_first(b), 1u);
}

TEST(CrowdedSim, ListsThatCannotCompleteAreInfinite) {
    SimInput in = on_two_cores(3, 1);
    // Entry 1 forwards what entry 0 delivered to member 1, but from member 2.
    in.entries = {{0, 1, -1, kUs}, {2, 0, 0, kUs}};
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
    in.entries = {{0, 3, -1, kUs}};  // no member 3
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
    in.entries = {{0, 1, 5, kUs}};  // no entry 5
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
    in.entries = {{0, 1, -1, -kUs}};
    EXPECT_TRUE(std::isinf(simulate_rounds(in)));
    in.entries.clear();  // nothing to do takes no time
    EXPECT_EQ(simulate_rounds(in), 0);
}

TEST(CrowdedSim, EveryMemberFinishesLargeLists) {
    // An allgather-like list over 9 members on 2 cores: every member sends
    // its block around the ring; the rounds complete and take at least
    // the copies the busiest core makes.
    SimInput in = on_two_cores(9, 5);
    for (uint32_t b = 0; b < 9; ++b)
        for (uint32_t h = 0; h < 8; ++h)
            in.entries.push_back({(b + h) % 9, (b + h + 1) % 9,
                                  h == 0 ? -1 : static_cast<int32_t>(in.entries.size() - 1), kUs});
    const double t = simulate_rounds(in);
    ASSERT_TRUE(std::isfinite(t));
    EXPECT_GE(t, 5 * 8 * kUs);  // core 0 holds 5 members, each makes 8 copies
}

}  // namespace
}  // namespace acpx::collectives::model
