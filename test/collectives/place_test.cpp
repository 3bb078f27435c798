// Seed 000's placement (collectives/place/): the objectives against
// values worked by hand, the seed's section 3 example, NPB CG's pattern,
// Fig. 2's cut of a log, and the annealing's search.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "collectives/model/topology.hpp"
#include "collectives/place/anneal.hpp"
#include "collectives/place/log_cut.hpp"
#include "collectives/place/moves.hpp"
#include "collectives/place/no_ring.hpp"
#include "collectives/place/objective.hpp"
#include "collectives/place/pattern.hpp"
#include "model_fixtures.hpp"

namespace cm = acpx::collectives::model;
namespace cp = acpx::collectives::place;

using model_fixtures::topo;

namespace {

cp::Pattern of_ccs(uint32_t tasks, std::vector<cp::Ccs> ccs) {
    cp::Pattern p;
    p.tasks = tasks;
    p.ccs = std::move(ccs);
    p.traffic = cp::traffic_of(tasks, p.ccs);
    return p;
}

// A pattern by its spec (pattern.hpp); an empty one, failing the test, if
// the spec does not parse.
cp::Pattern parsed(const std::string &spec) {
    cp::Pattern p;
    std::string why;
    if (!cp::parse_pattern(spec, &p, &why)) ADD_FAILURE() << spec << ": " << why;
    return p;
}

// Both ways between each pair.
cp::Ccs swaps(std::initializer_list<std::pair<uint32_t, uint32_t>> pairs, uint64_t bytes) {
    cp::Ccs c;
    for (const auto &[a, b] : pairs) c.push_back({a, b, bytes}), c.push_back({b, a, bytes});
    return c;
}

// The section 3 example: tasks 1..6 there are 0..5 here.
cp::Pattern section3(uint64_t m) {
    return of_ccs(
        6, {swaps({{0, 1}}, m), swaps({{3, 4}}, m), swaps({{0, 2}, {3, 5}}, m), swaps({{0, 5}, {1, 3}, {2, 4}}, m)});
}

std::set<std::tuple<uint32_t, uint32_t, uint64_t>> as_set(const cp::Ccs &c) {
    std::set<std::tuple<uint32_t, uint32_t, uint64_t>> s;
    for (const cp::Message &m : c) s.insert({m.src, m.dst, m.bytes});
    return s;
}

}  // namespace

// Section 3: two nodes of three tasks. Placements {1,2,3|4,5,6} and
// {1,3,5|2,4,6} cross the link with the same byte-hops, but the first
// sends three messages over it at once in the last step: 6 M/B against 4.
TEST(Place, Section3ExampleTellsThePlacementsApartWhereHopBytesCannot) {
    const uint64_t m = 1 << 20;
    const cp::Pattern p = section3(m);
    cp::Evaluator ev(topo("mesh:2"), p);
    const std::vector<uint32_t> first = {0, 0, 0, 1, 1, 1}, second = {0, 1, 0, 1, 0, 1};
    EXPECT_DOUBLE_EQ(ev.eq1(first), 6.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq1(second), 4.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq2(first), ev.eq2(second));
    EXPECT_DOUBLE_EQ(ev.eq2(first), 6.0 * m);  // six messages of one hop
    EXPECT_EQ(ev.all(first).max_coll, 3u);
    EXPECT_EQ(ev.all(second).max_coll, 1u);
    EXPECT_EQ(ev.coll_per_ccs(first), (std::vector<uint32_t>{1, 1, 1, 3}));
}

// A 2x2 mesh, nodes (x, y) = (i % 2, i / 2), routes X then Y. Tasks 0 and
// 1 on node 0, 2 on node 3, 3 on node 1.
//   CCS 0: 0->2 (n0 X+, n1 Y+), 1->3 (n0 X+): n0 X+ carries 2: 2 M
//   CCS 1: 2->0 (n3 X-, n2 Y-), 3->1 (n1 X-): no link twice: M
// eq1 = 3 M / B; eq2 = (2 + 1 + 2 + 1) M; the busiest link over the
// kernel is n0 X+ with 2 M, so eq3 = 6 M x 2 M.
TEST(Place, ObjectivesMatchValuesWorkedByHandOnATwoByTwoMesh) {
    const uint64_t m = 1000;
    const cp::Pattern p = of_ccs(4, {{{0, 2, m}, {1, 3, m}}, {{2, 0, m}, {3, 1, m}}});
    cp::Evaluator ev(topo("mesh:2x2"), p);
    const std::vector<uint32_t> pi = {0, 0, 3, 1};
    EXPECT_DOUBLE_EQ(ev.eq1(pi), 3.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq1_ports(pi), 3.0 * m / cp::kSeedBandwidth);  // one send and one receive a task
    EXPECT_DOUBLE_EQ(ev.eq2(pi), 6.0 * m);
    EXPECT_DOUBLE_EQ(ev.eq3(pi), 6.0 * m * 2.0 * m);
    const cp::Scores s = ev.all(pi);
    EXPECT_EQ(s.max_coll, 2u);
    EXPECT_DOUBLE_EQ(s.eq1, ev.eq1(pi));
    // Evaluating again gives the same: the link loads are reset.
    EXPECT_DOUBLE_EQ(ev.eq1(pi), 3.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq3(pi), 6.0 * m * 2.0 * m);
    // Both tasks of a message on one node: an empty route, coll 1.
    EXPECT_DOUBLE_EQ(ev.eq1({0, 0, 0, 0}), 2.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq2({0, 0, 0, 0}), 0);
}

// tac3-ports also counts a task's sends in one CCS: a task sending to
// two others at once shares its port (coll 2), where eq. (1) sees two
// disjoint routes. TAC3 itself refuses such a pattern.
TEST(Place, PortsCountATaskSendingTwiceAndTac3RefusesIt) {
    const uint64_t m = 1000;
    const cp::Pattern p = of_ccs(3, {{{0, 1, m}, {0, 2, m}}});
    cp::Evaluator ev(topo("mesh:3"), p);
    const std::vector<uint32_t> pi = {1, 0, 2};  // task 0 in the middle: one route each way
    EXPECT_DOUBLE_EQ(ev.eq1(pi), 1.0 * m / cp::kSeedBandwidth);
    EXPECT_DOUBLE_EQ(ev.eq1_ports(pi), 2.0 * m / cp::kSeedBandwidth);
    EXPECT_EQ(cp::single_port_problem(p), "CCS 0: task 0 sends twice; use tac3-ports");
    EXPECT_EQ(cp::single_port_problem(of_ccs(3, {{{0, 2, m}}, {{0, 1, m}, {2, 1, m}}})),
              "CCS 1: task 1 receives twice; use tac3-ports");
    EXPECT_EQ(cp::single_port_problem(section3(m)), "");
}

// NPB CG: 32 tasks on 8 x 4, 64 on 8 x 8, four CCS either way (section
// 5.5): three row exchanges, then the transpose, which NPB's exch_proc
// makes an involution; its fixed points send nothing.
TEST(Place, CgIsThreeRowExchangesAndATransposeAt32And64Tasks) {
    for (const uint32_t n : {32u, 64u}) {
        cp::Pattern p;
        std::string why;
        ASSERT_TRUE(cp::cg_pattern(n, 1 << 20, &p, &why)) << why;
        ASSERT_EQ(p.ccs.size(), 4u) << n;
        EXPECT_EQ(cp::single_port_problem(p), "") << n;
        const uint32_t npcols = 8;
        for (uint32_t s = 0; s < 3; ++s) {
            ASSERT_EQ(p.ccs[s].size(), n);
            for (const cp::Message &m : p.ccs[s]) {
                EXPECT_EQ(m.src / npcols, m.dst / npcols);                          // same row
                EXPECT_EQ((m.src % npcols) ^ (m.dst % npcols), npcols >> (s + 1));  // c xor npcols >> s
            }
        }
        const cp::Ccs &tr = p.ccs[3];
        EXPECT_EQ(tr.size(), n - 8) << "eight tasks are their own exch_proc";
        const std::set<std::tuple<uint32_t, uint32_t, uint64_t>> all = as_set(tr);
        for (const cp::Message &m : tr) EXPECT_TRUE(all.count({m.dst, m.src, m.bytes})) << m.src << "->" << m.dst;
    }
    // 64 = 8 x 8: exch_proc(me) = (me % 8) * 8 + me / 8, the grid's transpose.
    cp::Pattern p;
    std::string why;
    ASSERT_TRUE(cp::cg_pattern(64, 1, &p, &why));
    for (const cp::Message &m : p.ccs[3]) EXPECT_EQ(m.dst, (m.src % 8) * 8 + m.src / 8);
    EXPECT_FALSE(cp::cg_pattern(48, 1, &p, &why));
    EXPECT_NE(why.find("power of two"), std::string::npos) << why;
    EXPECT_FALSE(cp::parse_pattern("cg:24", &p, &why));
    EXPECT_NE(why.find("power of two"), std::string::npos) << why;
}

// Fig. 2 applied to CG's calls as NPB makes them (irecv, send, wait a
// step) gives cg:N's four CCS.
TEST(Place, Figure2CutsCgsLogIntoCgsFourCcs) {
    for (const uint32_t n : {32u, 64u}) {
        cp::Pattern want;
        std::string why;
        ASSERT_TRUE(cp::cg_pattern(n, 4096, &want, &why));
        // NPB's order per task, step by step: irecv, send, wait (each task
        // sends once and receives once a CCS, from the partner it sends to).
        std::vector<std::vector<cp::LogCall>> calls(n);
        for (const cp::Ccs &c : want.ccs) {
            for (const cp::Message &m : c) calls[m.src].push_back({cp::LogCall::kIrecv, m.dst, 0, 0});
            for (const cp::Message &m : c) calls[m.src].push_back({cp::LogCall::kSend, m.dst, m.bytes, 0});
            for (const cp::Message &m : c) calls[m.src].push_back({cp::LogCall::kWait, m.dst, 0, 0});
        }
        std::vector<cp::Ccs> got;
        ASSERT_TRUE(cp::cut_log(calls, &got, &why)) << why;
        ASSERT_EQ(got.size(), want.ccs.size()) << n;
        for (size_t t = 0; t < got.size(); ++t) EXPECT_EQ(as_set(got[t]), as_set(want.ccs[t])) << n << " CCS " << t;
    }
}

// Non-blocking calls before a wait go together; a blocking call ends a
// task's window; unmatched calls and a deadlock are errors naming the task.
TEST(Place, Figure2WindowsAndErrors) {
    using K = cp::LogCall;
    std::vector<cp::Ccs> got;
    std::string why;
    // Task 0 posts two sends before its wait: one CCS with both.
    std::vector<std::vector<K>> calls = {
        {{K::kIsend, 1, 8, 1}, {K::kIsend, 2, 8, 2}, {K::kWait, 1, 0, 3}, {K::kWait, 2, 0, 4}},
        {{K::kRecv, 0, 0, 5}, {K::kSend, 2, 16, 6}},
        {{K::kRecv, 0, 0, 7}, {K::kRecv, 1, 0, 8}}};
    ASSERT_TRUE(cp::cut_log(calls, &got, &why)) << why;
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(as_set(got[0]), (std::set<std::tuple<uint32_t, uint32_t, uint64_t>>{{0, 1, 8}, {0, 2, 8}}));
    EXPECT_EQ(as_set(got[1]), (std::set<std::tuple<uint32_t, uint32_t, uint64_t>>{{1, 2, 16}}));
    // A send without its receive.
    calls = {{{K::kSend, 1, 8, 3}}, {}};
    EXPECT_FALSE(cp::cut_log(calls, &got, &why));
    EXPECT_EQ(why, "task 0: send 1 (line 3): no matching receive at task 1");
    calls = {{}, {{K::kIrecv, 0, 0, 9}, {K::kWait, 0, 0, 10}}};
    EXPECT_FALSE(cp::cut_log(calls, &got, &why));
    EXPECT_EQ(why, "task 1: irecv 0 (line 9): no matching send from task 0");
    // Both send first, blocking: neither receive is ever in its window.
    calls = {{{K::kSend, 1, 8, 1}, {K::kRecv, 1, 0, 2}}, {{K::kSend, 0, 8, 3}, {K::kRecv, 0, 0, 4}}};
    EXPECT_FALSE(cp::cut_log(calls, &got, &why));
    EXPECT_EQ(why, "the log deadlocks: task 0: send 1 (line 1) can never go");
    calls = {{{K::kSend, 5, 8, 1}}};
    EXPECT_FALSE(cp::cut_log(calls, &got, &why));
    EXPECT_EQ(why, "task 0: send 5 (line 1): no such task");
}

// A collective's pattern: one CCS per step of the model's schedule.
TEST(Place, CollectivePatternsAreTheirStepsMessages) {
    cp::Pattern p;
    std::string why;
    ASSERT_TRUE(cp::parse_pattern("allgather:ring:8:4K", &p, &why)) << why;
    EXPECT_EQ(p.tasks, 8u);
    ASSERT_EQ(p.ccs.size(), 7u);  // P - 1 steps, each member passing one block on
    for (const cp::Ccs &c : p.ccs) {
        EXPECT_EQ(c.size(), 8u);
        for (const cp::Message &m : c) EXPECT_EQ(m.dst, (m.src + 1) % 8);
    }
    EXPECT_EQ(cp::single_port_problem(p), "");
    // acpx's Bruck lands each block where it belongs, so a member sends
    // to several at a step: a pattern for tac3-ports.
    ASSERT_TRUE(cp::parse_pattern("allgather:bruck:8:4K", &p, &why)) << why;
    EXPECT_NE(cp::single_port_problem(p), "");
    ASSERT_TRUE(cp::parse_pattern("bcast:knomial:4:16", &p, &why)) << why;
    EXPECT_EQ(p.tasks, 16u);
    size_t msgs = 0;
    for (const cp::Ccs &c : p.ccs) msgs += c.size();
    EXPECT_EQ(msgs, 15u);  // every member but the root receives once
    EXPECT_FALSE(cp::parse_pattern("allgather:nosuch:8", &p, &why));
    EXPECT_NE(why.find("no allgather algorithm"), std::string::npos) << why;
    EXPECT_FALSE(cp::parse_pattern("nosuch:8", &p, &why));
}

TEST(Place, AnnealingParametersAreChecked) {
    cp::AnnealParams a;
    EXPECT_EQ(cp::check_params(a), "");
    EXPECT_EQ(cp::levels_of(a), 197u);  // the seed's 10 to 1e-8 by 0.9
    a.t0 = 1e-9;
    EXPECT_EQ(cp::check_params(a), "T0 must exceed Tend");
    a = {};
    a.factor = 1;
    EXPECT_EQ(cp::check_params(a), "the cooling factor must lie in (0, 1)");
    a = {};
    a.trials = 0;
    EXPECT_EQ(cp::check_params(a), "trials per temperature must be at least 1");
    a = {};
    a.tend = 0;
    EXPECT_EQ(cp::check_params(a), "T0 and Tend must be positive");
}

// The search: a seed gives the same map; the map is a placement on the
// slots (each used at most once); its cost is the objective's value and
// no worse than where it started; on section 3 it finds 4 M/B or less.
TEST(Place, AnnealingIsReproducibleAndFindsTheSection3Optimum) {
    const uint64_t m = 1 << 20;
    const cp::Pattern p = section3(m);
    cp::Evaluator ev(topo("mesh:2"), p);
    const std::vector<uint32_t> slots = {0, 0, 0, 1, 1, 1};
    cp::AnnealParams a;
    a.trials = 200;
    a.seed = 7;
    auto eq1 = [&](const std::vector<uint32_t> &pi) { return ev.eq1(pi); };
    const cp::AnnealResult r1 = cp::anneal(6, slots, eq1, a), r2 = cp::anneal(6, slots, eq1, a);
    EXPECT_EQ(r1.map, r2.map);
    EXPECT_EQ(r1.levels.size(), cp::levels_of(a));
    EXPECT_DOUBLE_EQ(r1.cost, ev.eq1(r1.map));
    EXPECT_LE(r1.cost, 4.0 * m / cp::kSeedBandwidth * (1 + 1e-12));
    for (uint32_t node : {0u, 1u}) EXPECT_EQ(std::count(r1.map.begin(), r1.map.end(), node), 3);
    // Hot levels take nearly every move, cold ones only those that do not climb.
    EXPECT_GT(r1.levels.front().accepted, r1.levels.front().tried * 9 / 10);
    EXPECT_LE(r1.levels.front().tried, a.trials);

    // More slots than tasks: tasks move onto free nodes too.
    cp::Pattern cg;
    std::string why;
    ASSERT_TRUE(cp::cg_pattern(32, m, &cg, &why));
    cp::Evaluator ev2(topo("torus:1x2x2x2x3x2:order=XYZACB:wrap=000010"), cg);
    std::vector<uint32_t> nodes(48);
    for (uint32_t i = 0; i < 48; ++i) nodes[i] = i;
    a.trials = 300;
    const cp::AnnealResult r3 = cp::anneal(
        32, nodes, [&](const std::vector<uint32_t> &pi) { return ev2.eq1(pi); }, a);
    std::set<uint32_t> used(r3.map.begin(), r3.map.end());
    EXPECT_EQ(used.size(), 32u);
    std::vector<uint32_t> identity(nodes.begin(), nodes.begin() + 32);
    EXPECT_LE(r3.cost, ev2.eq1(identity));
    EXPECT_GE(r3.cost, 4.0 * m / cp::kSeedBandwidth * (1 - 1e-12));  // four CCS of at least M / B
}

// no-ring: X fastest is node index order; the variant runs the last
// dimension fastest. On a 2x3 mesh (node = x + 2y): 0, 2, 4, 1, 3, 5.
TEST(Place, NoRingLaysTasksInCoordinateOrder) {
    const cm::Topology t = topo("mesh:2x3");
    const std::vector<uint32_t> slots = {5, 4, 3, 2, 1, 0};
    EXPECT_EQ(cp::no_ring(t, slots, 4), (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(cp::no_ring(t, slots, 6, false), (std::vector<uint32_t>{0, 2, 4, 1, 3, 5}));
    EXPECT_EQ(cp::no_ring(t, {1, 1, 0, 0}, 3), (std::vector<uint32_t>{0, 0, 1}));  // two tasks a node
}

// The tie-break adds eq. (2) under half of M/B: placements of equal eq.
// (1) are told apart by byte-hops, and eq. (1) still decides otherwise.
TEST(Place, TieBreakByHopBytesNeverOutweighsEq1) {
    const uint64_t m = 1 << 20;
    cp::Pattern p;
    std::string why;
    ASSERT_TRUE(cp::cg_pattern(32, m, &p, &why));
    cp::Evaluator ev(topo("torus:1x2x2x2x3x2:order=XYZACB:wrap=000010"), p);
    const double quantum = m / cp::kSeedBandwidth;
    std::vector<uint32_t> pi(32);
    for (uint32_t i = 0; i < 32; ++i) pi[i] = i;
    // The farthest anyone can be: every byte over the longest route.
    EXPECT_GT(ev.tiebreak_scale(), 0);
    EXPECT_LT(ev.with_tiebreak(pi) - ev.eq1(pi), quantum / 2);
    EXPECT_NEAR(ev.with_tiebreak(pi) - ev.eq1(pi), ev.tiebreak_scale() * ev.eq2(pi), 1e-18);
    // Spread the tasks over the far corner: more byte-hops; if eq. (1) is
    // equal the tie-broken cost is higher, else it follows eq. (1).
    std::vector<uint32_t> far(32);
    for (uint32_t i = 0; i < 32; ++i) far[i] = 47 - i;
    const double d1 = ev.eq1(far) - ev.eq1(pi), dt = ev.with_tiebreak(far) - ev.with_tiebreak(pi);
    if (d1 != 0)
        EXPECT_EQ(d1 > 0, dt > 0);
    else
        EXPECT_EQ(ev.eq2(far) > ev.eq2(pi), dt > 0);
    // Section 3: the second placement stays the cheaper.
    const cp::Pattern s3 = section3(m);
    cp::Evaluator ev3(topo("mesh:2"), s3);
    EXPECT_LT(ev3.with_tiebreak({0, 1, 0, 1, 0, 1}), ev3.with_tiebreak({0, 0, 0, 1, 1, 1}));
}

// Eq1Moves prices a move by its tasks' messages only; every proposal must
// be the cost computed anew, to the bit, whatever was committed before:
// random moves and swaps, taken or dropped at random, on patterns of one
// size a CCS (CG; a k-nomial bcast, whose root sends several at once:
// ports) and of mixed sizes (priced anew), with and without ports and the
// tie-break; the network has more nodes than tasks.
TEST(Place, MovesPricedIncrementallyCostWhatTheyCostComputedAnew) {
    const uint64_t m = 1 << 20;
    cp::Pattern cg, knomial;
    std::string why;
    ASSERT_TRUE(cp::cg_pattern(32, m, &cg, &why));
    ASSERT_TRUE(cp::parse_pattern("bcast:knomial:4:32:64K", &knomial, &why)) << why;
    std::mt19937_64 rng(3);
    std::vector<cp::Ccs> mixed(5);
    for (cp::Ccs &c : mixed)
        for (uint32_t i = 0; i < 12; ++i) {
            const auto a = static_cast<uint32_t>(rng() % 32), b = static_cast<uint32_t>(rng() % 32);
            if (a != b) c.push_back({a, b, 1000 + rng() % 5000});
        }
    const cp::Pattern odd = of_ccs(32, mixed);
    ASSERT_EQ(knomial.tasks, 32u);
    const cm::Topology net = topo("torus:4x4x3");
    for (const cp::Pattern *p : std::initializer_list<const cp::Pattern *>{&cg, &knomial, &odd})
        for (bool ports : {false, true})
            for (bool tie : {false, true}) {
                cp::Evaluator ev(net, *p), fresh(net, *p);
                cp::Eq1Moves moves(ev, ports, tie);
                auto whole = [&](const std::vector<uint32_t> &pi) {
                    return tie ? fresh.with_tiebreak(pi, ports) : ports ? fresh.eq1_ports(pi) : fresh.eq1(pi);
                };
                std::vector<uint32_t> map(32);
                for (uint32_t t = 0; t < 32; ++t) map[t] = (t * 7) % 48;
                ASSERT_EQ(moves.reset(map), whole(map));
                std::vector<uint32_t> now = map;
                for (int k = 0; k < 3000; ++k) {
                    std::vector<uint32_t> next = now;
                    const auto a = static_cast<uint32_t>(rng() % 32);
                    uint32_t b = cp::MoveCost::kNoTask;
                    const auto node = static_cast<uint32_t>(rng() % 48);
                    const auto holder = std::find(now.begin(), now.end(), node);
                    if (holder != now.end()) {  // a swap with the task there
                        b = static_cast<uint32_t>(holder - now.begin());
                        if (b == a) continue;
                        next[b] = now[a];
                    }
                    next[a] = node;
                    ASSERT_EQ(moves.propose(next, a, b), whole(next)) << "move " << k;
                    if (rng() % 3 == 0) moves.commit(), now = next;
                }
            }
}

// The search with moves priced incrementally is the search with every
// placement priced anew: the same costs, the same placement.
TEST(Place, AnnealingWithIncrementalPricesFindsTheSamePlacement) {
    cp::Pattern p;
    std::string why;
    ASSERT_TRUE(cp::parse_pattern("bcast:binomial:64:64K", &p, &why)) << why;
    const cm::Topology net = topo("torus:4x4x4");
    cp::Evaluator ev(net, p);
    std::vector<uint32_t> slots(64), pinned(64, UINT32_MAX);
    for (uint32_t i = 0; i < 64; ++i) slots[i] = i;
    pinned[0] = 0;
    cp::AnnealParams a;
    a.trials = 50;
    a.seed = 11;
    const cp::AnnealResult whole = cp::anneal(
        64, slots, [&](const std::vector<uint32_t> &pi) { return ev.with_tiebreak(pi, true); }, a, pinned);
    cp::Eq1Moves moves(ev, true, true);
    const cp::AnnealResult step = cp::anneal(64, slots, moves, a, pinned);
    EXPECT_EQ(step.map, whole.map);
    EXPECT_EQ(step.cost, whole.cost);
    ASSERT_EQ(step.levels.size(), whole.levels.size());
    for (size_t l = 0; l < step.levels.size(); ++l) EXPECT_EQ(step.levels[l].accepted, whole.levels[l].accepted);
}

// A pinned task stays on its slot (a bcast's root on its rank); the slots
// the search returns are a permutation and give the map.
TEST(Place, AnnealingKeepsAPinnedTaskAndReturnsSlots) {
    const cp::Pattern ring = parsed("allgather:ring:16:64K");  // the evaluator keeps a reference
    cp::Evaluator ev(topo("torus:4x4"), ring);
    std::vector<uint32_t> slots(16);
    for (uint32_t i = 0; i < 16; ++i) slots[i] = 15 - i;  // slot i on node 15 - i
    cp::AnnealParams a;
    a.trials = 100;
    std::vector<uint32_t> pinned(16, UINT32_MAX);
    pinned[5] = 9;
    const cp::AnnealResult r = cp::anneal(
        16, slots, [&](const std::vector<uint32_t> &pi) { return ev.with_tiebreak(pi, true); }, a, pinned);
    ASSERT_EQ(r.slot.size(), 16u);
    EXPECT_EQ(r.slot[5], 9u);
    EXPECT_EQ(r.map[5], 6u);
    std::set<uint32_t> used(r.slot.begin(), r.slot.end());
    EXPECT_EQ(used.size(), 16u);
    for (uint32_t t = 0; t < 16; ++t) EXPECT_EQ(r.map[t], slots[r.slot[t]]);
}

// out_of_time ends the search where it says so (asked every
// kDeadlineEvery moves), with the best placement passed until then: a
// permutation no worse than the start, the levels run so far; never
// asked, the search runs every level.
TEST(Place, AnnealingStopsWhenOutOfTimeWithTheBestSoFar) {
    const cp::Pattern ring = parsed("allgather:ring:16:64K");  // the evaluator keeps a reference
    cp::Evaluator ev(topo("torus:4x4"), ring);
    std::vector<uint32_t> slots(16);
    std::iota(slots.begin(), slots.end(), 0u);
    cp::AnnealParams a;
    a.trials = 100;
    const auto cost = [&](const std::vector<uint32_t> &pi) { return ev.with_tiebreak(pi, true); };
    const cp::AnnealResult whole = cp::anneal(16, slots, cost, a);
    EXPECT_FALSE(whole.cut);
    EXPECT_EQ(whole.levels.size(), cp::levels_of(a));
    uint32_t asked = 0;
    a.out_of_time = [&] { return ++asked == 20; };  // after 320 moves: in level 4
    const cp::AnnealResult cut = cp::anneal(16, slots, cost, a);
    EXPECT_TRUE(cut.cut);
    EXPECT_EQ(asked, 20u);
    EXPECT_EQ(cut.levels.size(), 4u);
    EXPECT_EQ(std::set<uint32_t>(cut.slot.begin(), cut.slot.end()).size(), 16u);
    EXPECT_EQ(cut.cost, ev.with_tiebreak(cut.map, true));
    EXPECT_LE(whole.cost, cut.cost);
}

// eq1_ports (and Eq1Moves) counts in its own arrays what
// model::collisions() counts, with one port a rank, two, or links only:
// the same value on random placements of patterns whose tasks send and
// receive several messages a step, one or several tasks a node.
TEST(Place, PortsObjectiveIsCollisionsOwnCount) {
    std::mt19937_64 rng(5);
    for (const char *net : {"torus:4x2x2", "torus:4x2x2:ports=2", "torus:4x2x2:ports=all"})
        for (const char *spec :
             {"allgather:bruck:16:4K", "bcast:binomial:16", "bcast:knomial:4:16", "allgather:tree:8", "gather"}) {
            cp::Pattern p;
            std::string why;
            if (std::string(spec) == "gather")  // four to one at once, then one to four: each port's count decides
                p = of_ccs(5, {{{0, 4, 64}, {1, 4, 64}, {2, 4, 64}, {3, 4, 64}}, {{4, 0, 64}, {4, 1, 64}, {4, 2, 64}}});
            else
                ASSERT_TRUE(cp::parse_pattern(spec, &p, &why)) << why;
            cm::Topology t = topo(net);
            cp::Evaluator ev(t, p);
            cp::Eq1Moves moves(ev, true, false);
            for (int trial = 0; trial < 20; ++trial) {
                std::vector<uint32_t> pi(p.tasks);
                for (uint32_t &n : pi) n = static_cast<uint32_t>(rng() % t.nodes());  // several tasks a node, at times
                double want = 0;
                t.map = pi;
                for (const cp::Ccs &c : p.ccs) {
                    std::vector<std::pair<uint32_t, uint32_t>> msgs;
                    for (const cp::Message &m : c) msgs.emplace_back(m.src, m.dst);
                    const std::vector<uint32_t> coll = cm::collisions(&t, msgs);
                    double slowest = 0;
                    for (size_t i = 0; i < c.size(); ++i) slowest = std::max(slowest, double(c[i].bytes) * coll[i]);
                    want += slowest / cp::kSeedBandwidth;
                }
                EXPECT_DOUBLE_EQ(ev.eq1_ports(pi), want) << net << " " << spec << " trial " << trial;
                EXPECT_DOUBLE_EQ(moves.reset(pi), want) << net << " " << spec << " trial " << trial;
            }
        }
}
