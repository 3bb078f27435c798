// acpx-model: the collectives' performance model from the command line,
// without a job. Options by getopt_long (libc), as in every Unix tool.
//   acpx-model predict --algo bruck --procs 24 --size 1M [--topology torus:1x6x4] [--map FILE]
//   acpx-model compare --op allgather --procs 24 [--sizes 8:4M] [--topology ...]
//   acpx-model merge --out all.json run1.json run2.json run3.json  (merge_calibrations.hpp)
//   acpx-model jitter --max-procs 2^18 --out results  (seed 001's simulation: jitter.hpp)
//   acpx-model place --pattern cg:64 --topology torus:... --method tac3  (seed 000's placement: place.hpp)
//   acpx-model flowsim --pattern cg:64 --topology torus:... --map MAP  (the flow simulator: flowsim.hpp)
//   acpx-model seed000 --out results  (seed 000's Table 1 reproduced: seed000.hpp)
//   acpx-model simcheck --out results  (the collision model against two simulators: simcheck.hpp)
#include <getopt.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "basic/config.hpp"
#include "collectives/model/predict.hpp"
#include "jitter.hpp"
#include "merge_calibrations.hpp"
#include "flowsim.hpp"
#include "place.hpp"
#include "seed000.hpp"
#include "simcheck.hpp"
#include "middle/plan.hpp"

namespace {

namespace cm = acpx::collectives::model;
namespace co = acpx::collectives;

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: acpx-model predict --algo NAME --procs P --size BYTES [options]\n"
                 "       acpx-model compare --op bcast|allgather --procs P [--sizes MIN:MAX] [options]\n"
                 "       acpx-model merge [--out FILE] CALIBRATION.json...\n"
                 "       acpx-model jitter [--max-procs P] [--trials N[,BIG]] [--bytes 8,1K,...] [--out DIR]\n"
                 "       acpx-model place --pattern PATTERN --topology TOPO --method METHOD|--eval MAPFILE [...]\n"
                 "       acpx-model flowsim --pattern PATTERN --topology TOPO [--map FILE] [--barrier] [...]\n"
                 "       acpx-model seed000 [--out DIR] [--maps 10] [--trials 2500] [--shapes 1,2,3,4]\n"
                 "       acpx-model simcheck [--topology SPEC]... [--op bcast|allgather|both] [--out DIR]\n"
                 "predict: one algorithm's steps (messages, largest collision count C, bytes)\n"
                 "         and its predicted time for one round\n"
                 "compare: every algorithm's prediction per size (powers of two), the best\n"
                 "         marked, and the sizes where the best one changes (crossovers)\n"
                 "merge:   calibration files of one machine as one, each sample the median\n"
                 "         of theirs (to FILE, else standard output)\n"
                 "jitter:  seed 001's butterfly allreduce under OS jitter, simulated for P = 2 to\n"
                 "         --max-procs (default 2^18): the butterfly, [3] (end additions), proposed(1)\n"
                 "         and (2) (mid additions), noise variants (a) and (b), mean and 95%% CI of the\n"
                 "         max and of the mean over processes (--trials: 1000 up to 2^14, 100 above):\n"
                 "         DIR/seed001.csv and seed001.md (the gate and the first P over noiseless)\n"
                 "place:   seed 000's task placement (TAC3) and its baselines: a map of tasks to\n"
                 "         nodes, searched or evaluated (acpx-model place --help)\n"
                 "flowsim: a pattern's CCS as flows sharing the links max-min fairly, iteration\n"
                 "         after iteration: the time a placement takes (acpx-model flowsim --help)\n"
                 "seed000: seed 000's Table 1 reproduced: every method's maps on its four shapes,\n"
                 "         timed by flowsim and SimGrid: DIR/seed000.md and seed000.csv (minutes)\n"
                 "simcheck: the collision model against flowsim and SimGrid, every algorithm on\n"
                 "         seed 003's and seed 000's tori: DIR/simcheck.md and simcheck.csv (minutes)\n"
                 "options:\n"
                 "  --algo NAME        bcast: %s\n"
                 "                     allgather: %s\n"
                 "  --op bcast|allgather  (predict: implied by --algo)\n"
                 "  --procs P          group size (>= 1)\n"
                 "  --size BYTES       bcast: the round's bytes; allgather: per block (1M, 64K, ...)\n"
                 "  --sizes MIN:MAX    compare: sizes (default 8:4M)\n"
                 "  --root R           bcast root (default 0)\n"
                 "  --buffered         a buffered handle (adds its copies in and out)\n"
                 "  --topology SPEC    torus:AxBx..., mesh:..., [:order=XYZ...][:wrap=10...],\n"
                 "                     switch:N (N nodes on one switch, each a port up and down)\n"
                 "                     or none: one fully connected node (default: ACP_TOPOLOGY, else none)\n"
                 "  --map FILE         node index of each rank, one per line (default: rank r on node r)\n"
                 "  --calibration FILE (default: ACP_CALIBRATION, ~/.config/acpx/calibration.json,\n"
                 "                     the installed one, else built-in; builtin: the built-in ones)\n",
                 co::bcast_algo_names().c_str(), co::allgather_algo_names().c_str());
}

struct Args {
    std::string cmd, algo, op, topology, map, calibration;
    uint64_t procs = 0, size = 0, min_size = 8, max_size = 4 << 20, root = 0;
    bool buffered = false;
    uint32_t inline_max = acpx::middle::kInlineAuto;  // ACP_COL_INLINE, as the library reads it
};

bool fail(const char *what) {
    std::fprintf(stderr, "acpx-model: %s\n", what);
    return false;
}

bool parse(int argc, char **argv, Args *a) {
    a->cmd = argv[1];
    if (a->cmd != "predict" && a->cmd != "compare") return fail(("unknown command '" + a->cmd + "'").c_str());
    static const option opts[] = {{"algo", required_argument, nullptr, 'a'},
                                  {"op", required_argument, nullptr, 'o'},
                                  {"procs", required_argument, nullptr, 'p'},
                                  {"size", required_argument, nullptr, 's'},
                                  {"sizes", required_argument, nullptr, 'S'},
                                  {"root", required_argument, nullptr, 'r'},
                                  {"buffered", no_argument, nullptr, 'b'},
                                  {"map", required_argument, nullptr, 'm'},
                                  {"help", no_argument, nullptr, 'h'},
                                  {"topology", required_argument, nullptr, 't'},
                                  {"calibration", required_argument, nullptr, 'c'},
                                  {nullptr, 0, nullptr, 0}};
    optind = 2;
    for (int c; (c = getopt_long(argc, argv, "", opts, nullptr)) != -1;) {
        const std::string v = optarg ? optarg : "";
        switch (c) {
            case 'a': a->algo = v; break;
            case 'o': a->op = v; break;
            case 'p':
                if (!acpx::basic::parse_size(optarg, &a->procs) || a->procs == 0 || a->procs > (1u << 20))
                    return fail("--procs: want 1..1048576");
                break;
            case 's':
                if (!acpx::basic::parse_size(optarg, &a->size)) return fail("--size: want bytes, e.g. 4096, 64K, 1M");
                break;
            case 'S': {
                const auto colon = v.find(':');
                if (colon == std::string::npos || !acpx::basic::parse_size(v.substr(0, colon).c_str(), &a->min_size) ||
                    !acpx::basic::parse_size(v.c_str() + colon + 1, &a->max_size) || a->min_size == 0 ||
                    a->min_size > a->max_size)
                    return fail("--sizes: want MIN:MAX, e.g. 8:4M");
                break;
            }
            case 'r':
                if (!acpx::basic::parse_size(optarg, &a->root)) return fail("--root: want a member index");
                break;
            case 'b': a->buffered = true; break;
            case 't': a->topology = v; break;
            case 'm': a->map = v; break;
            case 'c': a->calibration = v; break;
            case 'h': usage(stdout); std::exit(0);
            default: return false;
        }
    }
    if (optind < argc) return fail(("unexpected argument '" + std::string(argv[optind]) + "'").c_str());
    if (a->procs == 0) return fail("--procs is required");
    if (a->cmd == "predict") {
        if (a->algo.empty()) return fail("predict needs --algo");
        const std::string op = co::parse_bcast_algo(a->algo)       ? "bcast"
                               : co::parse_allgather_algo(a->algo) ? "allgather"
                                                                   : "";
        if (op.empty()) return fail(("--algo: '" + a->algo + "' is no bcast or allgather algorithm").c_str());
        if (!a->op.empty() && a->op != op) return fail(("--algo " + a->algo + " is a " + op + " algorithm").c_str());
        a->op = op;
    }
    if (a->op != "bcast" && a->op != "allgather") return fail("--op: want bcast or allgather");
    if (a->root >= a->procs) return fail("--root: not below --procs");
    return true;
}

// t: the network the procs run on (nullptr: one node, this machine's),
// which with the procs per core sets the handles' default inline cap as
// create sets it.
cm::Case base_case(const Args &a, uint64_t size, const cm::Topology *t) {
    cm::Case c;
    c.op = a.op == "bcast" ? cm::Op::kBcast : cm::Op::kAllgather;
    c.members = static_cast<uint32_t>(a.procs);
    c.root = static_cast<uint32_t>(a.root);
    c.buffered = a.buffered;
    c.inline_bytes = acpx::middle::inline_bytes_for(
        c.op == cm::Op::kBcast ? acpx::middle::Kind::kBcast : acpx::middle::Kind::kAllgather, c.members, 1,
        (t && t->nodes() > 1) || (!t && c.members > cm::online_cores()), a.inline_max);
    c.bytes = size;
    return c;
}

std::string human(uint64_t b) {
    if (b >= (1u << 20) && b % (1u << 20) == 0) return std::to_string(b >> 20) + "M";
    if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "K";
    return std::to_string(b);
}

// The header line both commands print: the network and the calibration.
void print_setting(const cm::Calibration &cal, const cm::Topology *t) {
    std::printf("# topology: %s; calibration: %s, %s\n", t ? t->describe().c_str() : "none (fully connected)",
                cal.source.c_str(), cm::cores_in_use(cal, cm::online_cores()).c_str());
}

int predict_cmd(const Args &a, const cm::Calibration &cal, const cm::Topology *t) {
    cm::Case c = base_case(a, a.size, t);
    if (c.op == cm::Op::kBcast) {
        const auto b = co::parse_bcast_algo(a.algo);
        c.algo = static_cast<uint8_t>(b->algo);
        c.radix = b->radix;
    } else {
        const auto g = *co::parse_allgather_algo(a.algo);
        if (const std::string why = co::allgather_applies(g, c.members); !why.empty())
            return std::fprintf(stderr, "acpx-model: %s\n", why.c_str()), 2;
        // A ring's steps over 16,384 members would be 268 million messages.
        if (c.members > cm::kMaxModelledAllgather)
            return std::fprintf(stderr,
                                "acpx-model: predict lists every message of every step: allgather up to "
                                "%u procs (compare gives the times up to %u)\n",
                                cm::kMaxModelledAllgather, cm::kMaxTurnedAllgather),
                   2;
        c.algo = static_cast<uint8_t>(g);
    }
    const cm::Prediction p = cm::predict(c, cal, t);
    std::printf("# acpx-model predict: %s %s, %u procs, %llu bytes%s%s\n", a.op.c_str(), cm::algo_name(c).c_str(),
                c.members, static_cast<unsigned long long>(c.bytes), c.op == cm::Op::kAllgather ? " per block" : "",
                c.buffered ? ", buffered" : "");
    print_setting(cal, t);
    std::printf("%6s %10s %7s %14s %12s\n", "step", "messages", "max_C", "largest_bytes", "time_us");
    for (size_t s = 0; s < p.steps.size(); ++s) {
        uint32_t most = 0;
        uint64_t largest = 0;
        for (const cm::Message &m : p.steps[s].msgs) {
            most = std::max(most, m.collisions);
            largest = std::max(largest, m.bytes);
        }
        std::printf("%6zu %10zu %7u %14llu %12.2f%s\n", s, p.steps[s].msgs.size(), most,
                    static_cast<unsigned long long>(largest), p.steps[s].seconds * 1e6, "");
    }
    if (p.switch_s > 0)
        std::printf("# %u procs on %u cores: time sliced, each step +%.2f us for a switch (included above)\n",
                    c.members, cal.cores, p.switch_s * 1e6);
    std::printf("# predicted: comm %.2f us + memcpy %.2f us = %.2f us\n", p.comm_s * 1e6, p.memcpy_s * 1e6,
                p.total() * 1e6);
    return 0;
}

int compare_cmd(const Args &a, const cm::Calibration &cal, const cm::Topology *t) {
    if (a.op == "allgather" && a.procs > cm::kMaxTurnedAllgather)
        return std::fprintf(stderr,
                            "acpx-model: compare: allgather is modelled up to %u procs (above, create "
                            "takes bruck below 128 bytes a block, else neighbor, or ring for odd procs)\n",
                            cm::kMaxTurnedAllgather),
               2;
    const std::vector<cm::Case> algos = cm::candidates(base_case(a, 0, t));
    std::printf(
        "# acpx-model compare: %s, %llu procs; predicted us per round; * = what create picks: the\n"
        "# lowest, or an earlier column within %g%% of it\n",
        a.op.c_str(), static_cast<unsigned long long>(a.procs), cm::kTieMargin * 100);
    print_setting(cal, t);
    std::printf("%10s", "size");
    for (const cm::Case &k : algos) std::printf(" %13s", cm::algo_name(k).c_str());
    std::printf("\n");
    std::string prev, crossings;
    for (uint64_t size = a.min_size; size <= a.max_size; size *= 2) {
        std::vector<double> us;
        for (const cm::Case &k0 : algos) {
            cm::Case k = k0;
            k.bytes = size;
            us.push_back(cm::predict_seconds(k, cal, t) * 1e6);
        }
        const size_t best = cm::pick_fastest(us);
        std::printf("%10s", human(size).c_str());
        for (size_t i = 0; i < us.size(); ++i) std::printf(" %12.2f%c", us[i], i == best ? '*' : ' ');
        std::printf("\n");
        const std::string name = cm::algo_name(algos[best]);
        if (!prev.empty() && name != prev) crossings += "#   at " + human(size) + ": " + prev + " -> " + name + "\n";
        prev = name;
        if (size > (uint64_t{1} << 62)) break;
    }
    std::printf("# crossovers (the best algorithm changes):\n%s", crossings.empty() ? "#   none\n" : crossings.c_str());
    return 0;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!std::strcmp(argv[1], "merge")) return acpx::tools::merge_calibrations(argc, argv);
    if (!std::strcmp(argv[1], "jitter")) return acpx::tools::run_jitter(argc, argv);
    if (!std::strcmp(argv[1], "place")) return acpx::tools::run_place(argc, argv);
    if (!std::strcmp(argv[1], "flowsim")) return acpx::tools::run_flowsim(argc, argv);
    if (!std::strcmp(argv[1], "seed000")) return acpx::tools::run_seed000(argc, argv);
    if (!std::strcmp(argv[1], "simcheck")) return acpx::tools::run_simcheck(argc, argv);
    Args a;
    if (!parse(argc, argv, &a)) return 2;
    std::string why;
    if (!acpx::middle::inline_max_from_env(&a.inline_max, &why))
        return std::fprintf(stderr, "acpx-model: ACP_COL_INLINE: %s\n", why.c_str()), 2;
    cm::Calibration cal;
    if (!a.calibration.empty()) setenv("ACP_CALIBRATION", a.calibration.c_str(), 1);
    if (!cm::load_calibration(&cal, &why, 0, acpx::basic::config_env("ACP_CALIBRATION")))
        return std::fprintf(stderr, "acpx-model: calibration: %s\n", why.c_str()), 2;
    if (a.topology.empty())
        if (const char *env = acpx::basic::config_env("ACP_TOPOLOGY")) a.topology = env;
    if (cm::is_no_topology(a.topology)) a.topology.clear();  // "none" overrides ACP_TOPOLOGY
    cm::Topology topo;
    if (!a.topology.empty() && !cm::parse_topology(a.topology, &topo, &why))
        return std::fprintf(stderr, "acpx-model: --topology: %s\n", why.c_str()), 2;
    if (!a.map.empty()) {
        if (a.topology.empty()) return std::fprintf(stderr, "acpx-model: --map needs --topology\n"), 2;
        if (!cm::read_node_map(a.map, &topo, &why))
            return std::fprintf(stderr, "acpx-model: --map: %s\n", why.c_str()), 2;
    }
    const cm::Topology *t = a.topology.empty() ? nullptr : &topo;
    return a.cmd == "predict" ? predict_cmd(a, cal, t) : compare_cmd(a, cal, t);
}
