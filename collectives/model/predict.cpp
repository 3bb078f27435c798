// Steps from command lists, collisions per step, time per step.
#include "predict.hpp"

#include "crowded_sim.hpp"
#include "footprint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace acpx::collectives::model {
namespace {

// Segment counts the selection tries for pipeline.
constexpr unsigned kPipelineCandidates[] = {4, 8, 16, 32};

// One message of a step: the bytes a pair carries in it, over every
// block's list, and whether the pair carried a block in the step before
// too (a stream of blocks). steps_of gives them sorted by (step, src,
// dst), one per triple. A flat vector, not a map: a pipeline:32 over
// 65,536 members has 2 million of them, which took 415 MB as map nodes.
struct StepMsg {
    uint32_t step, src, dst;
    bool streamed;
    uint64_t bytes;
};
using StepMsgs = std::vector<StepMsg>;

struct StepOrder {
    bool operator()(const StepMsg &a, const StepMsg &b) const {
        return std::tie(a.step, a.src, a.dst) < std::tie(b.step, b.src, b.dst);
    }
};
constexpr StepOrder step_order;

// Orders (*m)[a, b), one step's messages, by (src, dst). Where its
// members are few for its messages (an allgather's step: every member
// sends), by two counting passes, linear; else by a sort.
void sort_step(StepMsgs *m, size_t a, size_t b, StepMsgs *tmp, std::vector<size_t> *count) {
    uint32_t top = 0;
    for (size_t i = a; i < b; ++i) top = std::max({top, (*m)[i].src, (*m)[i].dst});
    if (uint64_t{top} + 1 > 2 * (b - a)) {
        std::sort(m->begin() + static_cast<ptrdiff_t>(a), m->begin() + static_cast<ptrdiff_t>(b), step_order);
        return;
    }
    tmp->resize(b - a);
    // Stable by dst into tmp, then stable by src back: ordered by (src, dst).
    auto pass = [&](auto key, const StepMsg *from, StepMsg *to) {
        count->assign(top + 2, 0);
        for (size_t i = 0; i < b - a; ++i) ++(*count)[key(from[i]) + 1];
        for (uint32_t v = 0; v <= top; ++v) (*count)[v + 1] += (*count)[v];
        for (size_t i = 0; i < b - a; ++i) to[(*count)[key(from[i])]++] = from[i];
    };
    pass([](const StepMsg &x) { return x.dst; }, m->data() + a, tmp->data());
    pass([](const StepMsg &x) { return x.src; }, tmp->data(), m->data() + a);
}

// Sorts m by (step, src, dst) and makes one message of each triple, the
// bytes summed. Only the allgathers' have several (add_scheduled places
// one entry a step per pair), and those are never streamed.
void merge_steps(StepMsgs *m) {
    // By step first (counting), then each step's messages: an allgather
    // over 1,024 members has a million in a few steps, and one sort of
    // them all was a quarter of create's modelling.
    uint32_t steps = 0;
    for (const StepMsg &x : *m) steps = std::max(steps, x.step + 1);
    std::vector<size_t> start(steps + 1, 0);
    for (const StepMsg &x : *m) ++start[x.step + 1];
    for (uint32_t k = 0; k < steps; ++k) start[k + 1] += start[k];
    const bool by_step = std::is_sorted(m->begin(), m->end(),
                                        [](const StepMsg &a, const StepMsg &b) { return a.step < b.step; });
    // add_by_depth places the allgathers' in step order already; the
    // bcasts' (add_scheduled) come in the order their entries were placed.
    if (!by_step) {
        StepMsgs sorted(m->size());
        std::vector<size_t> next(start.begin(), start.end() - 1);
        for (const StepMsg &x : *m) sorted[next[x.step]++] = x;
        m->swap(sorted);
    }
    StepMsgs tmp;
    std::vector<size_t> count;
    for (uint32_t k = 0; k < steps; ++k) sort_step(m, start[k], start[k + 1], &tmp, &count);
    size_t out = 0;
    for (size_t i = 0; i < m->size(); ++i) {
        if (out > 0 && !step_order((*m)[out - 1], (*m)[i])) {
            (*m)[out - 1].bytes += (*m)[i].bytes;
        } else {
            (*m)[out++] = (*m)[i];
        }
    }
    m->resize(out);
}

// Each entry's depth: the entries on its dependency chain before it
// (0: it sends the origin's own data).
void entry_depths(const CommandList &l, std::vector<uint32_t> *depth) {
    depth->assign(l.size(), 0);
    for (size_t e = 0; e < l.size(); ++e) (*depth)[e] = l[e].dep == kNoDep ? 0 : (*depth)[l[e].dep] + 1;
}

// The allgathers: an entry's step is its depth (every member sends each
// step; a member's blocks to one peer in a step are one message, once
// merged). Placed in step order (counted first), as merge_steps wants
// them: a million entries over 1,024 members are not copied to order them.
void add_by_depth(const std::vector<BlockList> &blocks, StepMsgs *m);

// The bcasts, whose entries each member runs as their data arrives:
// every entry goes in the first step after its dependency's in which it
// is free to go, earlier blocks and earlier entries first, as the engine
// issues them. A multi-block bcast's pair of members carries one block a
// step: a pipeline's segments leave the root one a step. A single-block
// tree's copy made by its sender's CPU (on a node, where the calibration
// counts cores) waits for that sender's previous copy: a tree's root then
// sends to one child a step, as in the textbook binomial tree (4
// members: 0->1, then 0->2 and 1->3). Copies between nodes leave at once
// and share the sender's injection port instead (collisions).
// serial(src, dst): whether that copy occupies its sender.
template <typename Serial>
void add_scheduled(const std::vector<BlockList> &blocks, Serial serial, StepMsgs *m) {
    // Entry e of block b is number first[b] + e; the entries waiting on
    // entry i are waiting[from[i] .. from[i + 1]).
    std::vector<uint32_t> first(blocks.size() + 1, 0);
    for (uint32_t b = 0; b < blocks.size(); ++b)
        first[b + 1] = first[b] + static_cast<uint32_t>(blocks[b].list.size());
    std::vector<uint32_t> from(first.back() + 1, 0), waiting(first.back());
    using Item = std::tuple<uint32_t, uint32_t, uint32_t>;  // (earliest step, block, entry)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (uint32_t b = 0; b < blocks.size(); ++b)
        for (uint32_t e = 0; e < blocks[b].list.size(); ++e) {
            const uint32_t dep = blocks[b].list[e].dep;
            if (dep == kNoDep) ready.push({0, b, e});
            else ++from[first[b] + dep + 1];
        }
    for (size_t i = 1; i < from.size(); ++i) from[i] += from[i - 1];
    std::vector<uint32_t> filled(from.begin(), from.end() - 1);
    for (uint32_t b = 0; b < blocks.size(); ++b)
        for (uint32_t e = 0; e < blocks[b].list.size(); ++e)
            if (const uint32_t dep = blocks[b].list[e].dep; dep != kNoDep) waiting[filled[first[b] + dep]++] = e;
    // (sender, sender) or (sender, receiver) -> the steps it took, ascending
    std::unordered_map<uint64_t, std::vector<uint32_t>> busy;
    m->reserve(m->size() + first.back());
    while (!ready.empty()) {
        const auto [earliest, b, e] = ready.top();
        ready.pop();
        const Command &c = blocks[b].list[e];
        const bool by_sender = serial(c.src, c.dst);
        std::vector<uint32_t> &taken = busy[uint64_t{c.src} << 32 | (by_sender ? c.src : c.dst)];
        uint32_t step = earliest;
        auto at = std::lower_bound(taken.begin(), taken.end(), step);
        for (; at != taken.end() && *at == step; ++at) ++step;
        taken.insert(at, step);
        // Entries leave the queue by earliest step, so none placed later
        // can take step - 1 of this pair: the flag is final.
        const bool streamed = !by_sender && step > 0 && std::binary_search(taken.begin(), taken.end(), step - 1);
        m->push_back({step, c.src, c.dst, streamed, blocks[b].bytes});
        const uint32_t i = first[b] + e;
        for (uint32_t k = from[i]; k < from[i + 1]; ++k) ready.push({step + 1, b, waiting[k]});
    }
}

void add_by_depth(const std::vector<BlockList> &blocks, StepMsgs *m) {
    std::vector<uint32_t> depth;
    std::vector<size_t> next;  // per step: its count, then where its next entry goes
    for (const BlockList &b : blocks) {
        entry_depths(b.list, &depth);
        for (uint32_t d : depth) {
            if (d >= next.size()) next.resize(d + 1, 0);
            ++next[d];
        }
    }
    size_t at = m->size();
    for (size_t &n : next) at += std::exchange(n, at);
    m->resize(at);
    for (const BlockList &b : blocks) {
        entry_depths(b.list, &depth);
        for (size_t e = 0; e < b.list.size(); ++e)
            (*m)[next[depth[e]]++] = {depth[e], b.list[e].src, b.list[e].dst, false, b.bytes};
    }
}

uint32_t blocks_of(const Case &c) {
    return c.op == Op::kBcast ? bcast_blocks(static_cast<BcastAlgo>(c.algo), c.members, c.radix) : c.members;
}

// How c's block lists follow from a few (allgather_turn): its steps then
// come from those lists (turned_steps), not from every block's.
Turn turn_of(const Case &c) {
    return c.op == Op::kAllgather ? allgather_turn(static_cast<AllgatherAlgo>(c.algo), c.members) : Turn{};
}

// A bcast in several blocks (pipeline, scatter_ring): never inline (plan.hpp).
bool multi_block(const Case &c) { return c.op == Op::kBcast && blocks_of(c) > 1; }

// Whether c's round goes through the inline slots.
bool inline_round(const Case &c) { return c.bytes > 0 && c.bytes <= c.inline_bytes && !multi_block(c); }

// The bytes of one entry of c: a block of a multi-block bcast (the
// first, the largest), else the round's (allgather: a block).
uint64_t entry_bytes_of(const Case &c) {
    return multi_block(c) ? block_range(c.bytes, blocks_of(c), 0).length : c.bytes;
}

// c's round as one command list per block, with each block's bytes: a
// single-block bcast one list of the round's bytes. only > 0: an
// allgather's blocks 0..only-1 (a turned allgather's, turn_of).
std::vector<BlockList> block_lists(const Case &c, uint32_t only = 0) {
    std::vector<BlockList> out;
    if (c.op == Op::kBcast) {
        const auto a = static_cast<BcastAlgo>(c.algo);
        const uint32_t blocks = blocks_of(c);
        for (uint32_t b = 0; b < blocks; ++b)
            out.push_back({bcast_block_list(a, c.members, c.root, b, c.radix),
                           blocks == 1 ? c.bytes : block_range(c.bytes, blocks, b).length});
    } else {
        for (uint32_t b = 0; b < (only > 0 ? only : c.members); ++b)
            out.push_back({allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b), c.bytes});
    }
    return out;
}

// A turned allgather's steps (turn_of: period g > 0) from the lists of
// its blocks 0..g-1 (bases, block_lists(c, g)); step d is depth d of
// every block's list, as add_by_depth places them. The other blocks'
// entries are images of these, so the depth-d entries of blocks 0..g-1,
// as (sender mod g, distance), give the whole step: from every member a
// of that class to a moved by that distance, a block for each such
// entry. Steps of the same entries are the same step (a ring's n - 1
// all are): each is costed once. Their messages are made one step at a
// time (turned_step): Bruck's over 65,536 members, all at once, took
// 250 MB.
using TurnKey = std::pair<uint32_t, uint32_t>;  // (sender mod g, distance)
struct TurnedSteps {
    std::vector<std::vector<TurnKey>> distinct;  // sorted
    std::vector<uint32_t> of_step;  // step -> its index in distinct
};

TurnedSteps turned_steps(const Case &c, const std::vector<BlockList> &bases, Turn turn) {
    const uint32_t n = c.members;
    const auto g = static_cast<uint32_t>(bases.size());
    std::vector<std::vector<TurnKey>> at_depth;
    std::vector<uint32_t> depth;
    for (const BlockList &base : bases) {
        const CommandList &l = base.list;
        entry_depths(l, &depth);
        for (size_t e = 0; e < l.size(); ++e) {
            if (depth[e] >= at_depth.size()) at_depth.resize(depth[e] + 1);
            at_depth[depth[e]].push_back({l[e].src % g, turn.distance(l[e].src, l[e].dst, n)});
        }
    }
    TurnedSteps out;
    std::map<std::vector<TurnKey>, uint32_t> index;
    for (std::vector<TurnKey> &keys : at_depth) {
        std::sort(keys.begin(), keys.end());
        const auto [it, fresh] = index.emplace(keys, static_cast<uint32_t>(out.distinct.size()));
        out.of_step.push_back(it->second);
        if (fresh) out.distinct.push_back(std::move(keys));
    }
    return out;
}

// The messages of a turned step of g classes (its sorted keys); listed:
// by (src, dst), as a step's are listed (a step's cost does not depend
// on their order, and the sort was a fifth of it over 65,536 members).
std::vector<Message> turned_step(const Case &c, const std::vector<TurnKey> &keys, uint32_t g, Turn turn,
                                 bool listed) {
    const uint32_t n = c.members;
    std::vector<Message> msgs;
    for (size_t i = 0, j = 0; i < keys.size(); i = j) {
        while (j < keys.size() && keys[j] == keys[i]) ++j;
        for (uint32_t a = keys[i].first; a < n; a += g)
            msgs.push_back({a, turn.moved(a, keys[i].second, n), c.bytes * (j - i), 1});
    }
    if (listed)
        std::sort(msgs.begin(), msgs.end(),
                  [](const Message &x, const Message &y) { return std::tie(x.src, x.dst) < std::tie(y.src, y.dst); });
    return msgs;
}

StepMsgs steps_of(const Case &c, const Calibration &cal, const Topology *t, const std::vector<BlockList> &blocks) {
    StepMsgs m;
    if (c.op == Op::kAllgather) {
        add_by_depth(blocks, &m);
    } else {
        // A single block's copies on a node occupy their sender (add_scheduled).
        auto node = [&](uint32_t member) { return t ? t->node_of(member) : 0u; };
        const bool single = blocks.size() == 1;
        add_scheduled(blocks, [&](uint32_t s, uint32_t d) { return single && cal.cores > 0 && node(s) == node(d); },
                      &m);
    }
    merge_steps(&m);
    return m;
}

// A step costs its slowest message: C collisions cost a copy of C x M
// bytes (seed 003); on a node, the copies beyond its cores wait as
// collisions too, and copies at once are slower (concurrent_slow).
void cost(Step &s, bool inline_round, const Calibration &cal, const Topology *t, uint64_t round_bytes,
          const std::vector<double> &footprint) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const Message &m : s.msgs) pairs.emplace_back(m.src, m.dst);
    std::vector<uint32_t> on_node;  // copies within the message's node in this step
    const std::vector<uint32_t> col = collisions(t, pairs, cal.cores, &on_node);
    s.seconds = 0;
    for (size_t i = 0; i < s.msgs.size(); ++i) {
        const Message &m = s.msgs[i];
        const double c = col[i];
        s.msgs[i].collisions = col[i];
        const bool across = on_node[i] == 0;  // between two nodes
        // A block right behind another on its pair skips the wait for the
        // receiver's ready signal the first one paid.
        double secs =
            cal.copy_seconds(inline_round, m.streamed, across, c * m.bytes, static_cast<double>(round_bytes));
        // Two or more on a node run on two cores or more at once (with
        // one core, they take turns).
        if (on_node[i] >= 2 && cal.cores != 1) secs *= cal.concurrent_slow(static_cast<double>(m.bytes));
        s.seconds = std::max(s.seconds, secs * footprint[m.src]);
    }
}

// Whether the simulated cores may run out of phase (SimInput): where
// calibrate measured the ring allgather through the inline slots (below
// Bruck's first sample), so that a copy across cores costs what it does
// (gather_cross_s). In phase, neighbor exchange and recursive doubling
// read cheapest at 4 ranks, their partners always running at once;
// freed without that cost, neighbor exchange, every copy of which
// crosses cores, did: 4-rank picks over 12 stored model checks of the
// 2-core VM fell from 255 to 223 of 312. Older files keep the lockstep
// their costs were solved with.
bool out_of_phase(const Calibration &cal) {
    const auto &ring = cal.comm_crowd_ring.points();
    const auto &gather = cal.comm_crowd_gather.points();
    return !ring.empty() && !gather.empty() && ring.front().first < gather.front().first;
}

// Every entry of the round, for the simulation, costed for a crowded
// node by k: a multi-block round's lists one after the other
// (dependencies renumbered). A copy costs `slow` times the 2-member one,
// forward_s more if its receiver forwards that data from another core
// (see CrowdCosts; the simulation knows the cores); a block that follows
// another between the same pair costs a streamed block
// (Calibration::copy_seconds), stream_slow times (when calibrated), and
// never forward_s; any other block the more of its own entry and its
// share of the round's (CrowdCosts::round_slow). All of them its sender's
// footprint factor times (one node). Copies into one receiver from two
// cores at once slow each other by k.converge. An inline copy holds its
// sender's core for k.busy of it.
// blocks: if given, each entry's block (its list's index).
SimInput sim_input(const Case &c, const Calibration &cal, bool is_inline, const CrowdCosts &k,
                   std::vector<uint32_t> *blocks = nullptr) {
    const std::vector<BlockList> lists = block_lists(c);
    const std::vector<double> footprint = footprint_factors(c, cal, nullptr, lists);
    const bool multi = multi_block(c);
    SimInput in;
    in.members = c.members;
    in.cores = cal.cores;
    in.eager = is_inline;
    in.out_of_phase = out_of_phase(cal);
    in.switch_s = k.switch_s;
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const BlockList &l : lists) {
        const auto base = static_cast<int32_t>(in.entries.size());
        for (const Command &x : l.list) {
            const bool streamed = multi && !pairs.insert({x.src, x.dst}).second && !cal.comm_stream.empty();
            const bool stream = streamed && k.stream_slow > 0;
            const Calibration::CopyPrice price =
                cal.copy_price(is_inline, streamed, false, static_cast<double>(l.bytes),
                               multi ? static_cast<double>(c.bytes) : 0);
            double secs = price.seconds;
            if (stream)  // what the block adds, and its share of the round
                secs = price.adds * k.stream_slow + price.rest() * k.round_stream_slow;
            else if (multi)  // the more of its own entry and its share of the round's, each as the crowd slows it
                secs = std::max(price.own * k.slow, price.share * (k.round_slow > 0 ? k.round_slow : k.slow));
            else
                secs *= k.slow * (c.op == Op::kAllgather ? k.gather_slow : 1);
            const double copy = secs * footprint[x.src];
            const double forward =
                stream ? 0 : c.op == Op::kAllgather && k.gather_forward_s >= 0 ? k.gather_forward_s : k.forward_s;
            // An inline allgather copy across cores: gather_cross_s more, on its core.
            const double across =
                is_inline && c.op == Op::kAllgather && cal.cores > 0 && x.src % cal.cores != x.dst % cal.cores
                    ? k.gather_cross_s
                    : 0;
            in.entries.push_back({x.src, x.dst, x.dep == kNoDep ? -1 : base + static_cast<int32_t>(x.dep),
                                  copy + across, forward * footprint[x.src], k.converge,
                                  is_inline && k.busy < 1 ? k.busy * copy + across : -1});
            if (blocks) blocks->push_back(static_cast<uint32_t>(&l - lists.data()));
        }
    }
    return in;
}

// A round of bcast a (radix) over crowd_ranks members, of `bytes`, with
// the costs k: what calibrate measured on the crowded node (a chain, a
// flat tree knomial:N, a pipeline).
double sample_round(const Calibration &cal, BcastAlgo a, unsigned radix, double bytes, bool is_inline,
                    const CrowdCosts &k) {
    Case c;
    c.op = Op::kBcast;
    c.algo = static_cast<uint8_t>(a);
    c.radix = radix;
    c.members = cal.crowd_ranks;
    c.bytes = static_cast<uint64_t>(bytes);
    return simulate_rounds(sim_input(c, cal, is_inline, k));
}

// A round of allgather a over crowd_ranks members, of blocks of `bytes`,
// with the costs k: what calibrate measured (Bruck: comm_crowd_gather,
// ring: comm_crowd_ring).
double sample_gather(const Calibration &cal, AllgatherAlgo a, double bytes, const CrowdCosts &k,
                     bool is_inline = false) {
    Case c;
    c.op = Op::kAllgather;
    c.algo = static_cast<uint8_t>(a);
    c.members = cal.crowd_ranks;
    c.bytes = static_cast<uint64_t>(bytes);
    return simulate_rounds(sim_input(c, cal, is_inline, k));
}

// x in [lo, hi] where the growing f(x) reaches want: lo if f(lo) does
// already, hi if f(hi) does not. Each f is a simulated round (eight runs
// of eight rounds), and halving the range 30 times was most of a crowded
// create's time (4-rank bcasts, 1 KiB-4 MiB: 4.3-5.1 s of CPU on the
// 2-core VM). So: regula falsi, with the Illinois rule against a stuck
// end (the end that stays twice has its distance to want halved), and
// halving where a line has nothing to go on (an infinite round). It
// stops once f(x) is within 1e-5 of want, or the range within 1e-7 of
// its start (a simulated round is a staircase at fine scale). A round
// need not grow everywhere: where it crosses want more than once, this
// may find another crossing than halving did.
// f_lo: f(lo), where the caller has it (NaN: not yet).
template <typename F>
double solve(F f, double want, double lo, double hi, double f_lo = std::numeric_limits<double>::quiet_NaN()) {
    double flo = (std::isnan(f_lo) ? f(lo) : f_lo) - want;
    if (!(flo < 0)) return lo;
    double fhi = f(hi) - want;
    if (fhi <= 0) return hi;
    const double tol_x = 1e-7 * (hi - lo), tol_f = 1e-5 * std::abs(want);
    int stayed = 0;  // which end the last step kept: -1 lo, 1 hi
    for (int i = 0; i < 100 && hi - lo > tol_x; ++i) {
        double x = std::isfinite(fhi) ? lo - flo * (hi - lo) / (fhi - flo) : (lo + hi) / 2;
        if (!(x > lo && x < hi)) x = (lo + hi) / 2;
        const double fx = f(x) - want;
        if (std::abs(fx) <= tol_f) return x;
        if (fx < 0) {
            lo = x, flo = fx;
            if (stayed == 1) fhi /= 2;
            stayed = 1;
        } else {  // a NaN round counts as past want, as the halving took it
            hi = x, fhi = fx;
            if (stayed == -1) flo /= 2;
            stayed = -1;
        }
    }
    return (lo + hi) / 2;
}

// The cost x >= 0 that makes round(x) take `want`; 0 where round(0) is
// within 10% of it already (a quarter turn of the spread switches):
// forward costs, which only ever add.
template <typename F>
double added_cost(F round, double want) {
    const double bare = round(0);
    return bare < 0.9 * want ? solve(round, want, 0, want, bare) : 0;
}

// Whether cal measured a crowded node (comm_crowded over more ranks than
// its cores).
bool has_crowd(const Calibration &cal) {
    return !cal.comm_crowded.empty() && cal.crowd_core_count() > 0 && cal.crowd_ranks > cal.crowd_core_count();
}

// The 1 KiB inline round the switch is solved on.
constexpr double kSwitchBytes = 1024;

// The switch between members on a core: what makes a 1 KiB chain over
// crowd_ranks members take its calibrated time (the same for every
// size), with inline copies holding their cores for `busy` of them.
double switch_time(const Calibration &cal, double busy) {
    const double small = (cal.crowd_ranks - 1) * cal.comm_crowded.at(kSwitchBytes);
    CrowdCosts k;
    k.busy = busy;
    auto chain = [&](double w) {
        k.switch_s = w;
        return sample_round(cal, BcastAlgo::kChain, 2, kSwitchBytes, true, k);
    };
    return solve(chain, small, 0, small);
}

// CrowdCosts::busy for inline copies of `bytes`: what makes a flat tree
// of that size take its calibrated time with switch_s (1 without
// comm_fanout, or where even whole copies are not enough).
double busy_at(const Calibration &cal, double bytes, double switch_s) {
    if (cal.comm_fanout.empty()) return 1;
    const double fan = (cal.crowd_ranks - 1) * cal.comm_fanout.at(bytes);
    CrowdCosts k;
    k.switch_s = switch_s;
    auto flat = [&](double b) {
        k.busy = b;
        return sample_round(cal, BcastAlgo::kKnomial, cal.crowd_ranks, bytes, true, k);
    };
    return flat(1) <= fan ? 1 : solve(flat, fan, 0, 1);
}

// The switch for inline rounds: the chain's, with copies that do not
// hold their cores at all, where the flat tree then needs them to hold
// their cores for less than whole copies. That is what solving the
// switch and the busy share at 1 KiB together tends to (on the 2-core
// VM's calibrations, at once on 3 ranks; on 4, from 0.38 down to 0.08
// over four passes, not settled): a 1 KiB store is short next to the
// hand-off around it. Otherwise (a flat tree slower than whole copies
// make it, as the VM measured while waits polled first): switch_s, the
// whole copies' switch.
double inline_switch_time(const Calibration &cal, double switch_s) {
    if (cal.comm_fanout.empty()) return switch_s;
    const double bare = switch_time(cal, 0);
    return busy_at(cal, kSwitchBytes, bare) < 1 ? bare : switch_s;
}

// CrowdCosts::slow for copies of `bytes` through process_vm_writev: what
// makes a flat tree of that size take its calibrated time (1 without
// comm_fanout).
double slow_at(const Calibration &cal, double bytes, double switch_s) {
    if (cal.comm_fanout.empty()) return 1;
    const double fan = (cal.crowd_ranks - 1) * cal.fanout(false).at(bytes);
    auto flat = [&](double s) {
        return sample_round(cal, BcastAlgo::kKnomial, cal.crowd_ranks, bytes, false, {switch_s, s, 0});
    };
    return solve(flat, fan, 1, 8);
}

// CrowdCosts::forward_s for copies of `bytes` with the rest of k: what
// makes a chain of that size take its calibrated time (added_cost).
double forward_at(const Calibration &cal, double bytes, bool is_inline, const CrowdCosts &k) {
    const double chain = (cal.crowd_ranks - 1) * cal.crowded(is_inline).at(bytes);
    CrowdCosts t = k;
    auto with = [&](double f) {
        t.forward_s = f;
        return sample_round(cal, BcastAlgo::kChain, 2, bytes, is_inline, t);
    };
    return added_cost(with, chain);
}

// Whether the calibrated ring prices an inline allgather of blocks of
// `bytes` on the crowded node: measured at that size through the slots
// (out_of_phase).
bool ring_prices_inline(const Calibration &cal, double bytes) {
    return out_of_phase(cal) && bytes >= cal.comm_crowd_ring.points().front().first;
}

// CrowdCosts::gather_cross_s for inline allgather copies of `bytes` with the
// rest of k: what makes a ring allgather of that size take its calibrated
// time (added_cost), its members' copies out of the slots included (there
// predict_round adds none: a block that came from another core is read
// from there, one from the same core is at hand); 0 where the ring was
// not measured at that size through the slots. Solved once per size
// (cache).
double cross_at(const Calibration &cal, double bytes, const CrowdCosts &k, CrowdCache *cache) {
    if (const double *known = cache->solved(CrowdCache::Solved::kGatherCross, bytes)) return *known;
    double x = 0;
    if (ring_prices_inline(cal, bytes)) {
        const double ring = (cal.crowd_ranks - 1) * cal.comm_crowd_ring.at(bytes);
        CrowdCosts t = k;
        auto crossed = [&](double v) {
            t.gather_cross_s = v;
            return sample_gather(cal, AllgatherAlgo::kRing, bytes, t, true);
        };
        x = added_cost(crossed, ring);
    }
    cache->remember(CrowdCache::Solved::kGatherCross, bytes, x);
    return x;
}

// The copies' costs of entries of `bytes` (CrowdCache::kCopies): all
// an inline round has.
CrowdCosts copy_costs(const Calibration &cal, double bytes, bool is_inline, double switch_s) {
    CrowdCosts k;
    k.switch_s = switch_s;
    // Inline rounds are plain stores into the control blocks, at the
    // 2-member price: their sender's core is held for part of it (busy),
    // and a forwarded one lands later (forward_s, not held). Without the
    // flat tree to split the two, they cost whole copies and no forward
    // (a forward cost held on the core would change the chain by nothing
    // until it outgrows a switch, then by a whole turn). Only
    // process_vm_writev rounds are slower, and more so when they forward.
    if (is_inline) {
        k.busy = busy_at(cal, bytes, switch_s);
        if (k.busy < 1) k.forward_s = forward_at(cal, bytes, true, k);
        return k;  // gather_cross_s: an allgather's own (round_crowd_costs)
    }
    // Measured as it is (process_vm_writev only: inline rounds store into
    // the control blocks); flat above the largest sample.
    if (!cal.converge_slow.empty()) k.converge = std::max(1.0, cal.converge_slow.clamped(bytes));
    k.slow = slow_at(cal, bytes, switch_s);
    // Likewise where the chain is close already (within 10%: a quarter
    // turn of the spread switches), there is no forward cost to find.
    k.forward_s = forward_at(cal, bytes, false, k);
    return k;
}

// Blocks in a stream (CrowdCache::kStream) on top of k's copy costs,
// from the crowded pipeline: its first blocks cost as the copies, the
// rest stream_slow times comm_stream. Measured on the 2-core VM, 3 ranks:
// 5-6 us a small block, not comm_stream's 3 (the core the root shares
// with the last member is not all the root's), and less than slow +
// forward_s for blocks of 128 KiB and up. cache: for the short
// pipeline's round share (stream_start_s), whose costs come from a
// smaller block's, as predict takes them.
void solve_stream(const Calibration &cal, double bytes, CrowdCosts *out, CrowdCache *cache) {
    if (cal.comm_crowd_stream.empty() || cal.comm_stream.empty()) return;
    CrowdCosts &k = *out;
    const double n = cal.crowd_ranks - 1;
    constexpr unsigned kS = kCrowdStreamSegments, kShort = kCrowdShortStreamSegments;
    const double round = (kS + n - 1) * cal.comm_crowd_stream.at(bytes);
    const double round_slow = slow_at(cal, bytes * kS, k.switch_s);
    double short_round_slow = 0;  // solved only with the short pipeline's curve (below)
    // A pipeline:S round's blocks' share of it is slowed as in the
    // pipeline:16 of as many bytes (round_crowd_costs): for the short
    // one, that of blocks a quarter the size, solved first (with their
    // own short pipeline, down to its smallest sample).
    const double quarter = bytes * kShort / kS;
    const bool below = cal.comm_crowd_stream4.empty() || quarter < cal.comm_crowd_stream4.points().front().first;
    const double short_share_slow =
        below ? -1 : cache->get(cal, quarter, false, CrowdCache::kStream).round_stream_slow;
    auto piped = [&](double s, unsigned segments) {
        CrowdCosts t = k;
        t.stream_slow = t.round_stream_slow = s;
        if (segments != kS && short_share_slow > 0) t.round_stream_slow = short_share_slow;
        t.round_slow = segments == kS ? round_slow : short_round_slow;
        return sample_round(cal, BcastAlgo::kPipeline, segments, bytes * segments, false, t);
    };
    k.stream_slow = k.round_stream_slow = solve([&](double s) { return piped(s, kS); }, round, 0.25, 8);
    // With the short pipeline too: the slowdown that puts the two rounds
    // as far apart as measured, and what both then lack, a cost of their
    // own round (at least 0; else as above).
    if (!cal.comm_crowd_stream4.empty()) {
        short_round_slow = slow_at(cal, bytes * kShort, k.switch_s);
        const double short_round = (kShort + n - 1) * cal.comm_crowd_stream4.at(bytes);
        auto apart = [&](double s) { return piped(s, kS) - piped(s, kShort); };
        const double want = round - short_round;
        const double s = apart(0.25) < want && want < apart(8) ? solve(apart, want, 0.25, 8) : 0;
        const double start = s > 0 ? round - piped(s, kS) : 0;
        if (start > 0) {
            k.stream_slow = k.round_stream_slow = s;
            k.stream_start_s = start;
        }
    }
}

// An allgather's copies (CrowdCache::kGather) on top of k's copy costs,
// from the crowded Bruck allgather, which its round also pays. Its
// samples start above the inline slots: below them, not measured (1).
void solve_gather(const Calibration &cal, double bytes, CrowdCosts *out) {
    if (cal.comm_crowd_gather.empty() || bytes < cal.comm_crowd_gather.points().front().first) return;
    CrowdCosts &k = *out;
    const double n = cal.crowd_ranks - 1;
    const double round = n * cal.comm_crowd_gather.at(bytes);
    auto gather = [&](double g) {
        CrowdCosts t = k;
        t.gather_slow = g;
        return sample_gather(cal, AllgatherAlgo::kBruck, bytes, t);
    };
    k.gather_slow = solve(gather, round, 0.25, 8);
    // With the ring, an allgather's own forward cost (added_cost, as
    // forward_at's), then Bruck's factor again with it. Once each: over 4
    // members Bruck forwards half its copies and the ring two thirds, too
    // close to tell the two costs apart. Solved in turn 12 times on one
    // 4-rank calibration of the 2-core VM, they drifted (gather_slow 0.73
    // -> 0.60, the forward cost 9.7 -> 12.4 us at 64 KiB) instead of
    // settling.
    if (!cal.comm_crowd_ring.empty() && bytes >= cal.comm_crowd_ring.points().front().first) {
        const double ring = n * cal.comm_crowd_ring.at(bytes);
        auto forwarded = [&](double f) {
            CrowdCosts t = k;
            t.gather_forward_s = f;
            return sample_gather(cal, AllgatherAlgo::kRing, bytes, t);
        };
        k.gather_forward_s = added_cost(forwarded, ring);
        k.gather_slow = solve(gather, round, 0.25, 8);
    }
}

// k's costs of the parts not in `parts` back to their defaults.
CrowdCosts only(CrowdCosts k, unsigned parts) {
    const CrowdCosts none;
    if (!(parts & CrowdCache::kStream)) {
        k.stream_slow = none.stream_slow;
        k.round_stream_slow = none.round_stream_slow;
        k.stream_start_s = none.stream_start_s;
    }
    if (!(parts & CrowdCache::kGather)) {
        k.gather_slow = none.gather_slow;
        k.gather_forward_s = none.gather_forward_s;
    }
    return k;
}

}  // namespace

CrowdCosts crowd_costs(const Calibration &cal, double bytes, bool is_inline) {
    return CrowdCache().get(cal, bytes, is_inline);
}

const Calibration &CrowdCache::crowd_node(const Calibration &cal) {
    if (cal.crowd_core_count() == cal.cores) return cal;
    if (!crowd_) {
        crowd_ = cal;
        crowd_->cores = cal.crowd_core_count();
        crowd_->crowd_cores = 0;
    }
    return *crowd_;
}

CrowdCosts CrowdCache::get(const Calibration &job, double bytes, bool is_inline, unsigned parts) {
    if (!has_crowd(job)) return {};
    const Calibration &cal = crowd_node(job);
    if (switch_s_ < 0) switch_s_ = switch_time(cal, 1);
    // Solved only once an inline round asks: a job of large rounds need
    // not pay its two solves at its first create.
    if (is_inline && inline_switch_s_ < 0) inline_switch_s_ = inline_switch_time(cal, switch_s_);
    const auto key = std::make_pair(bytes, is_inline);
    auto it = costs_.find(key);
    if (it == costs_.end()) {
        // An inline round has only its copies' costs: the rest is solved.
        const Entry k{copy_costs(cal, bytes, is_inline, is_inline ? inline_switch_s_ : switch_s_),
                       is_inline ? kAll : kCopies};
        it = costs_.emplace(key, k).first;
    }
    // The parts apart: a bcast's pipeline solves read nothing of an
    // allgather's, and the other way round.
    if ((parts & kStream) && !(it->second.parts & kStream)) {
        CrowdCosts k = it->second.k;  // a copy: the solve may add entries (std::map keeps `it`)
        solve_stream(cal, bytes, &k, this);
        CrowdCosts &kept = it->second.k;
        kept.stream_slow = k.stream_slow;
        kept.round_stream_slow = k.round_stream_slow;
        kept.stream_start_s = k.stream_start_s;
        it->second.parts |= kStream;
    }
    if ((parts & kGather) && !(it->second.parts & kGather)) {
        solve_gather(cal, bytes, &it->second.k);
        it->second.parts |= kGather;
    }
    return only(it->second.k, parts);
}

const double *CrowdCache::round(const RoundKey &key) const {
    const auto it = rounds_.find(key);
    return it == rounds_.end() ? nullptr : &it->second;
}

void CrowdCache::remember(const RoundKey &key, double seconds) { rounds_[key] = seconds; }

const double *CrowdCache::solved(Solved what, double bytes) const {
    const auto it = solved_.find({what, bytes});
    return it == solved_.end() ? nullptr : &it->second;
}

void CrowdCache::remember(Solved what, double bytes, double seconds) { solved_[{what, bytes}] = seconds; }

void CrowdCache::clear() {
    switch_s_ = inline_switch_s_ = -1;
    crowd_.reset();
    costs_.clear();
    rounds_.clear();
    solved_.clear();
}

namespace {

CrowdCosts chain_round_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache);

// A scatter_ring's forward cost for entries of `bytes`: what makes the
// calibrated crowd's scatter_ring of those entries take its measured time
// (added_cost), where calibrate measured one of that round size; else the
// chain's, chain_forward_s. The chain's over-prices it: on the 2-core VM,
// 4 ranks, scatter_ring rounds of 512 KiB-2 MiB read 1.10-1.17x their
// measured time (median of 48 launches) with it, where the binomial and
// the chain read 0.97-1.06; their copies run on both cores at once, the
// chain's one after another.
double scatter_forward_at(const Calibration &cal, double bytes, double chain_forward_s, CrowdCache *cache) {
    if (cal.comm_crowd_scatter.empty() || cal.crowd_ranks < 3) return chain_forward_s;
    if (const double *known = cache->solved(CrowdCache::Solved::kScatterForward, bytes)) return *known;
    const double n = cal.crowd_ranks - 1;
    Case s;
    s.op = Op::kBcast;
    s.algo = static_cast<uint8_t>(BcastAlgo::kScatterRing);
    s.members = cal.crowd_ranks;
    s.bytes = static_cast<uint64_t>(bytes * n);
    const auto &points = cal.comm_crowd_scatter.points();
    double f = chain_forward_s;
    if (points.front().first <= static_cast<double>(s.bytes) && static_cast<double>(s.bytes) <= points.back().first) {
        CrowdCosts t = chain_round_costs(s, cal, false, cache);
        auto with = [&](double x) {
            t.forward_s = x;
            return simulate_rounds(sim_input(s, cal, false, t));
        };
        f = added_cost(with, n * cal.comm_crowd_scatter.at(static_cast<double>(s.bytes)));
    }
    cache->remember(CrowdCache::Solved::kScatterForward, bytes, f);
    return f;
}

// The CrowdCosts a simulated round of c uses: its entries' size's, with
// the chain's forward cost.
CrowdCosts chain_round_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache) {
    // The parts of the costs c's round reads (sim_input).
    const bool piped = multi_block(c) || c.algo == static_cast<uint8_t>(BcastAlgo::kPipeline);
    const unsigned parts = c.op == Op::kAllgather ? CrowdCache::kGather
                           : piped                ? CrowdCache::kStream
                                                  : CrowdCache::kCopies;
    CrowdCosts k = cache->get(cal, static_cast<double>(entry_bytes_of(c)), is_inline, parts);
    // A streamed block's share of the round is slowed as in the
    // calibrated pipeline:16 of as many bytes: the same arrays crowd
    // the same caches (CrowdCosts::round_stream_slow).
    // Likewise a block priced by its round's arrays (its share of the
    // round's entry) is slowed as copies of the round's size are.
    if (multi_block(c)) {
        const auto round = static_cast<double>(c.bytes);
        k.round_stream_slow = cache->get(cal, round / kCrowdStreamSegments, is_inline, CrowdCache::kStream)
                                  .round_stream_slow;
        k.round_slow = cache->get(cal, round, is_inline, CrowdCache::kCopies).slow;
    }
    // The start cost is a pipeline's round's (CrowdCosts::stream_start_s).
    if (c.op != Op::kBcast || c.algo != static_cast<uint8_t>(BcastAlgo::kPipeline)) k.stream_start_s = 0;
    return k;
}

// ... and a scatter_ring's own, or an inline allgather's.
CrowdCosts round_crowd_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache) {
    CrowdCosts k = chain_round_costs(c, cal, is_inline, cache);
    const auto entry = static_cast<double>(entry_bytes_of(c));
    const Calibration &crowd = cache->crowd_node(cal);  // these solve rounds of the calibrated crowd
    if (c.op == Op::kBcast && c.algo == static_cast<uint8_t>(BcastAlgo::kScatterRing))
        k.forward_s = scatter_forward_at(crowd, entry, k.forward_s, cache);
    if (c.op == Op::kAllgather && is_inline) k.gather_cross_s = cross_at(crowd, entry, k, cache);
    return k;
}

// Whether the round runs on one node with more members than cores, and
// the calibration has the crowded figure to simulate it with.
bool simulated(const Case &c, const Calibration &cal, const Topology *t) {
    if (!has_crowd(cal) || c.members <= cal.cores || c.members > kMaxSimulatedMembers) return false;
    for (uint32_t m = 1; t && m < c.members; ++m)
        if (t->node_of(m) != t->node_of(0)) return false;
    return true;
}

// Whether c's round is priced back to back (overlap.hpp) where it would
// be simulated: a bcast tree's inline round, whose root runs rounds
// ahead at the handle's own ring depth, as calibrate measured them.
bool overlapped(const Case &c, const Calibration &cal) {
    return c.op == Op::kBcast && inline_round(c) && !c.ring_capped && !cal.comm_crowded_overlap.empty() &&
           !cal.comm_fanout_overlap.empty();
}

// The copy costs a back-to-back round of `bytes` pays on the crowded node.
OverlapCosts overlap_costs_at(const Calibration &cal, double bytes) {
    const double steps = cal.crowd_ranks - 1.0;
    return overlap_costs(cal.crowd_ranks, cal.crowd_core_count(), steps * cal.comm_crowded_overlap.at(bytes),
                         steps * cal.comm_fanout_overlap.at(bytes));
}

// Seconds of c's round back to back: its busiest core's copies.
double overlap_seconds(const Case &c, const OverlapCosts &k, unsigned cores) {
    std::vector<std::pair<uint32_t, uint32_t>> copies;
    for (const BlockList &l : block_lists(c))
        for (const Command &x : l.list) copies.emplace_back(x.src, x.dst);
    return overlap_round(core_loads(copies, cores), k);
}

// c's round on the crowded node, simulated (the costs it used into *used):
// remembered per case, plus a pipeline's start cost.
double simulated_round(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache, CrowdCosts *used) {
    *used = round_crowd_costs(c, cal, is_inline, cache);
    const CrowdCache::RoundKey key{static_cast<uint8_t>(c.op), c.algo, c.radix, c.members, c.root, c.bytes,
                                   is_inline};
    const double *known = cache->round(key);
    const double round = known ? *known : simulate_rounds(sim_input(c, cal, is_inline, *used));
    if (!known) cache->remember(key, round);
    return round + used->stream_start_s;  // a pipeline's round (0 for others)
}

// Whether c is a pipeline of more segments than calibrate's short one and
// fewer than its long one, both measured (comm_crowd_stream4 and
// comm_crowd_stream): priced between the two (between_pipelines).
bool between_calibrated_pipelines(const Case &c, const Calibration &cal) {
    return c.op == Op::kBcast && c.algo == static_cast<uint8_t>(BcastAlgo::kPipeline) &&
           c.radix > kCrowdShortStreamSegments && c.radix < kCrowdStreamSegments && !cal.comm_crowd_stream.empty() &&
           !cal.comm_crowd_stream4.empty();
}

// A crowded pipeline:S between the calibrated two: S + members - 2 steps,
// each what a step of the short and of the long pipeline of blocks of
// this size costs, simulated, weighted by where log2 S lies between
// theirs. The stream costs are solved so that those two come out as
// measured; simulated with them, the ones between did not follow. On
// the 2-core VM, 3 ranks, a step of 128 KiB blocks measured 15.6-17.8 us
// at 8, 16 and 32 segments and 22 at 4 (a 512 KiB round): pipeline:8 of
// 1 MiB took the long one's block costs, the short one's start cost, and
// a 1 MiB round's share of it from the long pipeline of 64 KiB blocks,
// and read 1.26-1.44x in 4 launches of 4 (its 2 MiB one 0.77-1.0); in
// the next check's 3 launches it measured 190 us, not 137-161. Over 24
// stored launches of 5 model checks, priced between: median ratios in
// band 453 of 455 at 3 ranks (450 before), picks 121 of 130 (120); at 4
// ranks unchanged (490 of 490; 125 of 130).
Prediction::Between between_pipelines(const Case &c, const Calibration &cal, CrowdCache *cache) {
    const double block = static_cast<double>(c.bytes) / c.radix;
    auto step = [&](unsigned segments) {
        Case x = c;
        x.radix = segments;
        x.bytes = static_cast<uint64_t>(block * segments);
        CrowdCosts unused;
        return simulated_round(x, cal, false, cache, &unused) / (segments + c.members - 2);
    };
    Prediction::Between b;
    b.short_step_s = step(kCrowdShortStreamSegments);
    b.long_step_s = step(kCrowdStreamSegments);
    b.weight = std::log2(static_cast<double>(c.radix) / kCrowdShortStreamSegments) /
               std::log2(static_cast<double>(kCrowdStreamSegments) / kCrowdShortStreamSegments);
    return b;
}

// predict(); list_steps false: a simulated round's steps are not listed
// (best() wants the time alone, and create calls it per candidate).
Prediction predict_round(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache,
                         bool list_steps) {
    CrowdCache own;
    if (!cache) cache = &own;
    Prediction p;
    if (c.members <= 1) return p;
    const bool multi = multi_block(c), is_inline = inline_round(c);
    const bool sim = simulated(c, cal, t);
    const Turn turn = turn_of(c);
    // When simulated, the steps stay for the tools; the time is the simulation's.
    const bool steps = list_steps || !sim;
    if (steps && turn.period > 0) {  // from a few lists: each distinct step costed once
        const std::vector<BlockList> bases = block_lists(c, turn.period);
        const std::vector<double> footprint = footprint_factors(c, cal, t, bases, turn);
        const TurnedSteps ts = turned_steps(c, bases, turn);
        // Costed once each; the messages kept only to list them.
        std::vector<Step> costed(ts.distinct.size());
        std::vector<uint8_t> done(ts.distinct.size(), 0);
        for (const uint32_t i : ts.of_step) {
            if (!std::exchange(done[i], 1)) {
                costed[i].msgs = turned_step(c, ts.distinct[i], turn.period, turn, list_steps);
                cost(costed[i], is_inline, cal, t, 0, footprint);
                if (!list_steps) std::vector<Message>().swap(costed[i].msgs);
            }
            p.comm_s += costed[i].seconds;
            if (list_steps) p.steps.push_back(costed[i]);
        }
    } else if (steps) {
        const std::vector<BlockList> lists = block_lists(c);
        const std::vector<double> footprint = footprint_factors(c, cal, t, lists);
        const StepMsgs m = steps_of(c, cal, t, lists);
        // One step at a time: create (best) keeps none of them. Steps
        // repeat (a pipeline's, once every pair of its chain carries a
        // block; the turned allgathers' are deduplicated above): one with
        // the messages of one of the last two costs what that one did,
        // without routing them again.
        Step s, last[2];
        auto same_msg = [](const Message &x, const Message &y) {
            return x.src == y.src && x.dst == y.dst && x.bytes == y.bytes && x.streamed == y.streamed;
        };
        auto same = [&](const std::vector<Message> &a, const std::vector<Message> &b) {
            return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_msg);
        };
        for (size_t i = 0; i < m.size();) {
            const uint32_t step = m[i].step;
            s.msgs.clear();
            for (; i < m.size() && m[i].step == step; ++i)
                s.msgs.push_back({m[i].src, m[i].dst, m[i].bytes, 1, m[i].streamed});
            if (same(s.msgs, last[0].msgs)) {
                s = last[0];
            } else if (same(s.msgs, last[1].msgs)) {
                s = last[1];
                std::swap(last[0], last[1]);
            } else {
                cost(s, is_inline, cal, t, multi ? c.bytes : 0, footprint);
                last[1] = std::move(last[0]);
                last[0] = s;
            }
            p.comm_s += s.seconds;
            if (!list_steps) continue;
            p.steps.resize(step);  // a step without messages stays empty
            p.steps.push_back(s);
        }
    }
    if (sim && overlapped(c, cal)) {
        p.overlap = overlap_costs_at(cal, static_cast<double>(c.bytes));
        p.comm_s = overlap_seconds(c, p.overlap, cal.cores);
        p.overlapped = true;
    } else if (sim) {
        if (between_calibrated_pipelines(c, cal)) {
            p.between = between_pipelines(c, cal, cache);
            p.comm_s = (c.radix + c.members - 2) * p.between.step_s();
            // Its own round's costs are not in the time: solved for the
            // tools only (a forced pipeline's create would solve them for nothing).
            if (list_steps) p.crowd = round_crowd_costs(c, cal, is_inline, cache);
        } else {
            p.comm_s = simulated_round(c, cal, is_inline, cache, &p.crowd);
        }
        p.simulated = true;
    }
    // Local copies on the longest path: what a receiver copies out of the
    // inline slots or its buffer, and what a sender copies in. A bcast
    // member's one copy out of its inline slot is in the entry already:
    // comm is a 2-member inline bcast round, copy out included. Counted
    // again, 2-rank trees of 1-16 KiB read 1.4-2.1x their measured time
    // (0.98-1.03 without). An allgather member copies out a block from
    // every other; its 2-member rounds, both members sending at once,
    // took 1.2-1.9x comm, so its copies stay counted; but on a crowded
    // node whose calibrated ring has them in its round (cross_at).
    const double blocks_in = c.op == Op::kBcast ? 1.0 : static_cast<double>(c.members - 1);
    const double one = cal.memcpy.at(static_cast<double>(c.bytes));
    if (is_inline && c.op == Op::kAllgather && !(sim && ring_prices_inline(cal, static_cast<double>(c.bytes))))
        p.memcpy_s += blocks_in * one;
    if (c.buffered) {
        p.memcpy_s += one;                                      // in
        if (c.op == Op::kAllgather) p.memcpy_s += one;          // own block to recvbuf
        if (!is_inline) p.memcpy_s += blocks_in * one;          // out (inline: already counted)
    }
    return p;
}

}  // namespace

std::vector<double> member_footprints(const Case &c, const Calibration &cal, const Topology *t) {
    if (c.members <= 1) return std::vector<double>(c.members, 1.0);
    const Turn turn = turn_of(c);
    return footprint_factors(c, cal, t, block_lists(c, turn.period), turn);
}

std::string algo_name(const Case &c) {
    return c.op == Op::kBcast ? name_of(static_cast<BcastAlgo>(c.algo), c.radix)
                              : name_of(static_cast<AllgatherAlgo>(c.algo));
}

Prediction predict(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache) {
    return predict_round(c, cal, t, cache, true);
}

double predict_seconds(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache) {
    return predict_round(c, cal, t, cache, false).total();
}

RoundTrace trace_simulated_round(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache) {
    RoundTrace r;
    if (c.members <= 1 || !simulated(c, cal, t) || overlapped(c, cal)) return r;
    CrowdCache own;
    const bool is_inline = inline_round(c);
    const SimInput in = sim_input(c, cal, is_inline, round_crowd_costs(c, cal, is_inline, cache ? cache : &own),
                                  &r.blocks);
    r.events = trace_round(in);
    r.entries = in.entries;
    r.switch_s = in.switch_s;
    return r;
}

std::vector<Case> candidates(const Case &c) {
    std::vector<Case> out;
    if (c.op == Op::kBcast) {
        for (BcastAlgo a : kBcastAlgos) {
            if (!bcast_applies(a, c.members).empty()) continue;
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            const auto param = bcast_param(a);
            k.radix = param ? param->def : 2;  // as parse_bcast_algo("name") gives
            if (a == BcastAlgo::kPipeline) {  // a few segment counts
                for (unsigned s : kPipelineCandidates) {
                    k.radix = s;
                    out.push_back(k);
                }
                continue;
            }
            out.push_back(k);
        }
    } else {
        for (AllgatherAlgo a : kAllgatherAlgos) {
            if (!allgather_applies(a, c.members).empty() || !allgather_modelled(a, c.members)) continue;
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            out.push_back(k);
        }
    }
    return out;
}

bool allgather_modelled(AllgatherAlgo a, uint32_t members) {
    if (members <= kMaxModelledAllgather) return true;
    // The trees are turned too, but send every block to its own distances.
    return a != AllgatherAlgo::kBlockTree && allgather_turn(a, members).period > 0 && members <= kMaxTurnedAllgather;
}

AllgatherAlgo unmodelled_allgather(uint32_t members, uint64_t bytes) {
    if (bytes < 128) return AllgatherAlgo::kBruck;
    return members % 2 == 0 ? AllgatherAlgo::kNeighborExchange : AllgatherAlgo::kRing;
}

size_t pick_fastest(const std::vector<double> &seconds) {
    size_t pick = 0;
    for (size_t i = 1; i < seconds.size(); ++i)
        if (seconds[i] < seconds[pick] * (1 - kTieMargin)) pick = i;
    return pick;
}

namespace {

// The least of samples.at(x) over x >= bytes: at(bytes), or a sample
// above it (between samples the curve is linear; above the last it grows).
double floor_from(const Samples &samples, double bytes) {
    double least = samples.at(bytes);
    for (const auto &[x, y] : samples.points())
        if (x >= bytes) least = std::min(least, y);
    return least;
}

// Steps of a list: the entries on its longest chain of dependencies.
uint32_t depth_of(const CommandList &l) {
    std::vector<uint32_t> depth;
    entry_depths(l, &depth);
    return l.empty() ? 0 : *std::max_element(depth.begin(), depth.end()) + 1;
}

}  // namespace

double round_lower_bound(const Case &c, const Calibration &cal) {
    if (c.members < 2) return 0;
    const uint32_t blocks = blocks_of(c);
    const bool multi = multi_block(c), is_inline = inline_round(c);
    // The least a message of `bytes` can cost in a step.
    auto least = [&](uint64_t bytes) {
        const auto b = static_cast<double>(bytes);
        double l = floor_from(cal.entry(is_inline), b);
        if (!cal.comm_net.empty()) l = std::min(l, floor_from(cal.comm_net, b));
        // A streamed block costs at least its share of the round's entry
        // (Calibration::copy_seconds).
        if (multi) {
            const auto round = static_cast<double>(c.bytes);
            double whole = floor_from(cal.entry(is_inline), round);
            if (!cal.comm_net.empty()) whole = std::min(whole, floor_from(cal.comm_net, round));
            l = std::min(l, b / round * whole);
        }
        return l;
    };
    if (c.op == Op::kAllgather)
        return depth_of(allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, 0)) * least(c.bytes);
    // Block 0 (the largest) takes a step per entry on its longest chain.
    const auto a = static_cast<BcastAlgo>(c.algo);
    const uint64_t first = entry_bytes_of(c);
    double bound = depth_of(bcast_block_list(a, c.members, c.root, 0, c.radix)) * least(first);
    if (a == BcastAlgo::kPipeline) {
        // The root sends one block a step to the next member; the last
        // block to leave has members - 2 hops still to go: every one of
        // those steps carries some block, the smallest at least.
        uint64_t smallest = first;
        for (uint32_t b = 1; b < blocks; ++b) smallest = std::min(smallest, block_range(c.bytes, blocks, b).length);
        bound = std::max(bound, (blocks + c.members - 2) * least(smallest));
    }
    return bound;
}

Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds, CrowdCache *cache) {
    const std::vector<Case> all = candidates(c);
    if (all.empty()) {  // an allgather over more than kMaxTurnedAllgather members
        if (seconds) *seconds = 0;
        Case pick = c;
        pick.algo = static_cast<uint8_t>(unmodelled_allgather(c.members, c.bytes));
        return pick;
    }
    std::vector<double> secs;
    CrowdCache own;
    if (!cache) cache = &own;
    // A candidate whose lower bound already loses to the pick so far is
    // not modelled: it could not be picked (pick_fastest), and a pipeline
    // or chain over tens of thousands of members is most of create's work.
    for (size_t i = 0; i < all.size(); ++i) {
        const bool hopeless = i > 0 && !simulated(all[i], cal, t) &&
                              round_lower_bound(all[i], cal) >= secs[pick_fastest(secs)] * (1 - kTieMargin);
        secs.push_back(hopeless ? std::numeric_limits<double>::infinity() : predict_seconds(all[i], cal, t, cache));
    }
    const size_t i = pick_fastest(secs);
    if (seconds) *seconds = secs[i];
    return all[i];
}

}  // namespace acpx::collectives::model
