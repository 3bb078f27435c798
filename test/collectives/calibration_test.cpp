// The model's calibration in one process: interpolation between samples
// (seed 003 eq. 1) and the calibration file (its schema, errors, defaults).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "collectives/model/predict.hpp"
#include "model_fixtures.hpp"

using namespace acpx::collectives;
using namespace acpx::collectives::model;
using namespace model_fixtures;

TEST(Samples, InterpolatesBetweenTheTwoNearest) {
    const Samples s({{300, 9}, {100, 1}, {200, 3}});  // unsorted on purpose
    EXPECT_DOUBLE_EQ(s.at(150), 2);                   // between 100 and 200
    EXPECT_DOUBLE_EQ(s.at(250), 6);                   // between 200 and 300, not a global fit
    EXPECT_DOUBLE_EQ(s.at(200), 3);
    EXPECT_DOUBLE_EQ(s.at(600), 18);  // above: the largest sample's bandwidth
    EXPECT_DOUBLE_EQ(s.at(0), 1);     // below: the smallest sample's time
    EXPECT_DOUBLE_EQ(Samples({{0, 5}}).at(1e6), 5);
    // A noisy calibration whose last pair slopes down never predicts 0.
    EXPECT_DOUBLE_EQ(Samples({{1000, 10}, {2000, 4}}).at(4000), 8);
    // clamped: the same between samples, flat outside them.
    EXPECT_DOUBLE_EQ(s.clamped(250), 6);
    EXPECT_DOUBLE_EQ(s.clamped(600), 9);
    EXPECT_DOUBLE_EQ(s.clamped(0), 1);
}

TEST(Samples, BumpsStandAboveTheirNeighboursLine) {
    // A launch's 2-rank entries (us) at 256 KiB - 2 MiB, 512 KiB noisy:
    // 1.39x the line from 18.2 to 69.3.
    const std::vector<std::pair<double, double>> noisy = {
        {256 << 10, 18.2}, {512 << 10, 48.9}, {1 << 20, 69.3}, {2 << 20, 135.6}};
    EXPECT_EQ(bumps(noisy, 1.25), std::vector<size_t>{1});
    EXPECT_TRUE(bumps(noisy, 1.4).empty());
    // The same launch's next curve, smooth; a copy twice as slow a byte
    // from 512 KiB on (a cache's end) stands 1.2x above the line.
    EXPECT_TRUE(bumps({{256 << 10, 17.7}, {512 << 10, 33.5}, {1 << 20, 68.6}, {2 << 20, 132}}, 1.25).empty());
    EXPECT_TRUE(bumps({{256 << 10, 16}, {512 << 10, 64}, {1 << 20, 128}}, 1.25).empty());
    EXPECT_EQ(bumps({{256 << 10, 16}, {512 << 10, 64}, {1 << 20, 128}}, 1.15), std::vector<size_t>{1});
    // The ends have one neighbour: never judged; nor unsorted points.
    EXPECT_TRUE(bumps({{1, 100}, {2, 1}, {4, 1}, {8, 100}}, 1.25).empty());
    EXPECT_TRUE(bumps({{4, 1}, {2, 9}, {8, 1}}, 1.25).empty());
    EXPECT_TRUE(bumps({}, 1.25).empty());
}

TEST(Samples, ABumpMeasuredAgainKeepsTheMedianOfItsReadings) {
    // A real step read three times: its middle reading, not the low tail.
    EXPECT_DOUBLE_EQ(median({22.0, 19.5, 21.0}), 21.0);
    // A burst of noise read once, then twice as the curve lies.
    EXPECT_DOUBLE_EQ(median({48.9, 34.0, 33.2}), 34.0);
    EXPECT_DOUBLE_EQ(median({4.0, 2.0}), 3.0);
    EXPECT_DOUBLE_EQ(median({5.0}), 5.0);
    EXPECT_DOUBLE_EQ(median({}), 0.0);
}

TEST(CalibrationFile, SweepsMergeByTheMedianOfEachSample) {
    // Three sweeps of one machine: one slow stretch (the second sweep's
    // comm, the third's stream curve) must not move any sample.
    std::vector<Calibration> runs(3);
    const double comm[3][2] = {{1e-6, 10e-6}, {3e-6, 30e-6}, {2e-6, 11e-6}};
    const double stream[3] = {5e-6, 4e-6, 9e-6};
    for (size_t i = 0; i < runs.size(); ++i) {
        runs[i].comm = Samples({{0, comm[i][0]}, {1024, comm[i][1]}});
        runs[i].memcpy = Samples({{1024, 1e-7}});
        runs[i].comm_stream = Samples({{1024, stream[i]}});
        runs[i].pair_ns = 30.0 - 5 * static_cast<double>(i);
    }
    runs[0].machine = "first";
    runs[1].comm_pair = Samples({{65536, 8e-6}});  // a curve only one sweep has stays as it
    const Calibration m = median_calibration(runs);
    ASSERT_EQ(m.comm.points().size(), 2u);
    EXPECT_DOUBLE_EQ(m.comm.at(0), 2e-6);
    EXPECT_DOUBLE_EQ(m.comm.at(1024), 11e-6);
    EXPECT_DOUBLE_EQ(m.comm_stream.at(1024), 5e-6);
    EXPECT_DOUBLE_EQ(m.memcpy.at(1024), 1e-7);
    EXPECT_DOUBLE_EQ(m.comm_pair.at(65536), 8e-6);
    EXPECT_TRUE(m.comm_net.empty());
    EXPECT_EQ(m.machine, "first");    // the rest: the first sweep's
    EXPECT_DOUBLE_EQ(m.pair_ns, 20);  // the nearest pair any sweep had
    // An even count: the mean of the two middle samples.
    runs.pop_back();
    EXPECT_DOUBLE_EQ(median_calibration(runs).comm.at(1024), 20e-6);
    EXPECT_TRUE(median_calibration({}).comm.empty());
}

TEST(CalibrationFile, MergesOnlyRunsOfOneMachine) {
    Calibration a;
    a.cores = 2;
    std::string why;
    EXPECT_TRUE(mergeable(a, a, &why));
    Calibration b = a;
    b.cores = 4;
    EXPECT_FALSE(mergeable(a, b, &why));
    EXPECT_EQ(why, "its cores are 4, the first's 2");
}

TEST(CalibrationFile, RoundTripsAndRejectsBadFiles) {
    Calibration c = builtin_calibration();
    c.machine = "test box";
    c.cores = 6;
    c.pair_ns = 51.5;
    c.comm_stream = Samples({{64, 3e-6}, {65536, 7e-6}});
    Calibration back;
    std::string why;
    ASSERT_TRUE(parse_calibration(to_json(c), &back, &why)) << why;
    EXPECT_EQ(back.machine, "test box");
    EXPECT_EQ(back.cores, 6u);
    EXPECT_EQ(back.pair_ns, 51.5);
    EXPECT_EQ(back.comm.points(), c.comm.points());
    EXPECT_EQ(back.comm_direct.points(), c.comm_direct.points());
    EXPECT_EQ(back.comm_stream.points(), c.comm_stream.points());
    EXPECT_EQ(back.memcpy.points(), c.memcpy.points());
    // comm_direct is optional: without it, every round costs comm.
    ASSERT_TRUE(parse_calibration(R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]]})", &back, &why));
    EXPECT_TRUE(back.comm_direct.empty());
    EXPECT_EQ(back.pair_ns, 0.0);  // optional too: unknown
    EXPECT_EQ(&back.entry(false), &back.comm);
    // The optional curves round-trip too.
    c.comm_pair = Samples({{32768, 5e-6}, {4 << 20, 4.2e-4}});
    c.comm_pair_inline = Samples({{8, 2.6e-7}, {16384, 2.4e-6}});
    c.comm_net = Samples({{0, 3e-6}, {1 << 20, 1e-4}});
    c.comm_net_stream = Samples({{64, 2e-6}, {1 << 16, 9e-6}});
    c.comm_net_pair = Samples({{8, 6e-6}, {1 << 20, 5.2e-4}});
    ASSERT_TRUE(parse_calibration(to_json(c), &back, &why)) << why;
    EXPECT_EQ(back.comm_net_pair.points(), c.comm_net_pair.points());
    EXPECT_EQ(back.comm_net.points(), c.comm_net.points());
    EXPECT_EQ(back.comm_net_stream.points(), c.comm_net_stream.points());
    EXPECT_EQ(back.comm_footprint.points(), c.comm_footprint.points());
    EXPECT_EQ(back.comm_pair_inline.points(), c.comm_pair_inline.points());
    EXPECT_EQ(back.comm_pair.points(), c.comm_pair.points());
    // Files of earlier versions hold a crowded node's curves, which the
    // model no longer reads: they still load, and are not written back.
    const std::string older = R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],)"
                              R"("crowd_parallel":1.39,"crowd_ranks":3,"comm_crowded":[[0,2]],)"
                              R"("comm_crowd_stream":[[64,3]],"converge_slow":[[8,1.2]]})";
    ASSERT_TRUE(parse_calibration(older, &back, &why)) << why;
    EXPECT_EQ(back.comm.points(), (std::vector<std::pair<double, double>>{{0, 1}}));
    EXPECT_EQ(to_json(back).find("crowd"), std::string::npos) << to_json(back);
    EXPECT_EQ(to_json(back).find("converge"), std::string::npos) << to_json(back);
    const std::pair<const char *, const char *> bad[] = {
        {"[1,2]", "not a JSON object"},
        {R"({"schema":"other","comm":[[0,1]],"memcpy":[[0,1]]})", "schema"},
        {R"({"schema":"acpx-calibration/1","memcpy":[[0,1]]})", "\"comm\": missing"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,-1]],"memcpy":[[0,1]]})", "negative"},
        {R"({"schema":"acpx-calibration/1","comm":[[8,1],[8,2]],"memcpy":[[0,1]]})", "two samples for 8 bytes"},
        {R"({"schema":"acpx-calibration/1","comm":[[8]],"memcpy":[[0,1]]})", "[bytes, seconds]"},
        {"{", "not a JSON object"},
        {R"({"schema":"acpx-calibration/1","cores":-2,"comm":[[0,1]],"memcpy":[[0,1]]})", "cores"},
        {R"({"schema":"acpx-calibration/1","pair_ns":-1,"comm":[[0,1]],"memcpy":[[0,1]]})", "pair_ns"},
        {R"({"schema":"acpx-calibration/1","pair_ns":"near","comm":[[0,1]],"memcpy":[[0,1]]})", "pair_ns"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"comm_direct":[[0,-1]],"memcpy":[[0,1]]})", "comm_direct"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_pair":[[0,-1]]})", "comm_pair"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_stream":[]})", "comm_stream"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_net":[[8,1],[8,1]]})", "comm_net"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_net_stream":[[8]]})",
         "comm_net_stream"},
    };
    for (const auto &[text, want] : bad) {
        why.clear();
        EXPECT_FALSE(parse_calibration(text, &back, &why)) << text;
        EXPECT_NE(why.find(want), std::string::npos) << text << " -> " << why;
    }
}

// ACP_CALIBRATION's value comes from the caller (middle/ reads it).
TEST(CalibrationFile, LoadedFromTheSettingElseBuiltIn) {
    const std::string path = testing::TempDir() + "acpx_cal_test.json";
    Calibration c = builtin_calibration();
    c.comm = Samples({{0, 1}, {10, 2}});
    std::ofstream(path) << to_json(c);
    Calibration got;
    std::string why;
    ASSERT_TRUE(load_calibration(&got, &why, 0, path.c_str())) << why;
    EXPECT_EQ(got.source, path);
    EXPECT_DOUBLE_EQ(got.comm.at(5), 1.5);
    std::ofstream(path) << "{ broken";
    EXPECT_FALSE(load_calibration(&got, &why, 0, path.c_str()));
    EXPECT_NE(why.find(path), std::string::npos) << why;
    EXPECT_FALSE(load_calibration(&got, &why, 0, (path + ".missing").c_str()));
    EXPECT_NE(why.find("cannot be read"), std::string::npos) << why;
    ASSERT_TRUE(load_calibration(&got, &why, 0, kBuiltinName));
    EXPECT_EQ(got.source, kBuiltinSource);
    setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
    ASSERT_TRUE(load_calibration(&got, &why, 0, nullptr));
    if (got.source == kBuiltinSource) {  // else one is installed in <datadir>
        EXPECT_EQ(got.cores, online_cores() > 0 ? online_cores() : 2u);
        // create's: the CPUs of its node's ranks.
        ASSERT_TRUE(load_calibration(&got, &why, 64, nullptr));
        EXPECT_EQ(got.cores, 64u);
    }
    unsetenv("XDG_CONFIG_HOME");
    std::remove(path.c_str());
}

// A job across nodes priced with one node's curves took a 128-256 KiB
// bcast at 2 + 2 ranks for a pair of memory copies (scatter_ring,
// predicted 34 us, measured 1.3 ms). The built-in figures carry the
// reference VM's curves between its two emulated hosts, and a file
// calibrated on one node gets them at load, marked (net_source) so that
// create warns; a file's own stay, and reading a file (merge,
// calibrate) adds nothing to it.
TEST(CalibrationFile, AFileWithoutCurvesBetweenNodesGetsTheBuiltInOnes) {
    const Calibration builtin = builtin_calibration();
    ASSERT_FALSE(builtin.comm_net.empty());
    ASSERT_FALSE(builtin.comm_net_stream.empty());
    ASSERT_FALSE(builtin.comm_net_pair.empty());
    EXPECT_EQ(builtin.net_source, kBuiltinSource);
    // The network is slower than the node's memory at every size.
    for (double b = 8; b <= 4 << 20; b *= 4) EXPECT_GT(builtin.comm_net.at(b), 2 * builtin.comm.at(b)) << b;

    const std::string path = testing::TempDir() + "acpx_cal_net_test.json";
    Calibration one_node = builtin;
    one_node.comm_net = one_node.comm_net_stream = one_node.comm_net_pair = Samples();
    one_node.comm = Samples({{0, 1e-6}, {1 << 20, 2e-6}});
    std::ofstream(path) << to_json(one_node);
    Calibration got;
    std::string why;
    ASSERT_TRUE(read_calibration(path, &got, &why)) << why;
    EXPECT_TRUE(got.comm_net.empty());
    EXPECT_EQ(got.net_source, "");
    ASSERT_TRUE(load_calibration(&got, &why, 0, path.c_str())) << why;
    EXPECT_DOUBLE_EQ(got.comm.at(0), 1e-6);  // its own
    EXPECT_EQ(got.comm_net.points(), builtin.comm_net.points());
    EXPECT_EQ(got.comm_net_stream.points(), builtin.comm_net_stream.points());
    EXPECT_EQ(got.comm_net_pair.points(), builtin.comm_net_pair.points());
    EXPECT_EQ(got.net_source, kBuiltinSource);

    Calibration measured = one_node;
    measured.comm_net = Samples({{0, 3e-6}, {1 << 20, 1e-4}});
    std::ofstream(path) << to_json(measured);
    ASSERT_TRUE(load_calibration(&got, &why, 0, path.c_str())) << why;
    EXPECT_EQ(got.comm_net.points(), measured.comm_net.points());
    EXPECT_TRUE(got.comm_net_pair.empty());  // not mixed with the built-in network's
    EXPECT_EQ(got.net_source, path);
    std::remove(path.c_str());
}

// With the built-in figures a bcast across nodes (1 + 1, 2 + 2, 1 + 3
// ranks, hierarchical trees among the candidates) is priced at least one
// network message of its bytes, never a copy through memory: on the
// two-host bed 2 + 2 ranks' 128-256 KiB rounds priced so took 1.3 ms
// (scatter_ring, predicted 34 us), where the chain takes 0.35.
TEST(CalibrationFile, BuiltInDefaultsPriceABcastAcrossNodesAtLeastOneNetworkMessage) {
    const Calibration cal = builtin_calibration_for(2);
    ASSERT_FALSE(cal.comm_net.empty());
    for (const std::vector<uint64_t> &node : {std::vector<uint64_t>{0, 1}, {0, 0, 1, 1}, {0, 1, 1, 1}}) {
        const Topology t = switch_of_nodes(node);
        for (uint64_t bytes = 8; bytes <= 4 << 20; bytes *= 4) {
            Case c;
            c.op = Op::kBcast;
            c.members = static_cast<uint32_t>(node.size());
            c.bytes = bytes;
            c.nodes = std::make_shared<const std::vector<uint32_t>>(t.map);
            double predicted = 0;
            const Case pick = best(c, cal, &t, &predicted);
            // (0.9: the curve's samples below 4 KiB read 19-24 us in no order.)
            EXPECT_GE(predicted, 0.9 * cal.comm_net.at(static_cast<double>(bytes)))
                << node.size() << " members, " << bytes << " bytes: " << algo_name(pick);
        }
    }
}

// The built-in figures are share/acpx/builtin-calibration.json, a file
// like any other, compiled in.
TEST(CalibrationFile, BuiltInFiguresAreTheShippedFile) {
    const char *src = std::getenv("ACPX_SRCDIR");
    if (!src) GTEST_SKIP() << "ACPX_SRCDIR unset (make check sets it)";
    Calibration shipped;
    std::string why;
    ASSERT_TRUE(read_calibration(std::string(src) + "/share/acpx/builtin-calibration.json", &shipped, &why)) << why;
    const Calibration builtin = builtin_calibration();
    EXPECT_EQ(to_json(shipped), to_json(builtin));
    EXPECT_EQ(builtin.source, kBuiltinSource);
    EXPECT_EQ(builtin.cores, 2u);
    EXPECT_FALSE(builtin.comm.empty());
}

// The built-in figures are a 2-core node's, each rank on its own core; a
// node of more cores keeps them and runs a core per rank up to its cores.
// Above them the ranks share the cores by time slicing: each step waits
// for a switch besides, and the copies beyond the cores wait their turn.
TEST(CalibrationFile, BuiltInDefaultsTakeTheNodesCores) {
    EXPECT_EQ(builtin_calibration_for(0).cores, 2u);  // unknown: the reference's
    EXPECT_EQ(builtin_calibration_for(1).cores, 1u);
    EXPECT_EQ(builtin_calibration_for(64).cores, 64u);
    Case c;
    c.op = Op::kBcast;
    c.members = 4;
    c.bytes = 1 << 20;
    const Calibration reference = builtin_calibration_for(2), wide = builtin_calibration_for(64);
    ASSERT_GT(reference.switch_s, 0);
    const Prediction crowded = predict(c, reference, nullptr), own_cores = predict(c, wide, nullptr);
    EXPECT_EQ(crowded.switch_s, reference.switch_s);
    EXPECT_EQ(own_cores.switch_s, 0);
    // Binomial over 4: a copy, then two at once (each as two copies at
    // once of that size took, comm_pair).
    ASSERT_EQ(own_cores.steps.size(), 2u);
    ASSERT_FALSE(wide.comm_pair.empty());
    EXPECT_NEAR(own_cores.comm_s, wide.comm.at(c.bytes) + std::max(wide.comm.at(c.bytes), wide.comm_pair.at(c.bytes)),
                1e-12);
    // On 2 cores the two copies at once still fit: each step a switch more.
    ASSERT_EQ(crowded.steps.size(), 2u);
    EXPECT_NEAR(crowded.comm_s, own_cores.comm_s + 2 * reference.switch_s, 1e-12);
    // 1 MiB on 64 cores is a pipeline; on the crowded node a tree: the
    // pipeline's blocks move on every pair at once, beyond the 2 cores.
    EXPECT_EQ(algo_name(best(c, wide, nullptr)).rfind("pipeline:", 0), 0u) << algo_name(best(c, wide, nullptr));
    EXPECT_EQ(algo_name(best(c, reference, nullptr)).rfind("pipeline:", 0), std::string::npos);
    // A file says where it was measured; another node's count is named.
    Calibration file = reference;
    file.source = "cal.json";
    EXPECT_EQ(cores_in_use(file, 2), "2 cores");
    EXPECT_NE(cores_in_use(file, 64).find("this node has 64"), std::string::npos) << cores_in_use(file, 64);
    EXPECT_EQ(cores_in_use(wide, 64), "64 cores");
}

// Time slicing is per node: 100 ranks on a 64-core node pay the switch;
// over two nodes of 50, nobody does; of 80 and 20, the copies to or from
// the 80's node do. Without a limit of cores (0) nothing is sliced.
TEST(CalibrationFile, TimeSlicingIsPerNode) {
    Calibration cal = linear(1e-6, 1e-9);
    cal.cores = 64;
    cal.switch_s = 5e-6;
    Case c{Op::kBcast, static_cast<uint8_t>(BcastAlgo::kChain), 2, 64, 0, 1000, false, 0, nullptr, false};
    EXPECT_FALSE(time_sliced(c, cal, nullptr));
    EXPECT_NEAR(predict(c, cal, nullptr).comm_s, 63 * cal.comm.at(1000), 1e-12);
    c.members = 100;
    EXPECT_TRUE(time_sliced(c, cal, nullptr));
    EXPECT_NEAR(predict(c, cal, nullptr).comm_s, 99 * (cal.comm.at(1000) + 5e-6), 1e-12);
    std::vector<uint64_t> node(100);
    for (uint32_t m = 0; m < 100; ++m) node[m] = m / 50;
    const Topology halves = switch_of_nodes(node);
    EXPECT_FALSE(time_sliced(c, cal, &halves));
    EXPECT_EQ(predict(c, cal, &halves).switch_s, 0);
    // 80 and 20: the chain's 79 copies on the crowded node and the one
    // from it pay the switch; the 19 on the other node do not.
    for (uint32_t m = 0; m < 100; ++m) node[m] = m < 80 ? 0 : 1;
    const Topology uneven = switch_of_nodes(node);
    EXPECT_TRUE(time_sliced(c, cal, &uneven));
    const Prediction p = predict(c, cal, &uneven);
    EXPECT_EQ(p.switch_s, 5e-6);
    ASSERT_EQ(p.steps.size(), 99u);
    size_t paid = 0;
    for (const Step &s : p.steps) paid += s.seconds > cal.comm.at(1000) + 4e-6;
    EXPECT_EQ(paid, 80u);
    cal.cores = 0;
    EXPECT_FALSE(time_sliced(c, cal, nullptr));
}

// The built-in figures are one run's (their ratios hold together): on
// their own node, crowded or not, a bcast up to 64 KiB (a tree's inline slots)
// is one block down a tree or the chain, as every model check there
// measured it. Figures mixed from runs on other days picked scatter_ring
// for 3 ranks at 64 KiB, measured 2.7x the chain.
TEST(CalibrationFile, BuiltInDefaultsPickASingleBlockBcastUpTo64KiB) {
    const Calibration cal = builtin_calibration_for(2);
    for (uint32_t members : {2u, 3u, 4u})
        for (uint64_t bytes : {1024u, 8192u, 32768u, 65536u}) {
            Case c;
            c.op = Op::kBcast;
            c.members = members;
            c.bytes = bytes;
            c.inline_bytes = 65536;  // a tree's slots, as create gives them (middle::kDefaultInlineMax)
            const std::string pick = algo_name(best(c, cal, nullptr));
            EXPECT_TRUE(pick == "binomial" || pick == "binary" || pick.rfind("knomial:", 0) == 0 || pick == "chain")
                << members << " members, " << bytes << " bytes: " << pick;
        }
}
