// The model's calibration in one process: interpolation between samples
// (seed 003 eq. 1) and the calibration file (its schema, errors, defaults).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "collectives/model/predict.hpp"

using namespace acpx::collectives;
using namespace acpx::collectives::model;

TEST(Samples, InterpolatesBetweenTheTwoNearest) {
    const Samples s({{300, 9}, {100, 1}, {200, 3}});  // unsorted on purpose
    EXPECT_DOUBLE_EQ(s.at(150), 2);   // between 100 and 200
    EXPECT_DOUBLE_EQ(s.at(250), 6);   // between 200 and 300, not a global fit
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

TEST(Samples, RisingIsTheLeastSquaresNonDecreasingFit) {
    using Pts = std::vector<std::pair<double, double>>;
    // Each run out of order takes its mean; runs merge until they rise.
    EXPECT_EQ(rising(Samples({{8192, 5.0}, {16384, 4.0}, {32768, 8.5}, {65536, 8.0}})).points(),
              (Pts{{8192, 4.5}, {16384, 4.5}, {32768, 8.25}, {65536, 8.25}}));
    EXPECT_EQ(rising(Samples({{1, 3}, {2, 6}, {4, 1}, {8, 7}})).points(), (Pts{{1, 3}, {2, 3.5}, {4, 3.5}, {8, 7}}));
    EXPECT_EQ(rising(Samples({{1, 4}, {2, 3}, {4, 2}})).points(), (Pts{{1, 3}, {2, 3}, {4, 3}}));
    EXPECT_EQ(rising(Samples({{1, 1}, {2, 2}})).points(), (Pts{{1, 1}, {2, 2}}));
    EXPECT_TRUE(rising(Samples()).empty());
}

TEST(CalibrationFile, BlockCurvesAreSettledRisingWhereverTheyComeFrom) {
    // A 3-rank calibration of the 2-core VM: pipeline:16 of 16 KiB blocks
    // (256 KiB) read 76.5 us, of 8 KiB blocks 88.9 (17 blocks a round).
    Calibration c = builtin_calibration();
    c.comm_crowd_stream = Samples({{8192, 88.9e-6 / 17}, {16384, 76.5e-6 / 17}, {32768, 137e-6 / 17}});
    c.comm_crowd_stream4 = Samples({{2048, 6e-6}, {4096, 5e-6}});
    Calibration settled = c;
    const std::vector<Settled> moved = settle_block_curves(&settled);
    ASSERT_EQ(moved.size(), 4u);
    EXPECT_STREQ(moved[1].curve, "comm_crowd_stream");
    EXPECT_EQ(moved[1].bytes, 16384);
    EXPECT_DOUBLE_EQ(moved[1].measured, 76.5e-6 / 17);
    EXPECT_DOUBLE_EQ(moved[1].kept, 82.7e-6 / 17);
    EXPECT_STREQ(moved[3].curve, "comm_crowd_stream4");
    EXPECT_DOUBLE_EQ(settled.comm_crowd_stream.at(8192), 82.7e-6 / 17);
    EXPECT_DOUBLE_EQ(settled.comm_crowd_stream.at(32768), 137e-6 / 17);
    EXPECT_DOUBLE_EQ(settled.comm_crowd_stream4.at(4096), 5.5e-6);
    EXPECT_TRUE(settle_block_curves(&settled).empty());  // once is enough
    // A file written before calibrate settled its curves reads settled;
    // other curves keep their dips (a copy's curve may fall past a switch).
    c.comm = Samples({{0, 2e-6}, {1024, 1e-6}});
    Calibration back;
    std::string why;
    ASSERT_TRUE(parse_calibration(to_json(c), &back, &why)) << why;
    EXPECT_EQ(back.comm_crowd_stream.points(), settled.comm_crowd_stream.points());
    EXPECT_EQ(back.comm_crowd_stream4.points(), settled.comm_crowd_stream4.points());
    EXPECT_EQ(back.comm.points(), c.comm.points());
    // And the built-in defaults come settled.
    const Calibration builtin = builtin_calibration();
    EXPECT_EQ(builtin.comm_crowd_stream.points(), rising(builtin.comm_crowd_stream).points());
    EXPECT_EQ(builtin.comm_crowd_stream4.points(), rising(builtin.comm_crowd_stream4).points());
}

TEST(CalibrationFile, SweepsMergeByTheMedianOfEachSample) {
    // Three sweeps of one machine: one slow stretch (the second sweep's
    // comm, the third's crowded curve) must not move any sample.
    std::vector<Calibration> runs(3);
    const double comm[3][2] = {{1e-6, 10e-6}, {3e-6, 30e-6}, {2e-6, 11e-6}};
    const double crowded[3] = {5e-6, 4e-6, 9e-6};
    for (size_t i = 0; i < runs.size(); ++i) {
        runs[i].comm = Samples({{0, comm[i][0]}, {1024, comm[i][1]}});
        runs[i].memcpy = Samples({{1024, 1e-7}});
        runs[i].comm_crowded = Samples({{1024, crowded[i]}});
        runs[i].pair_ns = 30.0 - 5 * static_cast<double>(i);
    }
    runs[0].crowd_ranks = 3;
    runs[1].comm_pair = Samples({{65536, 8e-6}});  // a curve only one sweep has stays as it
    const Calibration m = median_calibration(runs);
    ASSERT_EQ(m.comm.points().size(), 2u);
    EXPECT_DOUBLE_EQ(m.comm.at(0), 2e-6);
    EXPECT_DOUBLE_EQ(m.comm.at(1024), 11e-6);
    EXPECT_DOUBLE_EQ(m.comm_crowded.at(1024), 5e-6);
    EXPECT_DOUBLE_EQ(m.memcpy.at(1024), 1e-7);
    EXPECT_DOUBLE_EQ(m.comm_pair.at(65536), 8e-6);
    EXPECT_TRUE(m.comm_stream.empty());
    EXPECT_EQ(m.crowd_ranks, 3u);     // the rest: the first sweep's
    EXPECT_DOUBLE_EQ(m.pair_ns, 20);  // the nearest pair any sweep had
    // An even count: the mean of the two middle samples.
    runs.pop_back();
    EXPECT_DOUBLE_EQ(median_calibration(runs).comm.at(1024), 20e-6);
    EXPECT_TRUE(median_calibration({}).comm.empty());
}

TEST(CalibrationFile, MergesOnlyRunsOfOneMachineAndCrowd) {
    Calibration a;
    a.cores = 2, a.crowd_ranks = 3;
    std::string why;
    EXPECT_TRUE(mergeable(a, a, &why));
    Calibration b = a;
    b.cores = 4;
    EXPECT_FALSE(mergeable(a, b, &why));
    EXPECT_EQ(why, "its cores are 4, the first's 2");
    b = a, b.crowd_ranks = 4;
    EXPECT_FALSE(mergeable(a, b, &why));
    EXPECT_EQ(why, "its crowded ranks are 4, the first's 3");
    b = a, b.crowd_cores = 1;
    EXPECT_FALSE(mergeable(a, b, &why));
    EXPECT_EQ(why, "its crowded CPUs are 1, the first's 0");
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
    // The crowded curves round-trip too.
    c.comm_crowded = Samples({{0, 5e-6}, {4096, 6e-6}});
    c.comm_fanout = Samples({{0, 6e-6}, {4096, 7e-6}});
    c.comm_crowded_direct = Samples({{0, 7e-6}, {4096, 8e-6}});
    c.comm_fanout_direct = Samples({{0, 5e-6}, {4096, 9e-6}});
    c.comm_crowded_overlap = Samples({{8, 1e-7}, {16384, 2e-6}});
    c.comm_fanout_overlap = Samples({{8, 2e-7}, {16384, 1.5e-6}});
    c.comm_crowd_stream = Samples({{64, 8e-6}, {4096, 9e-6}});
    c.comm_crowd_stream4 = Samples({{64, 1.1e-5}, {4096, 1.2e-5}});
    c.comm_crowd_gather = Samples({{32768, 2e-5}, {1 << 20, 4e-4}});
    c.comm_crowd_ring = Samples({{32768, 2.5e-5}, {1 << 20, 4.5e-4}});
    c.comm_crowd_scatter = Samples({{32768, 3e-5}, {1 << 20, 3.5e-4}});
    c.comm_crowd_tree = Samples({{131072, 4e-5}, {1 << 20, 3e-4}});
    c.comm_footprint = Samples({{2 << 20, 5e-5}, {256 << 20, 1.4e-4}});
    c.converge_slow = Samples({{65536, 1.3}, {4 << 20, 1.1}});
    c.comm_pair = Samples({{32768, 5e-6}, {4 << 20, 4.2e-4}});
    c.comm_pair_inline = Samples({{8, 2.6e-7}, {16384, 2.4e-6}});
    c.crowd_ranks = 3;
    c.crowd_cores = 2;
    c.comm_net = Samples({{0, 3e-6}, {1 << 20, 1e-4}});
    c.comm_net_stream = Samples({{64, 2e-6}, {1 << 16, 9e-6}});
    ASSERT_TRUE(parse_calibration(to_json(c), &back, &why)) << why;
    EXPECT_EQ(back.comm_net.points(), c.comm_net.points());
    EXPECT_EQ(back.comm_net_stream.points(), c.comm_net_stream.points());
    EXPECT_EQ(back.comm_crowded.points(), c.comm_crowded.points());
    EXPECT_EQ(back.comm_fanout.points(), c.comm_fanout.points());
    EXPECT_EQ(back.comm_crowded_direct.points(), c.comm_crowded_direct.points());
    EXPECT_EQ(back.comm_fanout_direct.points(), c.comm_fanout_direct.points());
    EXPECT_EQ(back.comm_crowded_overlap.points(), c.comm_crowded_overlap.points());
    EXPECT_EQ(back.comm_fanout_overlap.points(), c.comm_fanout_overlap.points());
    EXPECT_EQ(&back.crowded(false), &back.comm_crowded_direct);
    EXPECT_EQ(&back.fanout(true), &back.comm_fanout);
    EXPECT_EQ(back.comm_crowd_stream.points(), c.comm_crowd_stream.points());
    EXPECT_EQ(back.comm_crowd_stream4.points(), c.comm_crowd_stream4.points());
    EXPECT_EQ(back.comm_crowd_gather.points(), c.comm_crowd_gather.points());
    EXPECT_EQ(back.comm_crowd_ring.points(), c.comm_crowd_ring.points());
    EXPECT_EQ(back.comm_crowd_scatter.points(), c.comm_crowd_scatter.points());
    EXPECT_EQ(back.comm_crowd_tree.points(), c.comm_crowd_tree.points());
    EXPECT_EQ(back.comm_footprint.points(), c.comm_footprint.points());
    EXPECT_EQ(back.comm_pair_inline.points(), c.comm_pair_inline.points());
    EXPECT_EQ(back.converge_slow.points(), c.converge_slow.points());
    EXPECT_EQ(back.comm_pair.points(), c.comm_pair.points());
    EXPECT_EQ(back.crowd_ranks, 3u);
    EXPECT_EQ(back.crowd_cores, 2u);
    EXPECT_EQ(back.crowd_core_count(), 2u);
    c.crowd_cores = 0;  // measured on all the node's cores: absent, as in older files
    ASSERT_TRUE(parse_calibration(to_json(c), &back, &why)) << why;
    EXPECT_EQ(back.crowd_cores, 0u);
    EXPECT_EQ(back.crowd_core_count(), 6u);
    // Files from before the simulation hold crowd_parallel (a number or a
    // curve): they still load.
    ASSERT_TRUE(parse_calibration(
        R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"crowd_parallel":1.39})", &back, &why));
    ASSERT_TRUE(parse_calibration(
        R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"crowd_parallel":[[0,1.5]]})", &back, &why));
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
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_fanout":[[0,-1]]})", "comm_fanout"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_crowded_direct":[[0]]})",
         "comm_crowded_direct"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_fanout_direct":{}})",
         "comm_fanout_direct"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_crowd_stream":[]})",
         "comm_crowd_stream"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_fanout_overlap":[[8,-1]]})",
         "comm_fanout_overlap"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"converge_slow":[[8,-1]]})",
         "converge_slow"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_net":[[8,1],[8,1]]})", "comm_net"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"comm_net_stream":[[8]]})",
         "comm_net_stream"},
        // Each crowded solve simulates rounds over crowd_ranks: 1,000 ran
        // create for minutes; calibrate measures up to 64.
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"crowd_ranks":1000})",
         "\"crowd_ranks\": want a count of ranks, at most 64"},
        {R"({"schema":"acpx-calibration/1","comm":[[0,1]],"memcpy":[[0,1]],"crowd_cores":"two"})", "crowd_cores"},
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
    EXPECT_FALSE(builtin.comm_crowded.empty());
}

// The built-in figures describe a crowded 2-core node; on a node with a
// core per member the same round is the steps' sum, as seed 003 prices
// it, and create picks from that.
TEST(CalibrationFile, BuiltInDefaultsTakeTheNodesCores) {
    EXPECT_EQ(builtin_calibration_for(0).cores, 2u);  // unknown: the reference's
    EXPECT_EQ(builtin_calibration_for(1).cores, 1u);
    EXPECT_EQ(builtin_calibration_for(64).cores, 64u);
    EXPECT_EQ(builtin_calibration_for(64).crowd_core_count(), 2u);  // where its crowd was measured
    Case c;
    c.op = Op::kBcast;
    c.members = 4;
    c.bytes = 1 << 20;
    const Calibration reference = builtin_calibration_for(2), wide = builtin_calibration_for(64);
    const Prediction crowded = predict(c, reference, nullptr), own_cores = predict(c, wide, nullptr);
    EXPECT_TRUE(crowded.simulated);
    EXPECT_FALSE(own_cores.simulated);
    // Binomial over 4: a copy, then two at once (each as two copies at
    // once of that size took, comm_pair).
    ASSERT_EQ(own_cores.steps.size(), 2u);
    ASSERT_FALSE(wide.comm_pair.empty());
    EXPECT_NEAR(own_cores.comm_s, wide.comm.at(c.bytes) + std::max(wide.comm.at(c.bytes), wide.comm_pair.at(c.bytes)),
                1e-12);
    // Picks differ at most sizes: 1 MiB on 64 cores is a pipeline, on the
    // crowded node a tree (each block forward waits for a turn on a core).
    EXPECT_EQ(algo_name(best(c, wide, nullptr)).rfind("pipeline:", 0), 0u) << algo_name(best(c, wide, nullptr));
    EXPECT_EQ(algo_name(best(c, reference, nullptr)).rfind("pipeline:", 0), std::string::npos);
    // A file says where it was measured; another node's count is named.
    Calibration file = reference;
    file.source = "cal.json";
    EXPECT_EQ(cores_in_use(file, 2), "2 cores");
    EXPECT_NE(cores_in_use(file, 64).find("this node has 64"), std::string::npos) << cores_in_use(file, 64);
    EXPECT_EQ(cores_in_use(wide, 64), "64 cores");
}

// The built-in figures are one run's (their ratios hold together): on
// their own crowded node a bcast up to 64 KiB (a tree's inline slots)
// is one block down a tree or the chain, as every model check there
// measured it. Figures mixed from runs on other days picked scatter_ring
// for 3 ranks at 64 KiB, measured 2.7x the chain.
TEST(CalibrationFile, BuiltInDefaultsPickASingleBlockBcastUpTo64KiB) {
    const Calibration cal = builtin_calibration_for(2);
    for (uint32_t members : {3u, 4u})
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

// On a large node the crowd is measured on a few of its cores
// (crowd_cores): the costs are solved on those, and a job larger than
// the node's cores is simulated on all of them.
TEST(CalibrationFile, TheCrowdIsSolvedOnItsOwnCores) {
    const Calibration small = builtin_calibration();  // 3 ranks on the 2 cores of a 2-core node
    ASSERT_EQ(small.crowd_core_count(), 2u);
    Calibration large = small;  // the same crowd, measured on 2 cores of a 64-core node
    large.cores = 64;
    for (double bytes : {1024.0, 65536.0, 1048576.0})
        for (bool is_inline : {false, true}) {
            const CrowdCosts a = CrowdCache().get(small, bytes, is_inline);
            const CrowdCosts b = CrowdCache().get(large, bytes, is_inline);
            EXPECT_GT(a.switch_s, 0) << bytes;
            EXPECT_DOUBLE_EQ(a.switch_s, b.switch_s) << bytes;
            EXPECT_DOUBLE_EQ(a.slow, b.slow) << bytes;
            EXPECT_DOUBLE_EQ(a.busy, b.busy) << bytes;
            EXPECT_DOUBLE_EQ(a.forward_s, b.forward_s) << bytes;
            EXPECT_DOUBLE_EQ(a.stream_slow, b.stream_slow) << bytes;
            EXPECT_DOUBLE_EQ(a.gather_slow, b.gather_slow) << bytes;
        }
    Case c;
    c.op = Op::kBcast;
    c.algo = static_cast<uint8_t>(BcastAlgo::kBinomial);
    c.bytes = 1 << 20;
    c.members = 64;
    EXPECT_FALSE(predict(c, large, nullptr).simulated);  // a core each
    c.members = 100;
    const Prediction on_64 = predict(c, large, nullptr), on_2 = predict(c, small, nullptr);
    EXPECT_TRUE(on_64.simulated);
    EXPECT_TRUE(on_2.simulated);
    EXPECT_LT(on_64.comm_s * 4, on_2.comm_s);  // 100 ranks take turns on 64 cores, not on 2
    // Measured on all 64 cores with 3 ranks, it is no crowd: nothing to solve.
    large.crowd_cores = 0;
    EXPECT_FALSE(predict(c, large, nullptr).simulated);
    EXPECT_EQ(CrowdCache().get(large, 65536, false).switch_s, 0);
}

