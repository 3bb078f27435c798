// The flow simulator (collectives/model/flowsim.hpp): links shared
// max-min fairly, steps that wait for their own tasks only (or for all,
// behind a barrier), against times worked out by hand.
#include <gtest/gtest.h>

#include "collectives/model/flowsim.hpp"
#include "model_fixtures.hpp"

namespace cm = acpx::collectives::model;
namespace fs = acpx::collectives::model::flowsim;

using model_fixtures::topo;

namespace {

constexpr double kB = 5e9, kAlpha = 47e-6, kBeta = 4e-6;
constexpr uint64_t kM = 1 << 20;
constexpr double kT = kM / kB;  // one message alone

fs::Params params(bool barrier = false, uint32_t iterations = 1) {
    fs::Params p;
    p.barrier = barrier;
    p.iterations = iterations;
    return p;
}

}  // namespace

TEST(FlowSim, AMessageAloneTakesAlphaPlusItsBytesOverTheBandwidth) {
    const fs::Result r = fs::simulate(topo("mesh:2"), {0, 1}, {{{0, 1, kM}}}, params());
    EXPECT_NEAR(r.seconds, kAlpha + kT, 1e-12);
    EXPECT_EQ(r.flows, 1u);
    // Both ways at once: opposite directions, no sharing.
    EXPECT_NEAR(fs::simulate(topo("mesh:2"), {0, 1}, {{{0, 1, kM}, {1, 0, kM}}}, params()).seconds, kAlpha + kT, 1e-12);
    // Two tasks on one node send over the one link: half the bandwidth each.
    EXPECT_NEAR(fs::simulate(topo("mesh:2"), {0, 0, 1, 1}, {{{0, 2, kM}, {1, 3, kM}}}, params()).seconds,
                kAlpha + 2 * kT, 1e-12);
    // A message within a node: an empty route, a copy at the bandwidth.
    EXPECT_NEAR(fs::simulate(topo("mesh:2"), {0, 0}, {{{0, 1, kM}}}, params()).seconds, kAlpha + kT, 1e-12);
    // To itself: nothing; no bytes: alpha.
    EXPECT_EQ(fs::simulate(topo("mesh:2"), {0, 1}, {{{0, 0, kM}}}, params()).seconds, 0);
    EXPECT_NEAR(fs::simulate(topo("mesh:2"), {0, 1}, {{{0, 1, 0}}}, params()).seconds, kAlpha, 1e-15);
}

// A line of four nodes, n0 - n1 - n2 - n3, routes along it:
//   A: n0 -> n1 (3M)   B: n0 -> n2 (M)   C: n1 -> n2 (M)   D: n1 -> n3 (M)
// n1 -> n2 carries B, C and D: a third of it each; A takes what B leaves
// of n0 -> n1, two thirds. B, C, D end at 3M/B; by then A moved 2M and its
// last M goes alone: 4M/B. An equal split of n0 -> n1 (A at a half)
// would end at 4.5M/B.
TEST(FlowSim, LinksAreSharedMaxMinFairly) {
    const std::vector<uint32_t> map = {0, 1, 0, 2, 1, 2, 1, 3};  // task 2i -> task 2i + 1 is A, B, C, D
    const fs::Step s = {{0, 1, 3 * kM}, {2, 3, kM}, {4, 5, kM}, {6, 7, kM}};
    EXPECT_NEAR(fs::simulate(topo("mesh:4"), map, {s}, params()).seconds, kAlpha + 4 * kT, 1e-12);
}

// Step 1: tasks 0 -> 1 alone (n0 -> n1), 2 -> 3 and 4 -> 5 sharing n2 ->
// n3 (2M/B). Step 2: 0 -> 1 again. Without a barrier it waits for 0 and 1
// only: 2 alpha + 2M/B in all; with one, for every task, plus beta.
TEST(FlowSim, AStepWaitsForItsOwnTasksOrBehindABarrierForAll) {
    const std::vector<uint32_t> map = {0, 1, 2, 3, 2, 3};
    const std::vector<fs::Step> steps = {{{0, 1, kM}, {2, 3, kM}, {4, 5, kM}}, {{0, 1, kM}}};
    EXPECT_NEAR(fs::simulate(topo("mesh:4"), map, steps, params()).seconds, 2 * kAlpha + 2 * kT, 1e-12);
    EXPECT_NEAR(fs::simulate(topo("mesh:4"), map, steps, params(true)).seconds, 2 * kAlpha + kBeta + 3 * kT, 1e-12);
    // Iterations: the pair's exchanges follow each other, 3 x (alpha + M/B);
    // the others' three shared exchanges end later: 3 x (alpha + 2M/B).
    EXPECT_NEAR(fs::simulate(topo("mesh:4"), map, {steps[0]}, params(false, 3)).seconds, 3 * (kAlpha + 2 * kT), 1e-12);
    // A task waits for everything it sent and received in its step before.
    const std::vector<fs::Step> chain = {{{0, 1, kM}, {2, 3, kM}, {4, 5, kM}}, {{3, 0, kM}}};
    // 3 is done at alpha + 2M/B, 0 at alpha + M/B: 3 -> 0 starts alpha after the later.
    EXPECT_NEAR(fs::simulate(topo("mesh:4"), map, chain, params()).seconds, 2 * kAlpha + 3 * kT, 1e-12);
}

// Seed 000's Table 1: a collision-free CCS of 1 MiB took 256-258 us, alpha
// + M/B here; 1,000 CG iterations of 4 CCS without collisions, ~1.03 s.
TEST(FlowSim, CollisionFreeStepsTakeTheSeedsTime) {
    // Four tasks on a 2x2 mesh: pairs along X, then along Y, then crosswise.
    const std::vector<fs::Step> steps = {{{0, 1, kM}, {1, 0, kM}, {2, 3, kM}, {3, 2, kM}},
                                         {{0, 2, kM}, {2, 0, kM}, {1, 3, kM}, {3, 1, kM}}};
    const fs::Result r = fs::simulate(topo("mesh:2x2"), {0, 1, 2, 3}, steps, params(false, 1000));
    EXPECT_NEAR(r.seconds, 2000 * (kAlpha + kT), 1e-9);
    EXPECT_EQ(r.flows, 8000u);
    EXPECT_NEAR(kAlpha + kT, 256.7e-6, 0.1e-6);
}

// With a port per node, what a node sends at once shares its injection
// port: two messages to its two neighbours on a line take 2M/B, where
// links alone let both go at full speed.
TEST(FlowSim, PortsMakeANodesMessagesShareItsInterface) {
    const std::vector<uint32_t> map = {1, 0, 2};  // task 0 in the middle
    const fs::Step s = {{0, 1, kM}, {0, 2, kM}};
    fs::Params p = params();
    EXPECT_NEAR(fs::simulate(topo("mesh:3"), map, {s}, p).seconds, kAlpha + kT, 1e-12);
    p.ports = true;
    EXPECT_NEAR(fs::simulate(topo("mesh:3"), map, {s}, p).seconds, kAlpha + 2 * kT, 1e-12);
    // Receiving from two at once shares the ejection port alike.
    EXPECT_NEAR(fs::simulate(topo("mesh:3"), map, {{{1, 0, kM}, {2, 0, kM}}}, p).seconds, kAlpha + 2 * kT, 1e-12);
}
