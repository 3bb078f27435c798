// acpx-model simcheck: the collision model (seed 003, predict.hpp) against
// the flow simulator and SimGrid on meshes and tori too large to launch
// here. Each algorithm's round, as the model schedules it (one CCS per
// step), runs in both simulators with one rank per node; the model prices
// it from a calibration of the simulators' own links (alpha + bytes / B).
#include "simcheck.hpp"

#include <getopt.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "basic/config.hpp"
#include "collectives/model/flowsim.hpp"
#include "collectives/model/predict.hpp"
#include "collectives/place/pattern.hpp"
#include "simgrid_platform.hpp"

namespace acpx::tools {
namespace {

namespace cm = acpx::collectives::model;
namespace cp = acpx::collectives::place;

// Seed 003's shapes and seed 000's four.
const char *const kTopologies[] = {"torus:1x6x4",
                                   "torus:2x3x4",
                                   "torus:1x2x4x2x3x2:order=XYZACB:wrap=000010",
                                   "torus:2x2x2x2x3x2:order=XYZACB:wrap=000010",
                                   "torus:1x1x4x2x3x2:order=XYZACB:wrap=000010",
                                   "torus:1x2x2x2x3x2:order=XYZACB:wrap=000010"};

struct Options {
    std::vector<std::string> topologies, ops = {"allgather", "bcast"};
    uint64_t min_size = 1024, max_size = 4 << 20;
    std::string out = ".";
    bool simgrid = true;
    bool ports = false;  // both simulators with a port per node (flowsim::Params::ports)
};

// The simulators' links as a calibration: a copy between nodes costs
// alpha + bytes / B, nothing else costs anything.
cm::Calibration links_calibration(const SimgridLinks &l) {
    std::vector<std::pair<double, double>> pts;
    for (double b = 1; b <= double(1 << 30); b *= 2) pts.emplace_back(b, l.alpha + b / l.bandwidth);
    cm::Calibration c;
    c.comm = c.comm_direct = c.comm_net = cm::Samples(pts);
    c.memcpy = cm::Samples({{1, 0}, {double(1 << 30), 0}});
    c.source = "the simulators' links";
    return c;
}

std::string num(double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

struct Point {
    std::string topology, op, algo;
    uint32_t procs = 0;
    uint64_t size = 0;
    double predicted = 0, steps = 0, flows = 0, simgrid = NAN;
};

// SimGrid: the round's steps as a ccs: file, run by ccs_kernel with a
// barrier between steps (the model's steps follow each other).
double simgrid_round(const std::string &kernel, const cm::Topology &t, const std::vector<cm::flowsim::Step> &steps,
                     uint32_t procs, const SimgridLinks &links, std::string *why) {
    char tmpl[] = "/tmp/acpx-simcheck.XXXXXX";
    if (!mkdtemp(tmpl)) return *why = "cannot make a temporary directory", NAN;
    const std::string dir = tmpl;
    std::vector<uint32_t> map(procs);
    for (uint32_t i = 0; i < procs; ++i) map[i] = i;
    double s = NAN;
    {
        std::ofstream f(dir + "/round.ccs");
        for (const auto &step : steps) {
            for (const auto &m : step) f << m.src << " " << m.dst << " " << m.bytes << "\n";
            f << "--\n";
        }
    }
    if (write_simgrid_platform(t, map, links, dir, why))
        run_kernel(kernel, dir, procs, {dir + "/round.ccs", "1", "barrier"}, links, &s, why);
    for (const char *f : {"/platform.xml", "/hostfile", "/round.ccs"}) std::remove((dir + f).c_str());
    rmdir(dir.c_str());
    return s;
}

}  // namespace

int run_simcheck(int argc, char **argv) {
    Options o;
    static const option opts[] = {
        {"topology", required_argument, nullptr, 't'}, {"op", required_argument, nullptr, 'o'},
        {"sizes", required_argument, nullptr, 's'},    {"out", required_argument, nullptr, 'O'},
        {"no-simgrid", no_argument, nullptr, 'n'},     {"ports", no_argument, nullptr, 'p'},
        {"help", no_argument, nullptr, 'h'},           {nullptr, 0, nullptr, 0}};
    optind = 2;
    opterr = 0;
    auto fail = [](const std::string &why) {
        std::fprintf(stderr, "acpx-model: simcheck: %s\n", why.c_str());
        return 2;
    };
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        const std::string v = optarg ? optarg : "";
        switch (c) {
            case 't': o.topologies.push_back(v); break;
            case 'o':
                if (v != "bcast" && v != "allgather" && v != "both") return fail("--op: want bcast, allgather or both");
                o.ops = v == "both" ? std::vector<std::string>{"allgather", "bcast"} : std::vector<std::string>{v};
                break;
            case 's': {
                const auto colon = v.find(':');
                size_t lo = 0, hi = 0;
                if (colon == std::string::npos || !acpx::basic::parse_size(v.substr(0, colon).c_str(), &lo) ||
                    !acpx::basic::parse_size(v.c_str() + colon + 1, &hi) || lo == 0 || lo > hi || hi > (1u << 30))
                    return fail("--sizes: want MIN:MAX, e.g. 1K:4M");
                o.min_size = lo, o.max_size = hi;
                break;
            }
            case 'O': o.out = v; break;
            case 'n': o.simgrid = false; break;
            case 'p': o.ports = true; break;
            case 'h':
                std::printf(
                    "usage: acpx-model simcheck [--topology SPEC]... [--op bcast|allgather|both] [--sizes 1K:4M]\n"
                    "                           [--out DIR] [--no-simgrid] [--ports]\n"
                    "Every algorithm's round on each topology (default: seed 003's torus:1x6x4 and\n"
                    "torus:2x3x4 and seed 000's four shapes), one rank per node: the model's prediction\n"
                    "(from the simulators' links: alpha + bytes / B) against the flow simulator (steps\n"
                    "one after another; and as data flows) and SimGrid (steps behind barriers):\n"
                    "DIR/simcheck.csv and simcheck.md (the ratios from 64 KiB, the best algorithm by each).\n"
                    "--ports: in both simulators a node's messages share one injection and one ejection\n"
                    "         port, as in the model's default (without: only the links are shared, and the\n"
                    "         model is given ports=all, unless a --topology names its own ports=)\n");
                return 0;
            default: return fail(std::string("unknown option '") + (argv[optind - 1] ? argv[optind - 1] : "") + "'");
        }
    }
    if (optind < argc) return fail("unexpected argument '" + std::string(argv[optind]) + "'");
    if (o.topologies.empty()) o.topologies.assign(std::begin(kTopologies), std::end(kTopologies));
    std::string why, kernel, no_simgrid = "not asked (--no-simgrid)";
    if (o.simgrid) {
        kernel = find_kernel("ccs_kernel", &why);
        no_simgrid = kernel.empty() ? why : "";
    }
    SimgridLinks links;
    links.ports = o.ports;
    const cm::Calibration cal = links_calibration(links);
    std::vector<Point> points;
    for (const std::string &spec : o.topologies) {
        cm::Topology t;
        if (!cm::parse_topology(spec, &t, &why)) return fail("--topology: " + why);
        if (t.nodes() > 1024) return fail("--topology " + spec + ": over 1,024 nodes");
        // The model is told the simulators' ports: one a node (--ports), or
        // links only (ports=all), unless the spec names its own.
        if (!o.ports && spec.find(":ports=") == std::string::npos) t.ports = cm::Topology::kAllPorts;
        const auto procs = static_cast<uint32_t>(t.nodes());
        for (const std::string &op : o.ops) {
            cm::Case base;
            base.op = op == "bcast" ? cm::Op::kBcast : cm::Op::kAllgather;
            base.members = procs;
            for (const cm::Case &k : cm::candidates(base)) {
                if (k.hier) continue;
                for (uint64_t size = o.min_size; size <= o.max_size; size *= 2) {
                    cm::Case c = k;
                    c.bytes = size;
                    const cm::Prediction pred = cm::predict(c, cal, &t);
                    const std::vector<cm::flowsim::Step> steps =
                        cp::flow_steps(cp::pattern_of_steps(pred.steps, procs));
                    std::vector<uint32_t> map(procs);
                    for (uint32_t i = 0; i < procs; ++i) map[i] = i;
                    cm::flowsim::Params fp;
                    fp.alpha = links.alpha;
                    fp.bandwidth = links.bandwidth;
                    fp.beta = 0;
                    fp.ports = o.ports;
                    fp.barrier = true;
                    Point pt{spec, op, cm::algo_name(c), procs, size, pred.total()};
                    pt.steps = cm::flowsim::simulate(t, map, steps, fp).seconds;
                    fp.barrier = false;
                    pt.flows = cm::flowsim::simulate(t, map, steps, fp).seconds;
                    if (!kernel.empty()) {
                        pt.simgrid = simgrid_round(kernel, t, steps, procs, links, &why);
                        if (std::isnan(pt.simgrid)) return fail("SimGrid: " + why);
                    }
                    std::printf("# %s %s %s %llu B: predicted %s us, flowsim %s us (as flows %s), SimGrid %s us\n",
                                spec.c_str(), op.c_str(), pt.algo.c_str(), static_cast<unsigned long long>(size),
                                num(pt.predicted * 1e6).c_str(), num(pt.steps * 1e6).c_str(),
                                num(pt.flows * 1e6).c_str(), num(pt.simgrid * 1e6).c_str());
                    std::fflush(stdout);
                    points.push_back(pt);
                }
            }
        }
    }

    std::ofstream csv(o.out + "/simcheck.csv"), md(o.out + "/simcheck.md");
    if (!csv || !md) return std::fprintf(stderr, "acpx-model: simcheck: cannot write %s\n", o.out.c_str()), 1;
    csv << "topology,op,algo,procs,size,predicted_us,flowsim_steps_us,flowsim_flows_us,simgrid_us\n";
    for (const Point &p : points)
        csv << p.topology << "," << p.op << "," << p.algo << "," << p.procs << "," << p.size << ","
            << num(p.predicted * 1e6) << "," << num(p.steps * 1e6) << "," << num(p.flows * 1e6) << ","
            << (std::isnan(p.simgrid) ? "" : num(p.simgrid * 1e6)) << "\n";
    md << "# The collision model against two simulators (acpx-model simcheck)\n\n"
       << "One rank per node; links of 5 GB/s, a message's start-up 47 us; the model priced from those links "
          "(`alpha + bytes / B`), each algorithm's round as it schedules it, one CCS per step, run step after step "
          "in the flow simulator and (behind barriers) under SimGrid. Ratio: predicted over simulated. Target "
          "(issue 64): 0.8-1.25 from 64 KiB, the same best algorithm at >= 90% of the points (the model's pick "
          "counts as the simulator's best when the simulator times it as fast, to 0.1%: two algorithms may tie, as "
          "the per-block tree and Bruck do over 96 nodes). Messages under 64 bytes (SimGrid's barriers') start in 1 "
          "us. The simulators here "
       << (o.ports ? "give a node one injection and one ejection port, links of 5 GB/s (--ports); so does the model "
                     "(ACP_TOPOLOGY's default, ports=1)"
                   : "share links only (a node's messages to different neighbours run at once, as on a torus "
                     "whose nodes have several injection engines; --ports gives them one port each); the model is "
                     "told so (ACP_TOPOLOGY's ports=all)")
       << ".\n\n"
       << "| topology | op | points >= 64 KiB | in 0.8-1.25 vs flowsim | vs SimGrid | same best as flowsim | as "
          "SimGrid | SimGrid / flowsim |\n|---|---|---|---|---|---|---|---|\n";
    for (const std::string &spec : o.topologies)
        for (const std::string &op : o.ops) {
            uint32_t big = 0, in_fs = 0, in_sg = 0, sizes = 0, best_fs = 0, best_sg = 0;
            double lo = INFINITY, hi = 0;
            std::map<uint64_t, std::vector<const Point *>> by_size;
            for (const Point &p : points) {
                if (p.topology != spec || p.op != op) continue;
                by_size[p.size].push_back(&p);
                if (p.size < 65536) continue;
                if (!std::isnan(p.simgrid))
                    lo = std::min(lo, p.simgrid / p.steps), hi = std::max(hi, p.simgrid / p.steps);
                ++big;
                const double r = p.predicted / p.steps, rs = p.predicted / p.simgrid;
                in_fs += r >= 0.8 && r <= 1.25;
                in_sg += rs >= 0.8 && rs <= 1.25;
            }
            for (const auto &[size, ps] : by_size) {
                auto best = [&](double Point::*f) {
                    const Point *b = ps[0];
                    for (const Point *p : ps)
                        if (p->*f < b->*f) b = p;
                    return b;
                };
                // The model's best is the simulator's if the simulator
                // times it as fast, to 0.1% (two algorithms may tie, as
                // the per-block tree and Bruck do over 96 nodes).
                const Point *pick = best(&Point::predicted);
                auto as_fast = [&](double Point::*f) { return pick->*f <= best(f)->*f * (1 + 1e-3); };
                ++sizes;
                best_fs += as_fast(&Point::steps);
                best_sg += !std::isnan(ps[0]->simgrid) && as_fast(&Point::simgrid);
            }
            md << "| `" << spec << "` | " << op << " | " << big << " | " << in_fs << " | "
               << (no_simgrid.empty() ? std::to_string(in_sg) : "-") << " | " << best_fs << " of " << sizes << " | "
               << (no_simgrid.empty() ? std::to_string(best_sg) + " of " + std::to_string(sizes) : "-") << " | "
               << (no_simgrid.empty() ? num(lo) + "-" + num(hi) : "-") << " |\n";
        }
    if (!no_simgrid.empty()) md << "\nSimGrid not run: " << no_simgrid << ".\n";
    if (!csv.flush() || !md.flush()) return std::fprintf(stderr, "acpx-model: simcheck: cannot write\n"), 1;
    std::printf("# wrote %s/simcheck.md and simcheck.csv\n", o.out.c_str());
    return 0;
}

}  // namespace acpx::tools
