// acpx-model place: search a placement of a pattern's tasks on a network
// (collectives/place/anneal.hpp) by one of the seed's objectives, or
// evaluate a given one; every run ends with the line scripts read:
//   # eq1 SECONDS eq2 BYTE_HOPS eq3 VALUE max_coll C
#include "place.hpp"

#include <getopt.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "basic/config.hpp"
#include "collectives/model/topology.hpp"
#include "collectives/place/anneal.hpp"
#include "collectives/place/moves.hpp"
#include "collectives/place/no_ring.hpp"
#include "collectives/place/objective.hpp"
#include "collectives/place/pattern.hpp"
#include "parse_number.hpp"
#include "simgrid_platform.hpp"

namespace acpx::tools {
namespace {

namespace cm = acpx::collectives::model;
namespace cp = acpx::collectives::place;

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: acpx-model place --pattern PATTERN --topology TOPO [--nodes FILE] [--per-node C]\n"
                 "                        --method tac3|tac3-ports|tahb|o2f|no-ring[-c] [--seed S] [--out MAPFILE]\n"
                 "       acpx-model place --pattern PATTERN --topology TOPO --eval MAPFILE\n"
                 "Searches a placement of the pattern's tasks on the topology's nodes by simulated\n"
                 "annealing (seed 000), or evaluates MAPFILE; ends with the line\n"
                 "  # eq1 SECONDS eq2 BYTE_HOPS eq3 VALUE max_coll C\n"
                 "PATTERN    cg:N[:BYTES] (NPB CG), bcast:ALGO:P[:BYTES], allgather:ALGO:P[:BYTES],\n"
                 "           log:FILE (lines TASK send|isend|recv|irecv|wait PEER [BYTES]),\n"
                 "           ccs:FILE (lines SRC DST [BYTES], a line -- between two CCS),\n"
                 "           matrix:FILE (lines SRC DST BYTES; tahb and o2f only); BYTES default 1M\n"
                 "TOPO       ACP_TOPOLOGY's syntax: torus:1x2x4x2x3x2:order=XYZACB:wrap=000010, mesh:2, ...\n"
                 "--nodes    the allocation: node indices, one per line (default: every node)\n"
                 "--per-node tasks a node may take (default 1)\n"
                 "--method   tac3 (eq. 1), tac3-ports (eq. 1, ports counted), tahb (eq. 2),\n"
                 "           o2f (eq. 3), no-ring (no search: task i on the allocation's i-th node in index\n"
                 "           order, X fastest), no-ring-c (the same with the last dimension, C, fastest)\n"
                 "--out      the map in ACP_TOPOLOGY_MAP's format (default: standard output)\n"
                 "annealing: --t0 10 --tend 1e-8 --factor 0.9 --trials 2500 (per level), --seed 1,\n"
                 "           --normalize (each cost divided by the starting placement's)\n"
                 "--tiebreak hop-bytes|none  tac3, tac3-ports: among maps of equal eq. 1 the one of fewer\n"
                 "           byte-hops wins (default; eq. 1 still decides), or plain eq. 1 (the seed's)\n"
                 "--bandwidth B  link bytes/s for eq. 1 (default 5e9)\n"
                 "--simgrid DIR  also write DIR/platform.xml and DIR/hostfile: the network and the map\n"
                 "           for SimGrid's smpirun (tools/simgrid/cg_kernel.c; acpx-model seed000 runs it)\n");
}

int fail(const std::string &why) {
    std::fprintf(stderr, "acpx-model: place: %s\n", why.c_str());
    return 2;
}

struct Options {
    std::string pattern, topology, nodes, method, out, eval, simgrid;
    uint32_t per_node = 1;
    bool tiebreak = true;  // tac3, tac3-ports: eq. (2) breaks ties (objective.hpp)
    double bandwidth = cp::kSeedBandwidth;
    cp::AnnealParams anneal;
};

// The allocation: node indices, one per line (# comments), as a map file
// lists them (model::read_node_map: each below the network's node count,
// else PATH:LINE and why); each listed once.
bool read_nodes(const std::string &path, const cm::Topology &t, std::vector<uint32_t> *out, std::string *why) {
    cm::Topology listed = t;
    if (!cm::read_node_map(path, &listed, why)) return false;
    if (listed.map.empty()) return *why = path + ": lists no node", false;
    std::vector<uint8_t> seen(t.nodes(), 0);
    for (const uint32_t n : listed.map)
        if (seen[n]++) return *why = path + ": node " + std::to_string(n) + " is listed twice", false;
    *out = listed.map;
    return true;
}

bool parse(int argc, char **argv, Options *o, std::string *why) {
    static const option opts[] = {
        {"pattern", required_argument, nullptr, 'p'}, {"topology", required_argument, nullptr, 't'},
        {"nodes", required_argument, nullptr, 'n'},   {"per-node", required_argument, nullptr, 'c'},
        {"method", required_argument, nullptr, 'm'},  {"seed", required_argument, nullptr, 's'},
        {"out", required_argument, nullptr, 'o'},     {"eval", required_argument, nullptr, 'e'},
        {"t0", required_argument, nullptr, '0'},      {"tend", required_argument, nullptr, '1'},
        {"factor", required_argument, nullptr, 'f'},  {"trials", required_argument, nullptr, 'r'},
        {"normalize", no_argument, nullptr, 'N'},     {"bandwidth", required_argument, nullptr, 'b'},
        {"simgrid", required_argument, nullptr, 'g'}, {"tiebreak", required_argument, nullptr, 'T'},
        {"help", no_argument, nullptr, 'h'},          {nullptr, 0, nullptr, 0}};
    optind = 2;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        const std::string v = optarg ? optarg : "";
        size_t n = 0;
        switch (c) {
            case 'p': o->pattern = v; break;
            case 't': o->topology = v; break;
            case 'n': o->nodes = v; break;
            case 'c':
                if (!acpx::basic::parse_size(optarg, &n) || n == 0 || n > 1024)
                    return *why = "--per-node: want 1..1024", false;
                o->per_node = static_cast<uint32_t>(n);
                break;
            case 'm': o->method = v; break;
            case 's':
                if (!acpx::basic::parse_size(optarg, &n)) return *why = "--seed: want a non-negative integer", false;
                o->anneal.seed = n;
                break;
            case 'o': o->out = v; break;
            case 'e': o->eval = v; break;
            case '0':
                if (!parse_number(optarg, &o->anneal.t0)) return *why = "--t0: want a number", false;
                break;
            case '1':
                if (!parse_number(optarg, &o->anneal.tend)) return *why = "--tend: want a number", false;
                break;
            case 'f':
                if (!parse_number(optarg, &o->anneal.factor)) return *why = "--factor: want a number", false;
                break;
            case 'r':
                if (!acpx::basic::parse_size(optarg, &n) || n > UINT32_MAX)
                    return *why = "--trials: want a count", false;
                o->anneal.trials = static_cast<uint32_t>(n);
                break;
            case 'N': o->anneal.normalize = true; break;
            case 'g': o->simgrid = v; break;
            case 'T':
                if (v != "hop-bytes" && v != "none") return *why = "--tiebreak: want hop-bytes or none", false;
                o->tiebreak = v == "hop-bytes";
                break;
            case 'b':
                if (!parse_number(optarg, &o->bandwidth) || !(o->bandwidth > 0))
                    return *why = "--bandwidth: want bytes/s above 0", false;
                break;
            case 'h': usage(stdout); std::exit(0);
            default:
                return *why = std::string("unknown option '") + (argv[optind - 1] ? argv[optind - 1] : "") + "'", false;
        }
    }
    if (optind < argc) return *why = "unexpected argument '" + std::string(argv[optind]) + "'", false;
    if (o->pattern.empty()) return *why = "--pattern is required", false;
    if (o->topology.empty()) return *why = "--topology is required", false;
    if (o->eval.empty() == o->method.empty()) return *why = "give --method (to search) or --eval MAPFILE", false;
    if (!o->method.empty() && o->method != "tac3" && o->method != "tac3-ports" && o->method != "tahb" &&
        o->method != "o2f" && o->method != "no-ring" && o->method != "no-ring-c")
        return *why = "--method: '" + o->method + "' is none of tac3, tac3-ports, tahb, o2f, no-ring, no-ring-c", false;
    if (const std::string bad = cp::check_params(o->anneal); !bad.empty()) return *why = "annealing: " + bad, false;
    return true;
}

// Each CCS's messages and largest coll, on one line.
void print_ccs(cp::Evaluator &ev, const std::vector<uint32_t> &map) {
    if (ev.pattern().ccs.empty()) return;
    const std::vector<uint32_t> coll = ev.coll_per_ccs(map);
    std::string line = "# CCS (messages x largest coll):";
    for (size_t t = 0; t < coll.size(); ++t)
        line += " " + std::to_string(ev.pattern().ccs[t].size()) + "x" + std::to_string(coll[t]);
    std::printf("%s\n", line.c_str());
}

void print_scores(const cp::Scores &s) {
    std::printf("# eq1 %.9g eq2 %.9g eq3 %.9g max_coll %u\n", s.eq1, s.eq2, s.eq3, s.max_coll);
}

// The map in ACP_TOPOLOGY_MAP's format: comments, then a node a line.
// with_scores: the scores line too (a file; on standard output the run's
// last line says it).
std::string map_text(const Options &o, const std::vector<uint32_t> &map, const cp::Scores &s, bool with_scores) {
    char line[200];
    std::string text = "# acpx-model place --pattern " + o.pattern + " --topology " + o.topology + " --method " +
                       o.method + " --seed " + std::to_string(o.anneal.seed) + "\n";
    std::snprintf(line, sizeof line, "# eq1 %.9g eq2 %.9g eq3 %.9g max_coll %u\n", s.eq1, s.eq2, s.eq3, s.max_coll);
    if (with_scores) text += line;
    text += "# task i's node on line i (ACP_TOPOLOGY_MAP)\n";
    for (const uint32_t node : map) text += std::to_string(node) + "\n";
    return text;
}

// --simgrid: the platform and hostfile of the map, and how to run it.
int write_simgrid(const Options &o, const cm::Topology &topo, const std::vector<uint32_t> &map) {
    std::string why;
    SimgridLinks links;
    links.bandwidth = o.bandwidth;
    if (!write_simgrid_platform(topo, map, links, o.simgrid, &why)) {
        std::fprintf(stderr, "acpx-model: place: --simgrid: %s\n", why.c_str());
        return 1;
    }
    std::string cfg;
    for (const std::string &c : smpi_config(links)) cfg += " '" + c + "'";
    std::printf("# SimGrid: smpirun -np %zu -platform %s/platform.xml -hostfile %s/hostfile%s PROGRAM\n", map.size(),
                o.simgrid.c_str(), o.simgrid.c_str(), cfg.c_str());
    return 0;
}

}  // namespace

int run_place(int argc, char **argv) {
    Options o;
    std::string why;
    if (argc >= 3 && (!std::string(argv[2]).compare("--help") || !std::string(argv[2]).compare("-h")))
        return usage(stdout), 0;
    if (!parse(argc, argv, &o, &why)) return fail(why);
    cm::Topology topo;
    if (cm::is_no_topology(o.topology)) return fail("--topology: names no network");
    if (!cm::parse_topology(o.topology, &topo, &why)) return fail("--topology: " + why);
    cp::Pattern pat;
    if (!cp::parse_pattern(o.pattern, &pat, &why)) return fail("--pattern " + why);
    const bool needs_ccs = o.method == "tac3" || o.method == "tac3-ports";
    if (needs_ccs && pat.ccs.empty())
        return fail(o.method + " weighs concurrent communication sets; " + o.pattern +
                    " has no CCS (a traffic matrix: use tahb or o2f)");
    if (o.method == "tac3")
        if (const std::string bad = cp::single_port_problem(pat); !bad.empty()) return fail(bad);
    cp::Evaluator ev(topo, pat, o.bandwidth);

    if (!o.eval.empty()) {
        cm::Topology with_map = topo;
        if (!cm::read_node_map(o.eval, &with_map, &why)) return fail("--eval: " + why);
        if (with_map.map.size() < pat.tasks)
            return fail("--eval: " + o.eval + " places " + std::to_string(with_map.map.size()) +
                        " tasks, the pattern has " + std::to_string(pat.tasks));
        with_map.map.resize(pat.tasks);
        std::printf("# acpx-model place --eval %s: %s, %u tasks, %zu CCS; %s\n", o.eval.c_str(), o.pattern.c_str(),
                    pat.tasks, pat.ccs.size(), topo.describe().c_str());
        if (!o.simgrid.empty())
            if (const int st = write_simgrid(o, topo, with_map.map)) return st;
        print_ccs(ev, with_map.map);
        print_scores(ev.all(with_map.map));
        return 0;
    }

    std::vector<uint32_t> nodes;
    if (!o.nodes.empty()) {
        if (!read_nodes(o.nodes, topo, &nodes, &why)) return fail("--nodes: " + why);
    } else {
        if (topo.nodes() > (1u << 24)) return fail("--topology: over 2^24 nodes");
        for (uint32_t n = 0; n < topo.nodes(); ++n) nodes.push_back(n);
    }
    std::vector<uint32_t> slots;
    for (const uint32_t n : nodes)
        for (uint32_t c = 0; c < o.per_node; ++c) slots.push_back(n);
    if (slots.size() < pat.tasks)
        return fail(std::to_string(slots.size()) + " node slots (" + std::to_string(nodes.size()) + " nodes x " +
                    std::to_string(o.per_node) + ") for " + std::to_string(pat.tasks) + " tasks");

    std::printf("# acpx-model place: %s, %s: %u tasks, %zu CCS; %s; %zu nodes x %u\n", o.method.c_str(),
                o.pattern.c_str(), pat.tasks, pat.ccs.size(), topo.describe().c_str(), nodes.size(), o.per_node);
    std::vector<uint32_t> map;
    if (o.method == "no-ring" || o.method == "no-ring-c") {
        map = cp::no_ring(topo, slots, pat.tasks, o.method == "no-ring");
    } else {
        std::function<double(const std::vector<uint32_t> &)> cost;
        const bool tie = o.tiebreak;
        if (o.method == "tac3")
            cost = [&](const std::vector<uint32_t> &pi) { return tie ? ev.with_tiebreak(pi) : ev.eq1(pi); };
        if (o.method == "tac3-ports")
            cost = [&](const std::vector<uint32_t> &pi) { return tie ? ev.with_tiebreak(pi, true) : ev.eq1_ports(pi); };
        if (o.method == "tahb") cost = [&](const std::vector<uint32_t> &pi) { return ev.eq2(pi); };
        if (o.method == "o2f") cost = [&](const std::vector<uint32_t> &pi) { return ev.eq3(pi); };
        const auto start = std::chrono::steady_clock::now();
        // eq. (1)'s methods priced move by move (the same costs: the same map).
        const bool eq1 = o.method.rfind("tac3", 0) == 0 && !pat.ccs.empty();
        cp::Eq1Moves moves(ev, o.method == "tac3-ports", tie);
        const cp::AnnealResult r =
            eq1 ? cp::anneal(pat.tasks, slots, moves, o.anneal) : cp::anneal(pat.tasks, slots, cost, o.anneal);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("# annealing: T0 %g, Tend %g, factor %g, %u trials a level, %zu levels, seed %llu%s%s: %.2f s\n",
                    o.anneal.t0, o.anneal.tend, o.anneal.factor, o.anneal.trials, r.levels.size(),
                    static_cast<unsigned long long>(o.anneal.seed), o.anneal.normalize ? ", normalized" : "",
                    o.method.rfind("tac3", 0) == 0 ? (tie ? ", ties by hop-bytes" : ", plain eq. 1") : "", took);
        std::string rates = "# accepted % per level:";
        for (const cp::Level &l : r.levels)
            rates += l.tried ? " " + std::to_string(static_cast<int>(std::lround(100.0 * l.accepted / l.tried))) : " -";
        std::printf("%s\n", rates.c_str());
        map = r.map;
    }
    const cp::Scores s = ev.all(map);
    const std::string text = map_text(o, map, s, !o.out.empty());
    if (o.out.empty()) {
        std::fputs(text.c_str(), stdout);
    } else {
        std::ofstream f(o.out);
        if (!(f << text) || !f.flush()) {
            std::fprintf(stderr, "acpx-model: place: --out: %s cannot be written\n", o.out.c_str());
            return 1;
        }
        std::printf("# map written to %s\n", o.out.c_str());
    }
    if (!o.simgrid.empty())
        if (const int st = write_simgrid(o, topo, map)) return st;
    print_ccs(ev, map);
    print_scores(s);
    return 0;
}

}  // namespace acpx::tools
