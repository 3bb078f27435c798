// acpx-model seed000: seed 000's Table 1 on its four shapes of the FX10's
// 6D torus, each method's maps searched as acpx-model place searches them
// and timed by the flow simulator, with the analogues of its Tables 2 and
// 3, the gates of issue 64 and the solve times.
#include "seed000.hpp"

#include <getopt.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "basic/config.hpp"
#include "collectives/model/flowsim.hpp"
#include "collectives/place/anneal.hpp"
#include "collectives/place/moves.hpp"
#include "collectives/place/no_ring.hpp"
#include "collectives/place/objective.hpp"
#include "collectives/place/pattern.hpp"
#include "simgrid_platform.hpp"

namespace acpx::tools {
namespace {

namespace cm = acpx::collectives::model;
namespace cp = acpx::collectives::place;

// The seed's shapes (section 5.2) and its Table 1 (s): the FX10's default
// map, no-ring, TAHB, O2F, RMATT, TAC3, TAC3 with barriers.
struct Shape {
    int id;
    const char *dims;
    uint32_t tasks;
    double fx10[7];
};
constexpr Shape kShapes[] = {{1, "1x2x4x2x3x2", 64, {1.671, 2.398, 1.501, 1.585, 1.762, 1.207, 1.126}},
                             {2, "2x2x2x2x3x2", 64, {1.241, 1.936, 1.478, 1.466, 1.843, 1.032, 1.049}},
                             {3, "1x1x4x2x3x2", 32, {1.236, 1.667, 1.255, 1.316, 1.419, 1.025, 1.039}},
                             {4, "1x2x2x2x3x2", 32, {1.427, 1.455, 1.260, 1.300, 1.415, 1.027, 1.041}}};
enum Col { kDefault, kNoRing, kTahb, kO2f, kRmatt, kTac3, kTac3Barrier };
// Table 3: no barrier / barrier, 32 KB .. 2048 KB.
constexpr double kSeedTable3[] = {0.910, 0.887, 0.953, 0.994, 1.161, 1.215, 1.248};
// Section 6.2: solve times (s) of TAC3, TAHB, O2F at 48 and 96 nodes.
constexpr double kSeedSolve48[] = {128, 35, 122}, kSeedSolve96[] = {272, 72, 257};

struct Options {
    std::string out = ".";
    std::vector<int> shapes = {1, 2, 3, 4};
    uint32_t maps = 10, trials = 2500, iterations = 1000;
    uint32_t simgrid_iterations = 100;  // 0: no SimGrid
    std::string kernel;                 // the CG kernel for smpirun ("": SimGrid not run)
    uint64_t seed = 1;
    bool wrap_all = false;
};

// What the search methods are: the objective and whether it is divided by
// the starting placement's value (the --normalize variant).
// tac3 breaks eq. (1)'s ties by hop-bytes (collectives/place/objective.hpp),
// tac3-plain does not: the seed's objective as written.
struct Method {
    const char *name;
    const char *objective;  // tac3, tahb, o2f
    bool normalize, tiebreak;
};
constexpr Method kMethods[] = {{"tac3", "tac3", false, true}, {"tahb", "tahb", false, false},
                               {"o2f", "o2f", false, false},  {"tahb-n", "tahb", true, false},
                               {"o2f-n", "o2f", true, false}, {"tac3-plain", "tac3", false, false}};

struct Run {
    int shape = 0;
    const Method *method = nullptr;  // nullptr: no-ring (c_fastest: its variant)
    bool c_fastest = false;
    uint32_t map_no = 0;
    uint64_t seed = 0;
    std::vector<uint32_t> map;
    cp::Scores scores;
    double seconds = 0, barrier = NAN, solve = 0;
    // SimGrid over simgrid_iterations, and the flow simulator over as
    // many (their agreement); NAN where not run.
    double sg = NAN, sg_barrier = NAN, fs_short = NAN, fs_short_barrier = NAN;
    std::string sg_error;
    std::vector<double> accepted;  // % of a level's moves taken, level by level
};

std::string topology_of(const Shape &s, bool wrap_all) {
    return std::string("torus:") + s.dims + ":order=XYZACB" + (wrap_all ? "" : ":wrap=000010");
}

bool parse(int argc, char **argv, Options *o, std::string *why) {
    static const option opts[] = {{"out", required_argument, nullptr, 'o'},
                                  {"shapes", required_argument, nullptr, 's'},
                                  {"maps", required_argument, nullptr, 'm'},
                                  {"trials", required_argument, nullptr, 't'},
                                  {"iterations", required_argument, nullptr, 'i'},
                                  {"seed", required_argument, nullptr, 'S'},
                                  {"wrap-all", no_argument, nullptr, 'w'},
                                  {"simgrid-iterations", required_argument, nullptr, 'g'},
                                  {"help", no_argument, nullptr, 'h'},
                                  {nullptr, 0, nullptr, 0}};
    optind = 2;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        size_t n = 0;
        switch (c) {
            case 'o': o->out = optarg; break;
            case 's': {
                o->shapes.clear();
                std::stringstream in(optarg);
                for (std::string part; std::getline(in, part, ',');) {
                    if (part.size() != 1 || part[0] < '1' || part[0] > '4')
                        return *why = "--shapes: want a list of 1..4, e.g. 3,4", false;
                    o->shapes.push_back(part[0] - '0');
                }
                if (o->shapes.empty()) return *why = "--shapes: want a list of 1..4, e.g. 3,4", false;
                break;
            }
            case 'm':
                if (!acpx::basic::parse_size(optarg, &n) || n == 0 || n > 1000)
                    return *why = "--maps: want 1..1000", false;
                o->maps = static_cast<uint32_t>(n);
                break;
            case 't':
                if (!acpx::basic::parse_size(optarg, &n) || n == 0 || n > 10000000)
                    return *why = "--trials: want 1..10^7", false;
                o->trials = static_cast<uint32_t>(n);
                break;
            case 'i':
                if (!acpx::basic::parse_size(optarg, &n) || n == 0 || n > 1000000)
                    return *why = "--iterations: want 1..10^6", false;
                o->iterations = static_cast<uint32_t>(n);
                break;
            case 'S':
                if (!acpx::basic::parse_size(optarg, &n)) return *why = "--seed: want a non-negative integer", false;
                o->seed = n;
                break;
            case 'w': o->wrap_all = true; break;
            case 'g':
                if (!acpx::basic::parse_size(optarg, &n) || n > 1000000)
                    return *why = "--simgrid-iterations: want 0..10^6", false;
                o->simgrid_iterations = static_cast<uint32_t>(n);
                break;
            case 'h':
                std::printf(
                    "usage: acpx-model seed000 [--out DIR] [--shapes 1,2,3,4] [--maps 10] [--trials 2500]\n"
                    "                          [--iterations 1000] [--seed S] [--wrap-all] [--simgrid-iterations 100]\n"
                    "Seed 000's Table 1 (NPB CG, 1 MiB messages) on its four shapes: no-ring, and --maps\n"
                    "maps each of TAC3, TAHB, O2F (and TAHB, O2F normalised) searched by the seed's\n"
                    "annealing (--trials a level), timed by the flow simulator over --iterations; the\n"
                    "gates, the analogues of Tables 2 and 3, solve times: DIR/seed000.md, seed000.csv.\n"
                    "--wrap-all: every dimension wraps (base: only B, the seed's 3)\n"
                    "--simgrid-iterations: each map also under SimGrid's smpirun (tools/simgrid/cg_kernel.c)\n"
                    "           for this many iterations, scaled to --iterations (0: not run)\n");
                std::exit(0);
            default:
                return *why = std::string("unknown option '") + (argv[optind - 1] ? argv[optind - 1] : "") + "'", false;
        }
    }
    if (optind < argc) return *why = "unexpected argument '" + std::string(argv[optind]) + "'", false;
    return true;
}

// Searches (or lays out, for no-ring) one run's map, scores it and times
// it in the flow simulator, without and (TAC3) with barriers.
void execute(Run &r, const Options &o) {
    const Shape &s = kShapes[r.shape - 1];
    cm::Topology t;
    std::string why;
    cm::parse_topology(topology_of(s, o.wrap_all), &t, &why);
    cp::Pattern pat;
    cp::cg_pattern(s.tasks, cp::kDefaultBytes, &pat, &why);
    cp::Evaluator ev(t, pat);
    std::vector<uint32_t> slots(t.nodes());
    for (uint32_t n = 0; n < slots.size(); ++n) slots[n] = n;
    const auto start = std::chrono::steady_clock::now();
    if (!r.method) {
        r.map = cp::no_ring(t, slots, s.tasks, !r.c_fastest);
    } else {
        cp::AnnealParams a;
        a.trials = o.trials;
        a.seed = r.seed;
        a.normalize = r.method->normalize;
        const std::string obj = r.method->objective;
        cp::Eq1Moves tac3(ev, false, r.method->tiebreak);  // eq. (1) priced move by move
        const cp::AnnealResult found =
            obj == "tac3"
                ? cp::anneal(s.tasks, slots, tac3, a)
                : cp::anneal(
                      s.tasks, slots,
                      [&](const std::vector<uint32_t> &pi) { return obj == "tahb" ? ev.eq2(pi) : ev.eq3(pi); }, a);
        r.map = found.map;
        for (const cp::Level &l : found.levels) r.accepted.push_back(l.tried ? 100.0 * l.accepted / l.tried : NAN);
    }
    r.solve = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.scores = ev.all(r.map);
    cm::flowsim::Params fp;
    fp.iterations = o.iterations;
    const auto steps = cp::flow_steps(pat);
    r.seconds = cm::flowsim::simulate(t, r.map, steps, fp).seconds;
    const bool tac3 = r.method && std::string(r.method->name) == "tac3";
    if (tac3) {
        fp.barrier = true;
        r.barrier = cm::flowsim::simulate(t, r.map, steps, fp).seconds;
    }
    if (o.kernel.empty() || o.simgrid_iterations == 0) return;
    // SimGrid: the map's platform in a directory of its own, the kernel
    // without and (TAC3) with barriers; the flow simulator over as many
    // iterations beside it.
    char tmpl[] = "/tmp/acpx-seed000.XXXXXX";
    if (!mkdtemp(tmpl)) return void(r.sg_error = "cannot make a temporary directory");
    const std::string dir = tmpl;
    SimgridLinks links;
    const std::string iters = std::to_string(o.simgrid_iterations), bytes = std::to_string(cp::kDefaultBytes);
    fp.iterations = o.simgrid_iterations;
    fp.barrier = false;
    r.fs_short = cm::flowsim::simulate(t, r.map, steps, fp).seconds;
    fp.barrier = true;
    if (tac3) r.fs_short_barrier = cm::flowsim::simulate(t, r.map, steps, fp).seconds;
    if (write_simgrid_platform(t, r.map, links, dir, &why) &&
        run_kernel(o.kernel, dir, r.map.size(), {iters, bytes}, links, &r.sg, &why) &&
        (!tac3 || run_kernel(o.kernel, dir, r.map.size(), {iters, bytes, "barrier"}, links, &r.sg_barrier, &why)))
        why.clear();
    r.sg_error = why;
    std::remove((dir + "/platform.xml").c_str());
    std::remove((dir + "/hostfile").c_str());
    rmdir(dir.c_str());
}

const char *name_of(const Run &r) { return r.method ? r.method->name : r.c_fastest ? "no-ring-c" : "no-ring"; }

// The mean of a field of a method's runs on a shape; NAN without any.
double mean_of(const std::vector<Run> &runs, int shape, const char *method, double Run::*field = &Run::seconds) {
    double sum = 0;
    int n = 0;
    for (const Run &r : runs)
        if (r.shape == shape && !std::strcmp(name_of(r), method)) sum += r.*field, ++n;
    return n ? sum / n : NAN;
}

// eq. (1) of a collision-free CG map: one M/B a CCS.
bool collision_free(const Run &r) { return r.scores.max_coll <= 1; }

std::string fmt(const char *f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

}  // namespace

int run_seed000(int argc, char **argv) {
    Options o;
    std::string why;
    if (!parse(argc, argv, &o, &why)) return std::fprintf(stderr, "acpx-model: seed000: %s\n", why.c_str()), 2;
    std::string no_simgrid;
    if (o.simgrid_iterations == 0)
        no_simgrid = "not asked (--simgrid-iterations 0)";
    else if ((o.kernel = find_kernel("cg_kernel", &why)).empty())
        no_simgrid = why;
    std::vector<Run> runs;
    for (const int s : o.shapes) {
        Run base;
        base.shape = s;
        runs.push_back(base);  // no-ring
        Run c = base;
        c.c_fastest = true;
        runs.push_back(c);
        for (const Method &m : kMethods)
            for (uint32_t k = 1; k <= o.maps; ++k) {
                Run r = base;
                r.method = &m;
                r.map_no = k;
                r.seed = o.seed * 1000 + k;
                runs.push_back(r);
            }
    }
    // Runs in parallel, a core each: each builds its own evaluator. The
    // solve times are per run, on one core.
    std::atomic<size_t> next{0};
    std::mutex print;
    const auto t0 = std::chrono::steady_clock::now();
    auto worker = [&] {
        for (size_t i; (i = next++) < runs.size();) {
            execute(runs[i], o);
            const Run &r = runs[i];
            std::lock_guard<std::mutex> lock(print);
            std::printf("# shape %d %s map %u: eq1 %.4g s (max coll %u), %.4f s simulated, solved in %.1f s\n", r.shape,
                        name_of(r), r.map_no, r.scores.eq1, r.scores.max_coll, r.seconds, r.solve);
            std::fflush(stdout);
        }
    };
    std::vector<std::thread> pool;
    const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    for (unsigned i = 0; i < threads; ++i) pool.emplace_back(worker);
    for (auto &th : pool) th.join();

    // Table 3's analogue: shape 1's TAC3 maps (or the first shape run)
    // at the seed's message sizes, without and with barriers.
    const int t3_shape = o.shapes.front();
    const Shape &ts = kShapes[t3_shape - 1];
    std::vector<double> t3_ratio;
    {
        cm::Topology t;
        cm::parse_topology(topology_of(ts, o.wrap_all), &t, &why);
        for (uint64_t kb = 32; kb <= 2048; kb *= 2) {
            cp::Pattern pat;
            cp::cg_pattern(ts.tasks, kb << 10, &pat, &why);
            const auto steps = cp::flow_steps(pat);
            double without = 0, with = 0;
            for (const Run &r : runs) {
                if (r.shape != t3_shape || !r.method || std::strcmp(r.method->name, "tac3")) continue;
                cm::flowsim::Params fp;
                fp.iterations = o.iterations;
                without += cm::flowsim::simulate(t, r.map, steps, fp).seconds;
                fp.barrier = true;
                with += cm::flowsim::simulate(t, r.map, steps, fp).seconds;
            }
            t3_ratio.push_back(without / with);
        }
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::ofstream csv(o.out + "/seed000.csv"), md(o.out + "/seed000.md");
    if (!csv || !md) {
        std::fprintf(stderr, "acpx-model: seed000: cannot write %s/seed000.csv and .md\n", o.out.c_str());
        return 1;
    }
    csv << "shape,method,map,seed,eq1_s,eq2_byte_hops,eq3,max_coll,seconds,seconds_barrier,solve_s,"
           "simgrid_s,simgrid_barrier_s,flowsim_short_s,flowsim_short_barrier_s\n";
    auto opt = [](double v) { return std::isnan(v) ? std::string() : fmt("%.6f", v); };
    for (const Run &r : runs)
        csv << r.shape << "," << name_of(r) << "," << r.map_no << "," << r.seed << "," << fmt("%.9g", r.scores.eq1)
            << "," << fmt("%.9g", r.scores.eq2) << "," << fmt("%.9g", r.scores.eq3) << "," << r.scores.max_coll << ","
            << fmt("%.6f", r.seconds) << "," << opt(r.barrier) << "," << fmt("%.3f", r.solve) << "," << opt(r.sg) << ","
            << opt(r.sg_barrier) << "," << opt(r.fs_short) << "," << opt(r.fs_short_barrier) << "\n";

    md << "# Seed 000 reproduced: TAC3 and its baselines on the seed's shapes\n\n"
       << "`acpx-model seed000 --maps " << o.maps << " --trials " << o.trials << " --iterations " << o.iterations
       << " --seed " << o.seed << (o.wrap_all ? " --wrap-all" : "") << "` (" << fmt("%.0f", took)
       << " s). NPB CG (`cg:32`, `cg:64`), 1 MiB messages; maps searched by `acpx-model place`'s annealing "
       << "(T0 10, Tend 1e-8, factor 0.9, " << o.trials << " trials a level, a random start), " << o.maps
       << " maps a method (seeds " << o.seed * 1000 + 1 << ".." << o.seed * 1000 + o.maps
       << "); each timed by the flow simulator (`acpx-model flowsim`: 5 GB/s links shared max-min fairly, alpha "
          "47 us, beta 4 us) over "
       << o.iterations << " iterations. Torus `order=XYZACB`"
       << (o.wrap_all ? ", every dimension wrapping" : ", B wrapping only")
       << ". TAC3 breaks eq. (1)'s ties by hop-bytes (eq. (2), scaled under half of M/B: eq. (1) still "
          "decides); TAC3 plain is eq. (1) alone, as the seed writes it. The seed's FX10 figures in brackets; its "
          "default map and RMATT are quoted only (neither is available).\n\n";
    md << "## Table 1 (seconds, mean over the maps)\n\n"
       << "| shape | no-ring | TAHB | O2F | TAC3 | TAC3 barrier | TAC3 plain | TAHB norm. | O2F norm. | no-ring C "
          "fastest | FX10 default | RMATT |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const int s : o.shapes) {
        const double *f = kShapes[s - 1].fx10;
        md << "| " << s << " " << kShapes[s - 1].dims << " | " << fmt("%.3f", mean_of(runs, s, "no-ring")) << " ("
           << fmt("%.3f", f[kNoRing]) << ") | " << fmt("%.3f", mean_of(runs, s, "tahb")) << " ("
           << fmt("%.3f", f[kTahb]) << ") | " << fmt("%.3f", mean_of(runs, s, "o2f")) << " (" << fmt("%.3f", f[kO2f])
           << ") | " << fmt("%.3f", mean_of(runs, s, "tac3")) << " (" << fmt("%.3f", f[kTac3]) << ") | "
           << fmt("%.3f", mean_of(runs, s, "tac3", &Run::barrier)) << " (" << fmt("%.3f", f[kTac3Barrier]) << ") | "
           << fmt("%.3f", mean_of(runs, s, "tac3-plain")) << " | " << fmt("%.3f", mean_of(runs, s, "tahb-n")) << " | "
           << fmt("%.3f", mean_of(runs, s, "o2f-n")) << " | " << fmt("%.3f", mean_of(runs, s, "no-ring-c")) << " | ("
           << fmt("%.3f", f[kDefault]) << ") | (" << fmt("%.3f", f[kRmatt]) << ") |\n";
    }
    md << "\n## Gates\n\n";
    bool faster = true;
    std::string ratios;
    for (const int s : o.shapes) {
        const double tac3 = mean_of(runs, s, "tac3"), tahb = mean_of(runs, s, "tahb"), o2f = mean_of(runs, s, "o2f");
        faster = faster && tac3 < tahb && tac3 < o2f;
        const double *f = kShapes[s - 1].fx10;
        ratios += "| " + std::to_string(s) + " | " + fmt("%.2f", tahb / tac3) + " (" +
                  fmt("%.2f", f[kTahb] / f[kTac3]) + ") | " + fmt("%.2f", o2f / tac3) + " (" +
                  fmt("%.2f", f[kO2f] / f[kTac3]) + ") |\n";
    }
    md << "- TAC3 faster than TAHB and O2F in every shape: **" << (faster ? "yes" : "no") << "**\n\n"
       << "| shape | TAHB / TAC3 | O2F / TAC3 |\n|---|---|---|\n"
       << ratios;
    bool all_free = true;
    md << "\n- TAC3 maps at eq. (1) = 4 M/B (no collision in any CCS); the gate asks all in shapes 2-4 "
          "(the seed's shape 1: 6 of 10):\n\n| shape | collision-free TAC3 maps | TAC3 plain |\n|---|---|---|\n";
    for (const int s : o.shapes) {
        uint32_t free = 0, plain = 0;
        for (const Run &r : runs) {
            if (r.shape != s) continue;
            if (!std::strcmp(name_of(r), "tac3")) free += collision_free(r);
            if (!std::strcmp(name_of(r), "tac3-plain")) plain += collision_free(r);
        }
        if (s >= 2 && free < o.maps) all_free = false;
        md << "| " << s << " | " << free << " of " << o.maps << " | " << plain << " of " << o.maps << " |\n";
    }
    md << "\nGate (shapes 2-4, every TAC3 map collision-free): **" << (all_free ? "met" : "not met") << "**\n\n";
    md << "## Table 2 analogue: shape " << t3_shape << "'s TAC3 maps\n\n"
       << "| map | eq. (1) / (M/B) | max coll | no barrier s | barrier s | barrier gain |\n|---|---|---|---|---|---|\n";
    for (const Run &r : runs) {
        if (r.shape != t3_shape || !r.method || std::strcmp(r.method->name, "tac3")) continue;
        md << "| " << r.map_no << " | " << fmt("%.0f", r.scores.eq1 / (cp::kDefaultBytes / cp::kSeedBandwidth)) << " | "
           << r.scores.max_coll << " | " << fmt("%.3f", r.seconds) << " | " << fmt("%.3f", r.barrier) << " | "
           << fmt("%.0f%%", 100 * (1 - r.barrier / r.seconds)) << " |\n";
    }
    md << "\n## Table 3 analogue: no barrier / barrier, shape " << t3_shape
       << "'s TAC3 maps (mean), by message size\n\n"
       << "| KB | simulated | seed (FX10) |\n|---|---|---|\n";
    for (size_t i = 0; i < t3_ratio.size(); ++i)
        md << "| " << (32u << i) << " | " << fmt("%.3f", t3_ratio[i]) << " | " << fmt("%.3f", kSeedTable3[i]) << " |\n";
    md << "\n## Acceptance (% of the moves taken at each level, every 10th level, mean over a method's maps)\n\n"
       << "| shape | method | levels 0, 10, 20, ... |\n|---|---|---|\n";
    for (const int s : o.shapes)
        for (const Method &m : kMethods) {
            std::vector<double> sum;
            std::vector<int> n;
            for (const Run &r : runs) {
                if (r.shape != s || r.method != &m) continue;
                sum.resize(std::max(sum.size(), r.accepted.size()), 0), n.resize(sum.size(), 0);
                for (size_t i = 0; i < r.accepted.size(); ++i)
                    if (!std::isnan(r.accepted[i])) sum[i] += r.accepted[i], ++n[i];
            }
            md << "| " << s << " | " << m.name << " |";
            for (size_t i = 0; i < sum.size(); i += 10) md << " " << (n[i] ? fmt("%.0f", sum[i] / n[i]) : "-");
            md << " |\n";
        }
    md << "\n## Solve times (s a map, one core; the seed's at 48 / 96 nodes in brackets)\n\n"
       << "| shape | nodes | TAC3 | TAHB | O2F |\n|---|---|---|---|---|\n";
    for (const int s : o.shapes) {
        const bool big = kShapes[s - 1].tasks == 64;
        const double *seed = big ? kSeedSolve96 : kSeedSolve48;
        md << "| " << s << " | " << (big ? 96 : 48) << " | " << fmt("%.1f", mean_of(runs, s, "tac3", &Run::solve))
           << " (" << fmt("%.0f", seed[0]) << ") | " << fmt("%.1f", mean_of(runs, s, "tahb", &Run::solve)) << " ("
           << fmt("%.0f", seed[1]) << ") | " << fmt("%.1f", mean_of(runs, s, "o2f", &Run::solve)) << " ("
           << fmt("%.0f", seed[2]) << ") |\n";
    }
    md << "\n## SimGrid, the independent check\n\n";
    std::string first_error;
    for (const Run &r : runs)
        if (first_error.empty() && !r.sg_error.empty()) first_error = r.sg_error;
    if (!no_simgrid.empty()) {
        md << "Not run: " << no_simgrid << ".\n";
    } else {
        const double scale = static_cast<double>(o.iterations) / o.simgrid_iterations;
        md << "Every map's CG kernel (`tools/simgrid/cg_kernel.c`: NPB's irecv, send, wait) under `smpirun`, "
           << o.simgrid_iterations
           << " iterations, on a platform `acpx-model place --simgrid` writes: a Full zone, a link per direction "
              "(5 GB/s, the routes of the flow simulator), each message's start-up alpha a link of its sender's; "
              "SMPI's model (CM02) without factors on bandwidth or cross traffic. Seconds scaled to "
           << o.iterations << " iterations:\n\n"
           << "| shape | no-ring | TAHB | O2F | TAC3 | TAC3 barrier | TAC3 plain | TAHB norm. | O2F norm. | no-ring C "
              "fastest |\n"
           << "|---|---|---|---|---|---|---|---|---|---|\n";
        bool faster = true;
        for (const int s : o.shapes) {
            const double tac3 = mean_of(runs, s, "tac3", &Run::sg);
            faster = faster && tac3 < mean_of(runs, s, "tahb", &Run::sg) && tac3 < mean_of(runs, s, "o2f", &Run::sg);
            md << "| " << s << " | " << fmt("%.3f", scale * mean_of(runs, s, "no-ring", &Run::sg));
            for (const char *m : {"tahb", "o2f", "tac3"})
                md << " | " << fmt("%.3f", scale * mean_of(runs, s, m, &Run::sg));
            md << " | " << fmt("%.3f", scale * mean_of(runs, s, "tac3", &Run::sg_barrier));
            for (const char *m : {"tac3-plain", "tahb-n", "o2f-n", "no-ring-c"})
                md << " | " << fmt("%.3f", scale * mean_of(runs, s, m, &Run::sg));
            md << " |\n";
        }
        md << "\nTAC3 faster than TAHB and O2F in every shape, by SimGrid: **" << (faster ? "yes" : "no") << "**\n\n"
           << "Agreement, SimGrid / flow simulator over the same " << o.simgrid_iterations
           << " iterations, every map (without and with barriers):\n\n"
           << "| shape | runs | mean | min | max | within 10% |\n|---|---|---|---|---|---|\n";
        for (const int s : o.shapes) {
            std::vector<double> ratios;
            for (const Run &r : runs) {
                if (r.shape != s) continue;
                if (!std::isnan(r.sg)) ratios.push_back(r.sg / r.fs_short);
                if (!std::isnan(r.sg_barrier)) ratios.push_back(r.sg_barrier / r.fs_short_barrier);
            }
            if (ratios.empty()) continue;
            double sum = 0, lo = ratios[0], hi = ratios[0];
            size_t within = 0;
            for (const double x : ratios) {
                sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
                within += std::fabs(x - 1) <= 0.1;
            }
            md << "| " << s << " | " << ratios.size() << " | " << fmt("%.3f", sum / ratios.size()) << " | "
               << fmt("%.3f", lo) << " | " << fmt("%.3f", hi) << " | " << within << " of " << ratios.size() << " |\n";
        }
        if (!first_error.empty()) md << "\nSome runs failed; the first: " << first_error << "\n";
    }
    if (!csv.flush() || !md.flush()) {
        std::fprintf(stderr, "acpx-model: seed000: cannot write %s/seed000.csv and .md\n", o.out.c_str());
        return 1;
    }
    std::printf("# wrote %s/seed000.md and seed000.csv in %.0f s\n", o.out.c_str(), took);
    return 0;
}

}  // namespace acpx::tools
