// Forced or modelled choice of a handle's algorithm (choose.hpp).
#include "choose.hpp"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "basic/config.hpp"
#include "basic/errors.hpp"
#include "basic/layer.hpp"
#include "col.hpp"
#include "collectives/algorithms.hpp"
#include "collectives/model/predict.hpp"
#include "collectives/place/anneal.hpp"
#include "collectives/place/moves.hpp"
#include "collectives/place/objective.hpp"
#include "collectives/place/pattern.hpp"
#include "allreduce.hpp"
#include "plan.hpp"

namespace acpx::middle {
namespace {

namespace cm = collectives::model;
using basic::report;

std::string env_text(const char *name) {
    const char *v = basic::config_env(name);
    return v ? v : "";
}

// The calibration and ACP_TOPOLOGY (+ ACP_TOPOLOGY_MAP): loaded once, and
// again if one of the variables changed (they are read at every create,
// like ACP_COL_EXEC).
bool load_model(const char *fn, State &st) {
    const std::string env =
        env_text("ACP_CALIBRATION") + '\n' + env_text("ACP_TOPOLOGY") + '\n' + env_text("ACP_TOPOLOGY_MAP");
    if (st.model_loaded && env == st.model_env) return true;
    st.model_loaded = false;
    st.has_topology = false;
    st.topology = {};
    std::string why;
    // The defaults on the CPUs this node's ranks may run on: a core per
    // rank up to them, time slicing above (collectives/model/predict.hpp).
    if (!cm::load_calibration(&st.calibration, &why, basic::layer::node_cpus(), basic::config_env("ACP_CALIBRATION")))
        return report(fn, "ACP_CALIBRATION", "%s", why.c_str());
    const char *spec = basic::config_env("ACP_TOPOLOGY");
    st.has_topology = spec && !cm::is_no_topology(spec);
    if (st.has_topology && !cm::parse_topology(spec, &st.topology, &why))
        return report(fn, "ACP_TOPOLOGY", "%s", why.c_str());
    const char *map = basic::config_env("ACP_TOPOLOGY_MAP");
    if (map) {
        if (!st.has_topology) return report(fn, "ACP_TOPOLOGY_MAP", "is set but ACP_TOPOLOGY names no network");
        if (!cm::read_node_map(map, &st.topology, &why)) return report(fn, "ACP_TOPOLOGY_MAP", "%s", why.c_str());
    }
    st.model_loaded = true;
    st.model_env = env;
    std::vector<int> everyone(static_cast<size_t>(acp_procs()));
    for (size_t r = 0; r < everyone.size(); ++r) everyone[r] = static_cast<int>(r);
    const uint64_t nodes = nodes_of(everyone).nodes();
    // A job across nodes priced with curves of another network (the
    // built-in ones: the reference VM's emulated hosts): its picks may be
    // off. Said once a process, by rank 0, whatever ACP_VERBOSE says.
    const bool no_net = nodes > 1 && st.calibration.net_source == cm::kBuiltinSource;
    if (no_net && acp_rank() == 0 && !std::exchange(st.warned_no_net, true))
        basic::warn(fn, "ACP_CALIBRATION",
                    "the job spans %llu nodes but calibration %s has no curves of this network: the collectives' "
                    "algorithms are chosen by the built-in ones, of two emulated hosts joined by TCP (run "
                    "acpx-bench calibrate with 2 ranks on two nodes to measure this network)",
                    static_cast<unsigned long long>(nodes), st.calibration.source.c_str());
    if (basic::layer::verbose() && acp_rank() == 0) {
        const std::string none = nodes > 1 ? "none: the job's " + std::to_string(nodes) + " nodes on a switch"
                                           : "none (one fully connected node)";
        std::fprintf(stderr, "acpx: collectives model: calibration %s%s%s, %s; topology %s\n",
                     st.calibration.source.c_str(),
                     no_net ? " (between nodes the built-in curves, of two emulated hosts)" : "",
                     st.calibration.source != cm::kBuiltinSource ? ""
                     : cm::builtin_asked(basic::config_env("ACP_CALIBRATION"))
                         ? " (ACP_CALIBRATION=builtin)"
                         : " (no ACP_CALIBRATION, no calibration.json: run acpx-bench calibrate)",
                     cm::cores_in_use(st.calibration, cm::online_cores()).c_str(),
                     st.has_topology ? st.topology.describe().c_str() : none.c_str());
    }
    return true;
}

// One exchange of `bytes` each way at once between two members: on one
// node plain stores into the peer's block, priced as a round through the
// inline slots (comm; on the 2-core VM a 2-rank butterfly of 8-64 KiB took
// 0.7-1.1x comm + memcpy); across nodes comm_net slowed by the transfer
// the other way.
double exchange_seconds(const cm::Calibration &cal, double bytes, bool across) {
    if (across) return cal.copy(false, false, true).at(bytes) * cal.net_pair_slow(bytes);
    return cal.comm.at(bytes);
}

// p's round for the model (its algorithm left to the caller), members by
// group index.
cm::Case case_of(const Params &p, const std::vector<int> &group) {
    cm::Case c;
    c.op = p.kind == Kind::kBcast ? cm::Op::kBcast : cm::Op::kAllgather;
    c.members = p.members;
    c.root = root_index_of(p, group);
    c.bytes = p.size;
    c.buffered = p.storage == Storage::kBuffered;
    // Rounds up to the eager cap go before their receivers call send, through
    // the slots, the sender's eager pool or held puts (plan.hpp): the
    // model's inline rounds.
    c.inline_bytes = layout_of(p).eager;
    return c;
}

// ACP_TOPOLOGY with its map by group index: member i on its rank's node.
cm::Topology network_of(const State &st, const std::vector<int> &group) {
    cm::Topology t = st.topology;
    t.map.resize(group.size());
    for (size_t i = 0; i < group.size(); ++i) t.map[i] = st.topology.node_of(static_cast<uint32_t>(group[i]));
    return t;
}

}  // namespace

double allreduce_seconds(const cm::Calibration &cal, const ar::Shape &s, bool across_nodes) {
    const double bytes = static_cast<double>(s.count * s.elem);
    // Combining b bytes reads two vectors and writes one: priced as a memcpy of b.
    auto step = [&](double b) { return exchange_seconds(cal, b, across_nodes) + cal.memcpy.at(b); };
    double t = s.members > s.p2 ? step(bytes) + exchange_seconds(cal, bytes, across_nodes) : 0;  // fold, result
    for (uint32_t st = 1; st <= s.k; ++st) {
        if (!s.halving) {
            t += step(bytes);
            continue;
        }
        // Whole elements, at least one: an empty range still costs a
        // message, and the curves' 0-byte samples are rounds without data.
        const size_t elems = std::max<size_t>(1, (s.count + (size_t{1} << st) - 1) >> st);
        const auto part = static_cast<double>(elems * s.elem);
        // Halving, then gathering back (a copy out of the slot).
        t += step(part) + exchange_seconds(cal, part, across_nodes) + cal.memcpy.at(part);
    }
    return t;
}

cm::Topology nodes_of(const std::vector<int> &ranks) {
    std::vector<uint64_t> ids;
    for (const int r : ranks) ids.push_back(basic::layer::node_id(r));
    return cm::switch_of_nodes(ids);
}

bool parse_algorithm(const char *fn, const char *arg, const std::string &name, Params *p) {
    p->auto_algo = name.empty() || name == "auto";
    p->hier = 0;
    if (p->auto_algo) return true;
    if (p->kind == Kind::kAllreduce) {
        unsigned m = 0, l = 0;
        char tail = 0;
        const bool redundant = std::sscanf(name.c_str(), "butterfly:%u,%u%c", &m, &l, &tail) == 2;
        if ((name != "butterfly" && name != "rabenseifner" && !redundant) || m > 31 || l > 31)
            return report(fn, arg,
                          "'%s' is not one of: auto, butterfly, rabenseifner, butterfly:M,L (M, L from 0 to 31)",
                          name.c_str());
        p->algo = name == "rabenseifner" ? ar::kRabenseifner : ar::kButterfly;
        p->mid = static_cast<uint8_t>(m);
        p->end = static_cast<uint8_t>(l);
        return true;
    }
    const std::string_view prefix = collectives::kHierPrefix;
    const bool hier = name.starts_with(prefix);
    const std::string flat = hier ? name.substr(prefix.size()) : name;
    if (p->kind == Kind::kBcast) {
        auto a = collectives::parse_bcast_algo(flat);
        if (!a)
            return report(fn, arg, "'%s' is not one of: auto, %s; each but pipeline and scatter_ring also as hier:NAME",
                          name.c_str(), collectives::bcast_algo_names().c_str());
        if (hier && !collectives::hier_offered(a->algo))
            return report(fn, arg, "'%s': %s has no hierarchical form (its blocks already spread over the links)",
                          name.c_str(), collectives::name_of(a->algo));
        p->algo = static_cast<uint8_t>(a->algo);
        p->radix = static_cast<uint8_t>(a->radix);
    } else {
        auto a = collectives::parse_allgather_algo(flat);
        if (!a || (hier && !collectives::hier_offered(*a)))
            return report(fn, arg, "'%s' is not one of: auto, %s, hier:tree", name.c_str(),
                          collectives::allgather_algo_names().c_str());
        p->algo = static_cast<uint8_t>(*a);
    }
    p->hier = hier;
    return true;
}

bool read_algorithm(const char *fn, const State &st, Params *p) {
    if (p->kind == Kind::kAllreduce) {
        const char *env = basic::config_env("ACP_COL_ALLREDUCE_ALGO");
        return !st.set_allreduce.empty() ? parse_algorithm(fn, "acp_set_col_allreduce_algorithm", st.set_allreduce, p)
                                         : parse_algorithm(fn, "ACP_COL_ALLREDUCE_ALGO", env ? env : "", p);
    }
    const bool bcast = p->kind == Kind::kBcast;
    const char *var = bcast ? "ACP_COL_BCAST_ALGO" : "ACP_COL_ALLGATHER_ALGO";
    const std::string &set = bcast ? st.set_bcast : st.set_allgather;
    const char *env = basic::config_env(var);
    return !set.empty() ? parse_algorithm(fn, "acp_set_col_algorithm", set, p)
                        : parse_algorithm(fn, var, env ? env : "", p);
}

bool choose_algorithm(const char *fn, State &st, const std::vector<int> &group, Params *p, double *predicted_s) {
    *predicted_s = 0;
    if (p->kind == Kind::kAllreduce) {
        if (p->auto_algo) {
            p->mid = p->end = 0;
            p->algo = ar::kButterfly;
            if (p->members <= 1 || p->size == 0) return true;
            if (!load_model(fn, st)) return false;
            const bool across = nodes_of(group).nodes() > 1;
            Params r = *p;
            r.algo = ar::kRabenseifner;
            const double butterfly = allreduce_seconds(st.calibration, ar::shape_of(*p), across),
                         halving = allreduce_seconds(st.calibration, ar::shape_of(r), across);
            if (halving < butterfly) p->algo = ar::kRabenseifner;
            *predicted_s = std::min(butterfly, halving);
            return true;
        }
        const uint32_t k = static_cast<uint32_t>(std::countr_zero(std::bit_floor(p->members))), d = k / 2;
        const bool pow2 = std::has_single_bit(p->members);
        if (!(p->mid || p->end) || (pow2 && p->mid <= d && p->end <= k)) return true;
        return report(fn, st.set_allreduce.empty() ? "ACP_COL_ALLREDUCE_ALGO" : "acp_set_col_allreduce_algorithm",
                      "%s needs a group of a power of two members (this one has %u), M <= D = %u and L <= K = %u",
                      algo_name(*p).c_str(), p->members, d, k);
    }
    const bool bcast = p->kind == Kind::kBcast;
    if (!p->auto_algo) {
        const std::string why =
            bcast ? collectives::bcast_applies(static_cast<collectives::BcastAlgo>(p->algo), p->members)
                  : collectives::allgather_applies(static_cast<collectives::AllgatherAlgo>(p->algo), p->members);
        const bool set = !(bcast ? st.set_bcast : st.set_allgather).empty();
        return why.empty() || report(fn,
                                     set     ? "acp_set_col_algorithm"
                                     : bcast ? "ACP_COL_BCAST_ALGO"
                                             : "ACP_COL_ALLGATHER_ALGO",
                                     "%s", why.c_str());
    }
    // Defaults where the model is not run: one member, and allgathers
    // above what create models (cm::kMaxTurnedAllgather).
    p->algo = bcast ? static_cast<uint8_t>(collectives::BcastAlgo::kBinomial)
                    : static_cast<uint8_t>(p->members > cm::kMaxTurnedAllgather
                                               ? cm::unmodelled_allgather(p->members, p->size)
                                               : collectives::AllgatherAlgo::kBlockTree);
    p->radix = 2;
    if (p->members <= 1 || (!bcast && p->members > cm::kMaxTurnedAllgather)) return true;
    if (!load_model(fn, st)) return false;
    cm::Case c = case_of(*p, group);
    // The model numbers members by group index: give it their nodes. With
    // no network named, a group across nodes has them on a switch (as one
    // node it would run all its members on one node's cores).
    cm::Topology t = st.has_topology ? network_of(st, group) : nodes_of(group);
    const bool networked = st.has_topology || t.nodes() > 1;
    // Their nodes also offer the hierarchical trees (candidates).
    if (networked) c.nodes = std::make_shared<const std::vector<uint32_t>>(t.map);
    const cm::Case pick = cm::best(c, st.calibration, networked ? &t : nullptr, predicted_s);
    p->algo = pick.algo;
    p->radix = static_cast<uint8_t>(pick.radix);
    p->hier = pick.hier;
    return true;
}

bool place_members(const char *fn, State &st, const std::vector<int> &group, const Params &p,
                   std::vector<uint32_t> *order, double *predicted_s) {
    order->clear();
    if (!p.place_trials || p.kind == Kind::kAllreduce || p.members < 3 || p.hier) return true;
    if (!load_model(fn, st)) return false;
    if (!st.has_topology)
        return report(fn, "ACP_COL_PLACE", "tac3 places members on ACP_TOPOLOGY's network, and none is set");
    const cm::Topology t = network_of(st, group);
    cm::Case c = case_of(p, group);
    c.algo = p.algo;
    c.radix = p.radix;
    // The lists' copies step by step, between member indices: the CCS.
    namespace cp = collectives::place;
    const cp::Pattern steps = cp::pattern_of_steps(cm::predict(c, st.calibration, &t).steps, p.members);
    cp::Evaluator ev(t, steps);
    std::vector<uint32_t> pinned(p.members, UINT32_MAX);
    if (p.kind == Kind::kBcast) pinned[c.root] = c.root;  // its data is the root's
    cp::AnnealParams a;
    a.trials = p.place_trials;
    a.seed = p.group_hash;
    // The members wait ACP_TIMEOUT for this choice: the search keeps to a
    // quarter of it (an allgather's steps hold every member's messages:
    // 250 trials take 8-31 s at 256 members, minutes at 1024).
    const auto until = Clock::now() + std::chrono::duration<double>(basic::layer::timeout_seconds() / 4);
    a.out_of_time = [until] { return Clock::now() > until; };
    cp::Eq1Moves cost(ev, true, true);  // priced move by move: the same as ev.with_tiebreak(pi, true)
    const cp::AnnealResult found = cp::anneal(p.members, t.map, cost, a, pinned);
    if (found.cut && basic::layer::verbose())
        std::fprintf(stderr,
                     "acpx: %s: ACP_COL_PLACE's search stopped after %.1f s (ACP_TIMEOUT / 4), at level %zu of %u\n",
                     fn, basic::layer::timeout_seconds() / 4, found.levels.size(), cp::levels_of(a));
    if (found.cost >= ev.with_tiebreak(t.map, true)) return true;  // the group's own order is as good
    *order = found.slot;
    cm::Topology placed = t;
    for (uint32_t j = 0; j < p.members; ++j) placed.map[j] = t.map[found.slot[j]];
    *predicted_s = cm::predict_seconds(c, st.calibration, &placed);
    return true;
}

}  // namespace acpx::middle
