// acpx-model flowsim: a placement's pattern run through the flow
// simulator (collectives/model/flowsim.hpp), iteration after iteration.
#include "flowsim.hpp"

#include <getopt.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "basic/config.hpp"
#include "collectives/model/flowsim.hpp"
#include "collectives/place/pattern.hpp"
#include "parse_number.hpp"

namespace acpx::tools {
namespace {

namespace cm = acpx::collectives::model;
namespace cp = acpx::collectives::place;

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: acpx-model flowsim --pattern PATTERN --topology TOPO [--map FILE] [--iterations N]\n"
                 "                          [--barrier] [--alpha S] [--beta S] [--bandwidth B]\n"
                 "Runs the pattern's CCS (acpx-model place --help: PATTERN) N times (default 1000) as\n"
                 "flows along the routes, sharing links max-min fairly; prints the time.\n"
                 "--map       task i's node on line i (default: task i on node i)\n"
                 "--barrier   every CCS waits for the whole previous one, plus beta\n"
                 "--alpha     s from a message's dependencies to its start (default 47e-6)\n"
                 "--beta      s a barrier adds (default 4e-6)\n"
                 "--bandwidth bytes/s a link (default 5e9)\n");
}

int fail(const std::string &why) {
    std::fprintf(stderr, "acpx-model: flowsim: %s\n", why.c_str());
    return 2;
}

}  // namespace

int run_flowsim(int argc, char **argv) {
    static const option opts[] = {
        {"pattern", required_argument, nullptr, 'p'}, {"topology", required_argument, nullptr, 't'},
        {"map", required_argument, nullptr, 'm'},     {"iterations", required_argument, nullptr, 'i'},
        {"barrier", no_argument, nullptr, 'B'},       {"alpha", required_argument, nullptr, 'a'},
        {"beta", required_argument, nullptr, 'b'},    {"bandwidth", required_argument, nullptr, 'w'},
        {"help", no_argument, nullptr, 'h'},          {nullptr, 0, nullptr, 0}};
    std::string pattern, topology, map;
    cm::flowsim::Params p;
    p.iterations = 1000;
    optind = 2;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        size_t n = 0;
        switch (c) {
            case 'p': pattern = optarg; break;
            case 't': topology = optarg; break;
            case 'm': map = optarg; break;
            case 'i':
                if (!acpx::basic::parse_size(optarg, &n) || n == 0 || n > 100000000)
                    return fail("--iterations: want 1..10^8");
                p.iterations = static_cast<uint32_t>(n);
                break;
            case 'B': p.barrier = true; break;
            case 'a':
                if (!parse_number(optarg, &p.alpha) || p.alpha < 0) return fail("--alpha: want seconds >= 0");
                break;
            case 'b':
                if (!parse_number(optarg, &p.beta) || p.beta < 0) return fail("--beta: want seconds >= 0");
                break;
            case 'w':
                if (!parse_number(optarg, &p.bandwidth) || p.bandwidth <= 0)
                    return fail("--bandwidth: want bytes/s above 0");
                break;
            case 'h': usage(stdout); return 0;
            default: return fail(std::string("unknown option '") + (argv[optind - 1] ? argv[optind - 1] : "") + "'");
        }
    }
    if (optind < argc) return fail("unexpected argument '" + std::string(argv[optind]) + "'");
    if (pattern.empty() || topology.empty()) return fail("--pattern and --topology are required");
    std::string why;
    cm::Topology topo;
    if (cm::is_no_topology(topology) || !cm::parse_topology(topology, &topo, &why))
        return fail("--topology: " + (why.empty() ? std::string("names no network") : why));
    cp::Pattern pat;
    if (!cp::parse_pattern(pattern, &pat, &why)) return fail("--pattern " + why);
    if (pat.ccs.empty()) return fail("--pattern " + pattern + " has no CCS to run (a traffic matrix)");
    std::vector<uint32_t> placement;
    if (!map.empty()) {
        if (!cm::read_node_map(map, &topo, &why)) return fail("--map: " + why);
        if (topo.map.size() < pat.tasks)
            return fail("--map: " + map + " places " + std::to_string(topo.map.size()) + " tasks, the pattern has " +
                        std::to_string(pat.tasks));
        placement.assign(topo.map.begin(), topo.map.begin() + pat.tasks);
    } else {
        if (topo.nodes() < pat.tasks)
            return fail(std::to_string(topo.nodes()) + " nodes for " + std::to_string(pat.tasks) +
                        " tasks: give --map");
        for (uint32_t i = 0; i < pat.tasks; ++i) placement.push_back(i);
    }
    const auto start = std::chrono::steady_clock::now();
    const cm::flowsim::Result r = cm::flowsim::simulate(topo, placement, cp::flow_steps(pat), p);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("# acpx-model flowsim: %s, %u tasks, %zu CCS x %u iterations%s; %s; alpha %g s, beta %g s, %g B/s\n",
                pattern.c_str(), pat.tasks, pat.ccs.size(), p.iterations, p.barrier ? ", barrier" : "",
                topo.describe().c_str(), p.alpha, p.beta, p.bandwidth);
    std::printf("# %llu flows simulated in %.2f s\n", static_cast<unsigned long long>(r.flows), took);
    std::printf("# seconds %.9g\n", r.seconds);
    return 0;
}

}  // namespace acpx::tools
