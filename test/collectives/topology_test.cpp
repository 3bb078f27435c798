// Topologies and routes in one process: the ACP_TOPOLOGY spec, routes on
// a torus, and collision counts checked by hand (seed 003 Fig. 3; ring and
// Bruck on 1x6x4 and 2x3x4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

#include "collectives/model/predict.hpp"
#include "model_fixtures.hpp"

using namespace acpx::collectives;
using namespace acpx::collectives::model;
using namespace model_fixtures;

namespace {

// Max collisions among the messages "rank i -> rank i + dist" for all i.
uint32_t shift_collisions(const Topology &t, uint32_t procs, int dist) {
    std::vector<std::pair<uint32_t, uint32_t>> msgs;
    for (uint32_t i = 0; i < procs; ++i)
        msgs.emplace_back(i, static_cast<uint32_t>((static_cast<int>(i) + dist + static_cast<int>(procs)) % procs));
    uint32_t most = 0;
    for (uint32_t c : collisions(&t, msgs)) most = std::max(most, c);
    return most;
}

}  // namespace

TEST(TopologySpec, ParsesShapesOrdersAndWraps) {
    Topology t = topo("torus:4x2x8x2x3x2:order=XYZACB");
    EXPECT_EQ(t.dims, (std::vector<uint32_t>{4, 2, 8, 2, 3, 2}));
    EXPECT_EQ(t.order, (std::vector<uint32_t>{0, 1, 2, 3, 5, 4}));
    EXPECT_EQ(t.nodes(), 768u);
    EXPECT_EQ(t.describe(), "torus 4x2x8x2x3x2 order XYZACB");
    t = topo("mesh:4x4");
    EXPECT_EQ(t.wrap, (std::vector<bool>{false, false}));
    t = topo("mesh:4x4x2:wrap=101");
    EXPECT_EQ(t.wrap, (std::vector<bool>{true, false, true}));
    Topology bad;
    std::string why;
    for (const char *s : {"ring:4", "torus", "torus:4x0", "torus:4xq", "torus:4x4:order=XZ", "torus:4x4:order=XX",
                          "torus:4x4:order=Y", "mesh:4x4:wrap=1", "mesh:4x4:speed=fast", "torus:4x4:ports=0",
                          "torus:4x4:ports=65", "torus:4x4:ports=some", "switch:4:ports=2"})
        EXPECT_FALSE(parse_topology(s, &bad, &why)) << s;
    // "none" (as empty) names no network: the caller costs one fully connected node.
    EXPECT_TRUE(is_no_topology("none"));
    EXPECT_TRUE(is_no_topology(""));
    EXPECT_FALSE(is_no_topology("torus:4"));
    EXPECT_FALSE(is_no_topology("None"));
}

// switch:N: a message between two nodes crosses its sender node's port up
// and its receiver node's port down, and no other link.
TEST(TopologySpec, ASwitchIsItsNodesPorts) {
    const Topology t = topo("switch:16");
    EXPECT_TRUE(t.switched);
    EXPECT_EQ(t.nodes(), 16u);
    EXPECT_EQ(t.describe(), "switch of 16 nodes");
    auto r = route(t, 3, 12);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0] == (Link{3, 0, 1}) && r[1] == (Link{12, 0, -1}));
    EXPECT_TRUE(route(t, 5, 5).empty());
    Topology bad;
    std::string why;
    for (const char *s :
         {"switch", "switch:", "switch:0", "switch:x", "switch:16777217", "switch:4:order=X", "switch:4x4"})
        EXPECT_FALSE(parse_topology(s, &bad, &why)) << s;
    EXPECT_TRUE(parse_topology("switch:16777216", &bad, &why)) << why;
    // A map file reads against its nodes.
    const std::string path = ::testing::TempDir() + "switch_map.txt";
    std::ofstream(path) << "0\n0\n# the second node\n1\n1\n";
    Topology two = topo("switch:2");
    ASSERT_TRUE(read_node_map(path, &two, &why)) << why;
    EXPECT_EQ(two.map, (std::vector<uint32_t>{0, 0, 1, 1}));
    Topology one = topo("switch:1");
    EXPECT_FALSE(read_node_map(path, &one, &why));
    std::remove(path.c_str());
}

// The runtime's node ids (equal on one node, any values) become a
// switch numbering the nodes as they first appear.
TEST(TopologySpec, AJobsNodeIdsMakeASwitch) {
    Topology t = switch_of_nodes({77, 77, 5, 77, 5, 901});
    EXPECT_TRUE(t.switched);
    EXPECT_EQ(t.nodes(), 3u);
    EXPECT_EQ(t.map, (std::vector<uint32_t>{0, 0, 1, 0, 1, 2}));
    t = switch_of_nodes({42, 42, 42});
    EXPECT_EQ(t.nodes(), 1u);
    EXPECT_EQ(t.map, (std::vector<uint32_t>{0, 0, 0}));
    EXPECT_EQ(switch_of_nodes({}).nodes(), 1u);
}

// Messages leaving one node share its port up, those entering one its
// port down; copies within a node share its cores, as without a topology.
TEST(Collisions, OnASwitchANodesMessagesShareItsPorts) {
    Topology t = topo("switch:3");
    t.map = {0, 0, 0, 1, 1, 2};
    // 0 -> 3 and 1 -> 4 leave node 0 together; 2 -> 5 too: 3 up node 0's
    // port. Node 1 receives two, node 2 one. 3 -> 4 stays on node 1.
    const std::vector<std::pair<uint32_t, uint32_t>> step = {{0, 3}, {1, 4}, {2, 5}, {3, 4}};
    EXPECT_EQ(collisions(&t, step), (std::vector<uint32_t>{3, 3, 3, 2}));
    // Two ways out of node 0, two nodes: each message alone on its links.
    EXPECT_EQ(collisions(&t, {{0, 3}, {4, 5}}), (std::vector<uint32_t>{1, 1}));
    // With cores = 1 node 1's two on-node copies wait for each other.
    EXPECT_EQ(collisions(&t, {{0, 1}, {1, 2}}, 1), (std::vector<uint32_t>{2, 2}));
    // Per message, the copies within its node (0: between two nodes).
    std::vector<uint32_t> on_node;
    collisions(&t, {{0, 1}, {1, 2}, {0, 3}, {3, 4}}, 0, &on_node);
    EXPECT_EQ(on_node, (std::vector<uint32_t>{2, 2, 0, 1}));
    // On a large switch, few messages: counted in a map, the same answer.
    Topology big = topo("switch:100000");
    big.map = {0, 0, 0, 1, 1, 2};
    EXPECT_EQ(collisions(&big, step), (std::vector<uint32_t>{3, 3, 3, 2}));
}

TEST(Routes, ShorterWayRoundEachRingInDimensionOrder) {
    Topology t = topo("torus:8");
    auto r = route(t, 1, 6);  // 1 -> 0 -> 7 -> 6, not five hops up
    ASSERT_EQ(r.size(), 3u);
    EXPECT_TRUE(r[0] == (Link{1, 0, -1}) && r[1] == (Link{0, 0, -1}) && r[2] == (Link{7, 0, -1}));
    r = route(topo("torus:4"), 0, 2);  // a tie goes the positive way
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].dir, 1);
    r = route(topo("mesh:8"), 1, 6);  // a mesh has no way round
    EXPECT_EQ(r.size(), 5u);
    // (0,0) -> (1,1) on 4x4: X first by default, Y first with order=YX.
    r = route(topo("torus:4x4"), 0, 5);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0] == (Link{0, 0, 1}) && r[1] == (Link{1, 1, 1}));
    r = route(topo("torus:4x4:order=YX"), 0, 5);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_TRUE(r[0] == (Link{0, 1, 1}) && r[1] == (Link{4, 0, 1}));
}

// In bytes: a message's busiest link or port carries the bytes of every
// message on it. Alike messages: collisions() x M; unlike ones: the sum,
// not the count times the largest.
TEST(Collisions, SharedBytesAddTheMessagesOnTheBusiestLinkOrPort) {
    Topology t = topo("mesh:4");
    t.map = {0, 2, 1, 3};  // seed Figure 3, allocation 1: a -> b and c -> d share c -> b's link
    const std::vector<std::pair<uint32_t, uint32_t>> step = {{0, 1}, {2, 3}};
    EXPECT_EQ(shared_bytes(&t, step, {1000, 1000}), (std::vector<uint64_t>{2000, 2000}));
    EXPECT_EQ(shared_bytes(&t, step, {1 << 20, 1 << 16}),
              (std::vector<uint64_t>{(1 << 20) + (1 << 16), (1 << 20) + (1 << 16)}));
    t.map = {0, 1, 2, 3};  // allocation 2: disjoint, each its own bytes
    EXPECT_EQ(shared_bytes(&t, step, {1 << 20, 1 << 16}), (std::vector<uint64_t>{1 << 20, 1 << 16}));
    // Ports: rank 0 sends 3 messages of 1, 2 and 4 KiB (7 KiB through its
    // port); rank 4's message into rank 3 shares 3's port with 0's 4 KiB.
    const std::vector<std::pair<uint32_t, uint32_t>> fan = {{0, 1}, {0, 2}, {0, 3}, {4, 3}};
    EXPECT_EQ(shared_bytes(nullptr, fan, {1024, 2048, 4096, 512}), (std::vector<uint64_t>{7168, 7168, 7168, 4608}));
    // On a switch of many nodes (a map of the links, not an array): the same.
    Topology big = topo("switch:100000");
    big.map = {0, 0, 0, 1, 1, 2};  // 0 -> 3, 1 -> 4 leave node 0 together; 2 -> 5 too
    EXPECT_EQ(shared_bytes(&big, {{0, 3}, {1, 4}, {2, 5}}, {10, 20, 30}), (std::vector<uint64_t>{60, 60, 60}));
}

// ports=P: a rank's messages at once go P at a time through its
// injection (and ejection) ports; ports=all leaves only the links shared.
// Rank 5 of a 4x4 torus sends to its four neighbours, each over a link of
// its own: one port serialises them (4), two halve that, four or all let
// them go at once; two messages over one link (to 7, two hops away, and
// to 6 on the way) share it whatever the ports.
TEST(Collisions, PortsLetARankSendSeveralMessagesAtOnce) {
    const std::vector<std::pair<uint32_t, uint32_t>> fan = {{5, 4}, {5, 6}, {5, 1}, {5, 9}};
    const std::vector<uint64_t> kib(4, 1024);
    for (const auto &[spec, each] : std::vector<std::pair<std::string, uint32_t>>{
             {"torus:4x4", 4}, {"torus:4x4:ports=2", 2}, {"torus:4x4:ports=4", 1}, {"torus:4x4:ports=all", 1}}) {
        const Topology t = topo(spec);
        EXPECT_EQ(collisions(&t, fan), std::vector<uint32_t>(4, each)) << spec;
        EXPECT_EQ(shared_bytes(&t, fan, kib), std::vector<uint64_t>(4, each * 1024)) << spec;
    }
    EXPECT_EQ(topo("torus:4x4:ports=all").describe(), "torus 4x4 order XY ports all");
    EXPECT_EQ(topo("torus:4x4:ports=3").describe(), "torus 4x4 order XY ports 3");
    const Topology all = topo("torus:4x4:ports=all");
    EXPECT_EQ(collisions(&all, {{5, 7}, {5, 6}}), (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(shared_bytes(&all, {{5, 7}, {5, 6}}, {1000, 24}), (std::vector<uint64_t>{1024, 1024}));
    // Into one rank: its ejection ports, likewise.
    const Topology two = topo("torus:4x4:ports=2");
    EXPECT_EQ(collisions(&two, {{4, 5}, {6, 5}, {1, 5}, {9, 5}}), std::vector<uint32_t>(4, 2));
}

TEST(Collisions, SeedFigure3TwoAllocationsOfOneStep) {
    // Ranks a, b, c, d; the step sends a -> b and c -> d on a line of 4 nodes.
    Topology t = topo("mesh:4");
    const std::vector<std::pair<uint32_t, uint32_t>> step = {{0, 1}, {2, 3}};  // a=0 b=1 c=2 d=3
    t.map = {0, 2, 1, 3};  // allocation 1: a c b d -- both messages cross the link c -> b
    EXPECT_EQ(collisions(&t, step), (std::vector<uint32_t>{2, 2}));
    t.map = {0, 1, 2, 3};  // allocation 2: a b c d -- disjoint
    EXPECT_EQ(collisions(&t, step), (std::vector<uint32_t>{1, 1}));
}

TEST(Collisions, RingAndBruckOnTwoShapesOf24Nodes) {
    // Ring: i -> i+1. Rank i on node i, X fastest. On 1x6x4 every hop is
    // one +Y step (or +Y then +Z at a row's end); on 2x3x4 one X step, or
    // X then Y (then Z); no link carries two messages.
    EXPECT_EQ(shift_collisions(topo("torus:1x6x4"), 24, 1), 1u);
    EXPECT_EQ(shift_collisions(topo("torus:2x3x4"), 24, 1), 1u);
    // Bruck step 0 (i -> i-1) mirrors the ring.
    EXPECT_EQ(shift_collisions(topo("torus:1x6x4"), 24, -1), 1u);
    // Bruck step 1 (i -> i-2): on 1x6x4 two -Y hops, and the link j -> j-1
    // carries the messages of j and of j+1; on 2x3x4 it is one -Y hop.
    EXPECT_EQ(shift_collisions(topo("torus:1x6x4"), 24, -2), 2u);
    EXPECT_EQ(shift_collisions(topo("torus:2x3x4"), 24, -2), 1u);
    // Without a topology only the ports count: one message each way, C = 1.
    std::vector<std::pair<uint32_t, uint32_t>> fan = {{0, 1}, {0, 2}, {0, 3}, {4, 3}};
    EXPECT_EQ(collisions(nullptr, fan), (std::vector<uint32_t>{3, 3, 3, 2}));
}

TEST(Collisions, EveryMessageCountsTheBusiestLinkOfItsRoute) {
    // collisions() counts a step's load in an array of every link when its
    // messages are many for the network, in a map when they are few: both
    // must give what counting each route's links by hand gives (plus the
    // ports: at least what a message's source sends and its destination
    // receives). Random steps of 1 to 400 messages on three shapes, ranks
    // mapped onto nodes in a shuffled order, some nodes holding two.
    std::srand(7);
    for (const char *spec : {"torus:4x4x4", "mesh:8x3", "torus:2x3x4:order=ZXY"}) {
        Topology t = topo(spec);
        const auto nodes = static_cast<uint32_t>(t.nodes());
        t.map.resize(nodes + nodes / 4);
        for (uint32_t r = 0; r < t.map.size(); ++r) t.map[r] = static_cast<uint32_t>(std::rand()) % nodes;
        for (size_t count : {1u, 3u, 10u, 40u, 400u}) {
            std::vector<std::pair<uint32_t, uint32_t>> step;
            for (size_t i = 0; i < count; ++i) {
                const uint32_t s = static_cast<uint32_t>(std::rand()) % t.map.size();
                const uint32_t d = static_cast<uint32_t>(std::rand()) % t.map.size();
                if (s != d) step.emplace_back(s, d);
            }
            std::map<std::tuple<uint64_t, uint32_t, int>, uint32_t> load;
            std::map<uint32_t, uint32_t> sends, recvs;
            for (const auto &[s, d] : step) {
                ++sends[s], ++recvs[d];
                for (const Link &l : route(t, t.node_of(s), t.node_of(d))) ++load[{l.node, l.dim, l.dir}];
            }
            const std::vector<uint32_t> got = collisions(&t, step);
            ASSERT_EQ(got.size(), step.size());
            for (size_t i = 0; i < step.size(); ++i) {
                uint32_t want = std::max(sends[step[i].first], recvs[step[i].second]);
                for (const Link &l : route(t, t.node_of(step[i].first), t.node_of(step[i].second)))
                    want = std::max(want, load[{l.node, l.dim, l.dir}]);
                EXPECT_EQ(got[i], want) << spec << ", " << count << " messages, message " << i;
            }
        }
    }
}
