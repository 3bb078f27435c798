// The algorithm of a handle: chosen by the model unless forced, visible
// with acp_query_col_algorithm, the same on every member; forced by
// acp_set_col_algorithm, ACP_COL_*_ALGO or the C++ API; members that
// choose differently, and unusable model inputs, fail create with a reason.
#include <chrono>
#include <fstream>
#include <optional>
#include <set>

#include "../report_util.hpp"
#include "col_util.hpp"
#include "acpx/collectives.hpp"
#include "middle/choose.hpp"
#include "middle/col.hpp"
#include "collectives/model/predict.hpp"

using namespace acpx::test;
namespace cm = acpx::collectives::model;

namespace {

// A calibration where every copy costs `latency` plus `per_byte` a byte,
// within a node and between nodes (a file without the network's curves
// would get the built-in ones), written to a file of this rank's own (no
// two ranks write one file), named after its figures (the library
// reloads when ACP_CALIBRATION changes).
std::string calibration_file(double latency, double per_byte, cm::Calibration *cal) {
    cal->comm = cal->comm_net = cm::Samples({{0, latency}, {1 << 20, latency + per_byte * (1 << 20)}});
    cal->memcpy = cm::Samples({{0, 0}, {1 << 20, 1e-4}});
    const std::string path = testing::TempDir() + "acpx_choice_" + std::to_string(me()) + "_" +
                             std::to_string(getpid()) + "_" + std::to_string(latency) + ".json";
    std::ofstream(path) << cm::to_json(*cal);
    return path;
}

std::vector<int> everyone() { return make_group(Shape::kAll); }

// What the coordinator's place_members chooses at create for a round of
// 1 MiB of `kind`, forced to `algo`, over group g (root 0 for a bcast):
// list index j played by member (*order)[j]; empty: the group's order.
bool placement_of(acpx::middle::Kind kind, uint8_t algo, const std::vector<int> &g, uint32_t trials,
                  std::vector<uint32_t> *order) {
    acpx::middle::Params p;
    p.kind = kind;
    p.algo = algo;
    p.members = static_cast<uint32_t>(g.size());
    p.root = 0;
    p.size = 1 << 20;
    p.place_trials = trials;
    double predicted = 0;
    return acpx::middle::place_members("test", acpx::middle::State::get(), g, p, order, &predicted);
}

// The network create models a group on when ACP_TOPOLOGY names none
// (middle::nodes_of; one node: none).
const cm::Topology *network(const cm::Topology &nodes) { return nodes.nodes() > 1 ? &nodes : nullptr; }

// c as create models it: the members' nodes given where they are several
// (the hierarchical trees are candidates then).
cm::Case as_create(cm::Case c, const cm::Topology &nodes) {
    if (nodes.nodes() > 1) c.nodes = std::make_shared<const std::vector<uint32_t>>(nodes.map);
    return c;
}

}  // namespace

TEST(Choice, ModelPicksTheSameAlgorithmOnEveryMemberAndItRuns) {
    for (double latency : {1e-3, 0.0}) {
        cm::Calibration cal;
        const std::string path = calibration_file(latency, 1e-9, &cal);
        ScopedEnv use("ACP_CALIBRATION", path);
        std::vector<int> g = everyone();
        const int n = static_cast<int>(g.size());
        std::vector<unsigned char> a(1 << 16);
        acp_col_t h = acp_create_bcast_direct(0, n, g.data(), a.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        cm::Case c;
        c.op = cm::Op::kBcast;
        c.members = static_cast<uint32_t>(n);
        c.bytes = a.size();
        c.inline_bytes = 1 << 16;  // the handle's size: its rounds fit its inline slot
        const cm::Topology nodes = acpx::middle::nodes_of(g);
        EXPECT_EQ(std::string(acp_query_col_algorithm(h)),
                  cm::algo_name(cm::best(as_create(c, nodes), cal, network(nodes))));
        // Each copy costing 1 ms whatever its size: the fewest steps, which
        // from 4 members up is the 4-nomial tree (the root sends to all).
        if (latency > 0 && n >= 4) {
            EXPECT_STREQ(acp_query_col_algorithm(h), "knomial:4");
        }
        fill_pattern(a.data(), a.size(), 5);
        if (me() != 0) std::fill(a.begin(), a.end(), 0);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);
        EXPECT_EQ(first_mismatch(a.data(), a.size(), 5), -1) << acp_query_col_algorithm(h);
        EXPECT_EQ(acp_free_col(h), 0);

        std::vector<unsigned char> all(a.size() * g.size());
        h = acp_create_allgather_direct(n, g.data(), all.data(), a.size());
        ASSERT_NE(h, ACP_COL_NULL);
        c.op = cm::Op::kAllgather;
        c.inline_bytes = 0;  // above every inline size at this blocksize
        EXPECT_EQ(std::string(acp_query_col_algorithm(h)),
                  cm::algo_name(cm::best(as_create(c, nodes), cal, network(nodes))));
        EXPECT_EQ(acp_free_col(h), 0);
        std::remove(path.c_str());
    }
    EXPECT_EQ(acp_query_col_algorithm(ACP_COL_NULL), nullptr);
    EXPECT_EQ(acp_sync(), 0);
}

// A group across nodes (the suite run on two hosts by two_hosts.sh,
// ACPX_TEST_NODES=2) is modelled as its nodes on a switch, where their
// messages to the other node share its port: 4 members on 2 nodes with
// every copy 1 us + 1 ns a byte, the ring (one message a port a step),
// where one node ties five and takes the first (tree). Create picks that,
// and the handle delivers across and within the nodes.
TEST(Choice, AGroupAcrossNodesIsModelledAsItsNodesOnASwitch) {
    std::vector<int> g = everyone();
    const cm::Topology nodes = acpx::middle::nodes_of(g);
    if (const char *want = std::getenv("ACPX_TEST_NODES")) {
        ASSERT_EQ(nodes.nodes(), std::stoul(want)) << "two_hosts.sh did not make the nodes";
    }
    if (nodes.nodes() < 2) GTEST_SKIP() << "the job runs on one node";
    cm::Calibration cal;
    const std::string path = calibration_file(1e-6, 1e-9, &cal);
    ScopedEnv use("ACP_CALIBRATION", path);
    const int n = static_cast<int>(g.size());
    int differ = 0;
    for (size_t block : {size_t{1} << 16, size_t{1} << 20}) {
        std::vector<unsigned char> all(block * g.size());
        acp_col_t h = acp_create_allgather_direct(n, g.data(), all.data(), block);
        ASSERT_NE(h, ACP_COL_NULL);
        cm::Case c;
        c.op = cm::Op::kAllgather;
        c.members = static_cast<uint32_t>(n);
        c.bytes = block;
        const std::string on_switch = cm::algo_name(cm::best(as_create(c, nodes), cal, &nodes));
        EXPECT_EQ(acp_query_col_algorithm(h), on_switch) << block;
        differ += on_switch != cm::algo_name(cm::best(c, cal, nullptr));
        const size_t mine = static_cast<size_t>(index_in(g, me()));
        fill_pattern(all.data() + mine * block, block, 11 + me());
        ASSERT_EQ(acp_wait_col(acp_send_allgather_direct(h, 0, block)), 0);
        for (size_t b = 0; b < g.size(); ++b)
            EXPECT_EQ(first_mismatch(all.data() + b * block, block, 11 + g[b]), -1) << "block " << b;
        EXPECT_EQ(acp_free_col(h), 0);
    }
    // Else the switch changed nothing here, and this test shows nothing.
    EXPECT_GT(differ, 0);
    std::remove(path.c_str());
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Choice, ForcedBySetCallOverEnvironment) {
    std::vector<int> g = everyone();
    const int n = static_cast<int>(g.size());
    auto bcast_algo = [&] {
        acp_col_t h = acp_create_bcast_buffered(0, n, g.data(), 64);
        EXPECT_NE(h, ACP_COL_NULL);
        std::string name = h ? acp_query_col_algorithm(h) : "";
        acp_free_col(h);
        return name;
    };
    {
        ScopedEnv env("ACP_COL_BCAST_ALGO", "binary");
        EXPECT_EQ(bcast_algo(), "binary");
        ASSERT_EQ(acp_set_col_algorithm("knomial:3", nullptr), 0);
        EXPECT_EQ(bcast_algo(), "knomial:3");
        ASSERT_EQ(acp_set_col_algorithm("", nullptr), 0);  // back to the variable
        EXPECT_EQ(bcast_algo(), "binary");
    }
    ASSERT_EQ(acp_set_col_algorithm("chain", "ring"), 0);
    EXPECT_EQ(bcast_algo(), "chain");
    std::vector<char> all(8 * g.size());
    acp_col_t h = acp_create_allgather_direct(n, g.data(), all.data(), 8);
    ASSERT_NE(h, ACP_COL_NULL);
    EXPECT_STREQ(acp_query_col_algorithm(h), "ring");
    EXPECT_EQ(acp_free_col(h), 0);
    // Unknown names change nothing.
    int r = 0;
    EXPECT_REPORTS(stderr_of([&] { r = acp_set_col_algorithm("fastest", nullptr); }), "acp_set_col_algorithm", "bcast");
    EXPECT_EQ(r, -1);
    EXPECT_REPORTS(stderr_of([&] { r = acp_set_col_algorithm(nullptr, "knomial"); }), "acp_set_col_algorithm",
                   "allgather");
    EXPECT_EQ(r, -1);
    EXPECT_EQ(bcast_algo(), "chain");
    // Hierarchical forms: of the trees and the chain, and of the
    // allgather's per-block tree; not of the multi-block bcasts.
    ASSERT_EQ(acp_set_col_algorithm("hier:knomial:3", "hier:tree"), 0);
    EXPECT_EQ(bcast_algo(), "hier:knomial:3");
    h = acp_create_allgather_direct(n, g.data(), all.data(), 8);
    ASSERT_NE(h, ACP_COL_NULL);
    EXPECT_STREQ(acp_query_col_algorithm(h), "hier:tree");
    EXPECT_EQ(acp_free_col(h), 0);
    const std::string no_form = stderr_of([&] { r = acp_set_col_algorithm("hier:pipeline", nullptr); });
    EXPECT_REPORTS(no_form, "acp_set_col_algorithm", "bcast");
    EXPECT_NE(no_form.find("no hierarchical form"), std::string::npos) << no_form;
    EXPECT_EQ(r, -1);
    EXPECT_REPORTS(stderr_of([&] { r = acp_set_col_algorithm(nullptr, "hier:ring"); }), "acp_set_col_algorithm",
                   "allgather");
    EXPECT_EQ(r, -1);
    EXPECT_EQ(bcast_algo(), "hier:knomial:3");
    ASSERT_EQ(acp_set_col_algorithm("", ""), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Choice, MembersThatChooseDifferentlyAllFailNamingIt) {
    if (np() < 2) GTEST_SKIP() << "needs two members";
    std::vector<int> g = everyone();
    if (me() == 0) {
        ASSERT_EQ(acp_set_col_algorithm("binary", nullptr), 0);
    }
    acp_col_t h = ACP_COL_NULL;
    const std::string err =
        stderr_of([&] { h = acp_create_bcast_buffered(0, static_cast<int>(g.size()), g.data(), 64); });
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_NE(err.find("algorithm"), std::string::npos) << err;
    ASSERT_EQ(acp_set_col_algorithm("", nullptr), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Choice, TheLowestRankChoosesForAll) {
    if (np() < 2) GTEST_SKIP() << "needs two members";
    std::vector<int> g = everyone();
    // Only rank 0 (the group's lowest) models: the others' calibration,
    // unreadable here, is never read, and they take its choice.
    std::optional<ScopedEnv> unread;
    if (me() != 0) unread.emplace("ACP_CALIBRATION", "/nonexistent/calibration.json");
    char name[64] = {};
    const acp_col_t h = acp_create_bcast_direct(0, static_cast<int>(g.size()), g.data(), name, sizeof name);
    ASSERT_NE(h, ACP_COL_NULL);
    if (me() == 0) std::snprintf(name, sizeof name, "%s", acp_query_col_algorithm(h));
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, sizeof name)), 0);
    EXPECT_STREQ(name, acp_query_col_algorithm(h));  // rank 0's, on every rank
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Choice, UnusableModelInputsFailCreate) {
    std::vector<int> g = everyone();
    const int n = static_cast<int>(g.size());
    acp_col_t h = ACP_COL_NULL;
    if (n >= 2) {  // one member needs no model
        {
            // The lowest rank chooses; the others report its reason.
            ScopedEnv bad("ACP_TOPOLOGY", "torus:4x0");
            const std::string err = stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); });
            EXPECT_REPORTS(err, "acp_create_bcast_buffered", "ACP_TOPOLOGY");
            EXPECT_NE(err.find("'4x0'"), std::string::npos) << err;
            if (me() != 0) {
                EXPECT_NE(err.find("on rank 0 (the group's lowest rank"), std::string::npos) << err;
            }
            EXPECT_EQ(h, ACP_COL_NULL);
        }
        {
            ScopedEnv bad("ACP_CALIBRATION", "/nonexistent/calibration.json");
            EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); }),
                           "acp_create_bcast_buffered", "ACP_CALIBRATION");
            EXPECT_EQ(h, ACP_COL_NULL);
        }
        {
            ScopedEnv odd("ACP_COL_ALLGATHER_ALGO", "neighbor");
            if (n % 2) {
                EXPECT_REPORTS(stderr_of([&] { h = acp_create_allgather_buffered(n, g.data(), 64); }),
                               "acp_create_allgather_buffered", "ACP_COL_ALLGATHER_ALGO");
                EXPECT_EQ(h, ACP_COL_NULL);
            }
        }
        {
            // "none" names no network: one fully connected node, as unset.
            ScopedEnv none("ACP_TOPOLOGY", "none");
            h = acp_create_bcast_buffered(0, n, g.data(), 64);
            ASSERT_NE(h, ACP_COL_NULL);
            EXPECT_EQ(acp_free_col(h), 0);
        }
        // A torus the group fits on is used, and the handle works.
        ScopedEnv torus("ACP_TOPOLOGY", "torus:" + std::to_string(n) + ":order=X");
        h = acp_create_bcast_buffered(0, n, g.data(), 64);
        ASSERT_NE(h, ACP_COL_NULL);
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST(Choice, CxxApiForcesOneHandle) {
    std::vector<int> g = everyone();
    std::vector<double> v(4 * g.size());
    {
        acpx::AllgatherDirect ag{std::span<const int>(g), std::span(v), 4 * sizeof(double), acpx::Algorithm{"bruck"}};
        EXPECT_STREQ(ag.algorithm(), "bruck");
        std::fill(v.begin(), v.end(), 0.0);
        for (int k = 0; k < 4; ++k) v[index_in(g, me()) * 4 + k] = me() * 10 + k;
        ag.send(0, 4 * sizeof(double)).wait();
        for (size_t b = 0; b < g.size(); ++b)
            for (int k = 0; k < 4; ++k) EXPECT_EQ(v[b * 4 + k], g[b] * 10 + k);
    }
    {
        ScopedEnv env("ACP_COL_ALLGATHER_ALGO", "ring");
        acpx::AllgatherDirect again{std::span<const int>(g), std::span(v), 4 * sizeof(double)};
        EXPECT_STREQ(again.algorithm(), "ring");  // the forcing ended with its create
    }
    EXPECT_THROW(acpx::BcastBuffered(0, std::span<const int>(g), 64, acpx::Algorithm{"telepathy"}), acpx::Error);
    EXPECT_EQ(acp_sync(), 0);
}

// ACP_COL_PLACE=tac3: on a line of nodes (rank r on node r) a binomial
// bcast's second step, 0 -> 2 and 1 -> 3, crosses the link 1 -> 2 twice;
// placing list member 2 on node 1 and 1 on node 2 takes it off. Every
// member computes the coordinator's placement alike (a permutation that
// keeps the root), rounds of every root deliver the root's bytes on every
// member, direct and buffered, in both execution modes; without a
// network to place on, or with a bad value, create fails naming the
// variable.
TEST(Choice, PlacedBcastMembersKeepTheRootAndDeliverEverywhere) {
    std::vector<int> g = everyone();
    const int n = static_cast<int>(g.size());
    if (n < 3) GTEST_SKIP() << "placement starts at 3 members";
    ScopedEnv line("ACP_TOPOLOGY", "mesh:" + std::to_string(n));
    ScopedEnv algo("ACP_COL_BCAST_ALGO", "binomial");
    ScopedEnv place("ACP_COL_PLACE", "tac3:100");
    std::vector<uint32_t> order;
    ASSERT_TRUE(placement_of(acpx::middle::Kind::kBcast, static_cast<uint8_t>(acpx::collectives::BcastAlgo::kBinomial),
                             g, 100, &order));
    if (n >= 4) {
        ASSERT_EQ(order.size(), static_cast<size_t>(n)) << "the group's order collides: placing gains";
        EXPECT_EQ(order[0], 0u);
        EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), static_cast<size_t>(n));
        EXPECT_NE(order, [&] {
            std::vector<uint32_t> id(n);
            for (int i = 0; i < n; ++i) id[i] = static_cast<uint32_t>(i);
            return id;
        }());
    }
    for (const char *exec : {"delegated", "root"}) {
        ScopedEnv mode("ACP_COL_EXEC", exec);
        for (int root = 0; root < n; ++root) {
            std::vector<unsigned char> a(5000);
            acp_col_t h = acp_create_bcast_direct(root, n, g.data(), a.data(), a.size());
            ASSERT_NE(h, ACP_COL_NULL) << exec << " root " << root;
            for (uint64_t round = 0; round < 3; ++round) {
                std::fill(a.begin(), a.end(), 0xEE);
                if (me() == root) fill_pattern(a.data(), a.size(), round * 31 + root);
                acp_request_t r = acp_send_bcast_direct(h, 0, a.size());
                ASSERT_NE(r, ACP_REQUEST_NULL);
                ASSERT_EQ(acp_wait_col(r), 0);
                EXPECT_EQ(first_mismatch(a.data(), a.size(), round * 31 + root), -1) << exec << " root " << root;
            }
            EXPECT_EQ(acp_free_col(h), 0);
            acp_col_t b = acp_create_bcast_buffered(root, n, g.data(), 3000);
            ASSERT_NE(b, ACP_COL_NULL);
            std::vector<unsigned char> buf(3000, 0xEE);
            if (me() == root) fill_pattern(buf.data(), buf.size(), 7 + root);
            acp_request_t r = acp_send_bcast_buffered(b, buf.data(), buf.size());
            ASSERT_NE(r, ACP_REQUEST_NULL);
            ASSERT_EQ(acp_wait_col(r), 0);
            EXPECT_EQ(first_mismatch(buf.data(), buf.size(), 7 + root), -1) << exec << " root " << root;
            EXPECT_EQ(acp_free_col(b), 0);
        }
    }
    {
        ScopedEnv none("ACP_TOPOLOGY", "none");
        acp_col_t h = ACP_COL_NULL;
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); }),
                       "acp_create_bcast_buffered", "ACP_COL_PLACE");
        EXPECT_EQ(h, ACP_COL_NULL);
    }
    {
        ScopedEnv bad("ACP_COL_PLACE", "tac4");
        acp_col_t h = ACP_COL_NULL;
        EXPECT_REPORTS(stderr_of([&] { h = acp_create_bcast_buffered(0, n, g.data(), 64); }),
                       "acp_create_bcast_buffered", "ACP_COL_PLACE");
        EXPECT_EQ(h, ACP_COL_NULL);
    }
    EXPECT_EQ(acp_sync(), 0);
}

// ACP_COL_PLACE=tac3 places an allgather's members too. With ranks 1 and
// 2 on each other's nodes of a line (ACP_TOPOLOGY_MAP), a ring's copies
// 0 -> 1 and 2 -> 3 share the link from node 1 to node 2 and placing
// takes them apart (4 members or more). A placed handle's list places are
// not the group's, yet each member's block lands at its group index in
// every array: every algorithm, both execution modes, direct (in the
// inline slots and above them) and buffered (apart and in place, in one
// segment and in three).
TEST(Choice, PlacedAllgatherBlocksLandAtTheirMembersPlaces) {
    const std::vector<int> g = everyone();
    const int n = static_cast<int>(g.size());
    if (n < 3) GTEST_SKIP() << "placement starts at 3 members";
    const std::string map = "/tmp/acpx-choice-map-" + std::to_string(getpid());
    {
        std::ofstream f(map);
        for (int r = 0; r < n; ++r) f << (r == 1 ? 2 : r == 2 ? 1 : r) << "\n";
    }
    ScopedEnv line("ACP_TOPOLOGY", "mesh:" + std::to_string(n));
    ScopedEnv nodes("ACP_TOPOLOGY_MAP", map);
    ScopedEnv place("ACP_COL_PLACE", "tac3:100");
    std::vector<uint32_t> order;
    ASSERT_TRUE(placement_of(acpx::middle::Kind::kAllgather,
                             static_cast<uint8_t>(acpx::collectives::AllgatherAlgo::kRing), g, 100, &order));
    if (n >= 4) {
        ASSERT_EQ(order.size(), static_cast<size_t>(n)) << "the group's order collides: placing gains";
        EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), static_cast<size_t>(n));
    }
    const int mine = index_in(g, me());
    const uint64_t seed = 900;
    std::vector<const char *> algos = {"tree", "ring", "bruck", "recdoubling"};
    if (n % 2 == 0) algos.push_back("neighbor");
    for (const char *algo : algos)
        for (const char *exec : {"delegated", "root"}) {
            ScopedEnv a("ACP_COL_ALLGATHER_ALGO", algo);
            ScopedEnv mode("ACP_COL_EXEC", exec);
            const std::string what = std::string(algo) + " " + exec;
            constexpr size_t kBlock = 40000;
            std::vector<unsigned char> v(n * kBlock);
            acp_col_t h = acp_create_allgather_direct(n, const_cast<int *>(g.data()), v.data(), kBlock);
            ASSERT_NE(h, ACP_COL_NULL) << what;
            for (const size_t size : {size_t{24}, kBlock})
                for (uint64_t round = 0; round < 2; ++round) {
                    std::fill(v.begin(), v.end(), 0xEE);
                    fill_pattern(v.data() + mine * kBlock, size, seed + round * 97 + size + me());
                    acp_request_t r = acp_send_allgather_direct(h, 0, size);
                    ASSERT_NE(r, ACP_REQUEST_NULL) << what;
                    ASSERT_EQ(acp_wait_col(r), 0) << what;
                    for (int b = 0; b < n; ++b)
                        EXPECT_EQ(first_mismatch(v.data() + b * kBlock, size, seed + round * 97 + size + g[b]), -1)
                            << what << " direct, " << size << " B: block " << b;
                }
            EXPECT_EQ(acp_free_col(h), 0);
            constexpr size_t kBuffer = 3000;
            acp_col_t bh = acp_create_allgather_buffered(n, const_cast<int *>(g.data()), kBuffer);
            ASSERT_NE(bh, ACP_COL_NULL) << what;
            for (const size_t size : {size_t{2000}, 3 * kBuffer})
                for (const bool in_place : {false, true}) {
                    std::vector<unsigned char> out(n * size, 0xEE), apart(size);
                    unsigned char *in = in_place ? out.data() + mine * size : apart.data();
                    fill_pattern(in, size, seed + size + in_place + me());
                    acp_request_t r = acp_send_allgather_buffered(bh, in, out.data(), size);
                    ASSERT_NE(r, ACP_REQUEST_NULL) << what;
                    ASSERT_EQ(acp_wait_col(r), 0) << what;
                    for (int b = 0; b < n; ++b)
                        EXPECT_EQ(first_mismatch(out.data() + b * size, size, seed + size + in_place + g[b]), -1)
                            << what << " buffered" << (in_place ? " in place" : "") << ", " << size << " B: block "
                            << b;
                }
            EXPECT_EQ(acp_free_col(bh), 0);
        }
    std::remove(map.c_str());
    EXPECT_EQ(acp_sync(), 0);
}

// ACP_COL_PLACE's search keeps to a quarter of ACP_TIMEOUT, for the other
// members wait that long for the coordinator's choice. A ring allgather's
// steps hold every member's message: at 256 members on an 8x8x4 torus the
// whole search (250 trials a level) takes 8 s on the 2-core VM. Here it
// ends in time, with a permutation or the group's order.
TEST(PlaceTimeout, TheSearchKeepsToAQuarterOfTheTimeout) {
    const double timeout = acpx::basic::layer::timeout_seconds();
    if (timeout > 5) GTEST_SKIP() << "needs ACP_TIMEOUT <= 5: test/suites/middle_timeout_np2.sh runs it";
    constexpr uint32_t kMembers = 256;
    std::vector<int> g(kMembers);  // a pure search: rank r on node r of the torus
    for (uint32_t i = 0; i < kMembers; ++i) g[i] = static_cast<int>(i);
    ScopedEnv torus("ACP_TOPOLOGY", "torus:8x8x4");
    ScopedEnv place("ACP_COL_PLACE", "tac3");
    std::vector<uint32_t> order;
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(placement_of(acpx::middle::Kind::kAllgather,
                             static_cast<uint8_t>(acpx::collectives::AllgatherAlgo::kRing), g, 250, &order));
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(took, timeout / 4 + 0.5);
    if (!order.empty()) {
        EXPECT_EQ(std::set<uint32_t>(order.begin(), order.end()).size(), size_t{kMembers});
    }
}
