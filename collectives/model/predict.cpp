// Steps from command lists, collisions per step, time per step; time
// slicing on a crowded node; the pick.
#include "predict.hpp"

#include "footprint.hpp"
#include "round_lists.hpp"

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
    const bool by_step =
        std::is_sorted(m->begin(), m->end(), [](const StepMsg &a, const StepMsg &b) { return a.step < b.step; });
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
    for (uint32_t b = 0; b < blocks.size(); ++b) first[b + 1] = first[b] + static_cast<uint32_t>(blocks[b].list.size());
    std::vector<uint32_t> from(first.back() + 1, 0), waiting(first.back());
    using Item = std::tuple<uint32_t, uint32_t, uint32_t>;  // (earliest step, block, entry)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (uint32_t b = 0; b < blocks.size(); ++b)
        for (uint32_t e = 0; e < blocks[b].list.size(); ++e) {
            const uint32_t dep = blocks[b].list[e].dep;
            if (dep == kNoDep)
                ready.push({0, b, e});
            else
                ++from[first[b] + dep + 1];
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
    std::vector<uint32_t> of_step;               // step -> its index in distinct
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
std::vector<Message> turned_step(const Case &c, const std::vector<TurnKey> &keys, uint32_t g, Turn turn, bool listed) {
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
        add_scheduled(
            blocks, [&](uint32_t s, uint32_t d) { return single && cal.cores > 0 && node(s) == node(d); }, &m);
    }
    merge_steps(&m);
    return m;
}

// Which members run on a node of more members than cores (time slicing,
// predict.hpp): by node where there is a topology, else all or none.
struct Sliced {
    const Topology *t = nullptr;
    std::vector<uint8_t> node_sliced;  // by node index, with t
    bool any = false;                  // some member is on such a node
    bool of(uint32_t member) const { return any && (!t || node_sliced[t->node_of(member)] != 0); }
};

Sliced sliced_members(const Case &c, const Calibration &cal, const Topology *t) {
    Sliced s;
    // No limit of cores, or no more members than one node's cores: no node
    // is crowded, and no node needs counting.
    if (cal.cores == 0 || c.members <= cal.cores) return s;
    s.t = t;
    if (!t) return s.any = true, s;
    std::vector<uint32_t> on_node(t->nodes(), 0);
    for (uint32_t m = 0; m < c.members; ++m) ++on_node[t->node_of(m)];
    s.node_sliced.resize(on_node.size());
    for (size_t n = 0; n < on_node.size(); ++n) {
        s.node_sliced[n] = on_node[n] > cal.cores;
        s.any = s.any || s.node_sliced[n];
    }
    return s;
}

// A step costs its slowest message: C collisions cost a copy of C x M
// bytes (seed 003); between nodes, where the messages that share a link
// or a port differ in size, a copy of the bytes they carry together
// (step_shares: the small ones end early, then the large one runs at
// the link's speed; C x the largest prices recursive doubling's uneven
// steps 1.3-2.9x over both simulators:
// doc/measurements/2026-12-06-model-shared-bytes.md). On a node, the copies
// beyond its cores wait as collisions too, and copies at once are slower
// (concurrent_slow); so is a copy between two nodes while the other node
// copies back (net_pair_slow). A message to or from a time-sliced node
// waits for a switch besides.
void cost(Step &s, bool inline_round, const Calibration &cal, const Topology *t, uint64_t round_bytes,
          const std::vector<double> &footprint, const Sliced &sliced) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::vector<uint64_t> sizes;
    for (const Message &m : s.msgs) {
        pairs.emplace_back(m.src, m.dst);
        sizes.push_back(m.bytes);
    }
    const StepShares sh = step_shares(t, pairs, sizes, cal.cores);
    const std::vector<uint32_t> &col = sh.collisions,
                                &on_node = sh.on_node;  // on_node: copies within the message's node
    const std::vector<uint64_t> &shared = sh.bytes;
    // Node pairs (from, to) some copy of this step crosses.
    std::set<std::pair<uint32_t, uint32_t>> crossing;
    auto node = [&](uint32_t m) { return t ? t->node_of(m) : 0u; };
    if (t && !cal.comm_net_pair.empty())
        for (size_t i = 0; i < s.msgs.size(); ++i)
            if (on_node[i] == 0) crossing.emplace(node(s.msgs[i].src), node(s.msgs[i].dst));
    s.seconds = 0;
    for (size_t i = 0; i < s.msgs.size(); ++i) {
        const Message &m = s.msgs[i];
        const double c = col[i];
        s.msgs[i].collisions = col[i];
        const bool across = on_node[i] == 0;  // between two nodes
        // A block right behind another on its pair skips the wait for the
        // receiver's ready signal the first one paid.
        const double bytes = across ? static_cast<double>(shared[i]) : c * static_cast<double>(m.bytes);
        double secs = cal.copy_seconds(inline_round, m.streamed, across, bytes, static_cast<double>(round_bytes));
        // Two or more on a node run on two cores or more at once (with
        // one core, they take turns).
        if (on_node[i] >= 2 && cal.cores != 1) secs *= cal.concurrent_slow(static_cast<double>(m.bytes));
        if (across && crossing.count({node(m.dst), node(m.src)}))
            secs *= cal.net_pair_slow(static_cast<double>(m.bytes));
        secs *= footprint[m.src];
        if (sliced.of(m.src) || sliced.of(m.dst)) secs += cal.switch_s;
        s.seconds = std::max(s.seconds, secs);
    }
}

// predict(); list_steps false: the steps are not kept (best() wants the
// time alone, and create calls it per candidate).
Prediction predict_round(const Case &c, const Calibration &cal, const Topology *t, bool list_steps) {
    Prediction p;
    if (c.members <= 1) return p;
    const bool multi = multi_block(c), is_inline = inline_round(c);
    const Sliced sliced = sliced_members(c, cal, t);
    if (sliced.any) p.switch_s = cal.switch_s;
    const Turn turn = turn_of(c);
    if (turn.period > 0) {  // from a few lists: each distinct step costed once
        const std::vector<BlockList> bases = block_lists(c, turn.period);
        const std::vector<double> footprint = footprint_factors(c, cal, t, bases, turn);
        const TurnedSteps ts = turned_steps(c, bases, turn);
        // Costed once each; the messages kept only to list them.
        std::vector<Step> costed(ts.distinct.size());
        std::vector<uint8_t> done(ts.distinct.size(), 0);
        for (const uint32_t i : ts.of_step) {
            if (!std::exchange(done[i], 1)) {
                costed[i].msgs = turned_step(c, ts.distinct[i], turn.period, turn, list_steps);
                cost(costed[i], is_inline, cal, t, 0, footprint, sliced);
                if (!list_steps) std::vector<Message>().swap(costed[i].msgs);
            }
            p.comm_s += costed[i].seconds;
            if (list_steps) p.steps.push_back(costed[i]);
        }
    } else {
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
                cost(s, is_inline, cal, t, multi ? c.bytes : 0, footprint, sliced);
                last[1] = std::move(last[0]);
                last[0] = s;
            }
            p.comm_s += s.seconds;
            if (!list_steps) continue;
            p.steps.resize(step);  // a step without messages stays empty
            p.steps.push_back(s);
        }
    }
    // Local copies on the longest path: what a receiver copies out of the
    // inline slots or its buffer, and what a sender copies in. A bcast
    // member's one copy out of its inline slot is in the entry already:
    // comm is a 2-member inline bcast round, copy out included. Counted
    // again, 2-rank trees of 1-16 KiB read 1.4-2.1x their measured time
    // (0.98-1.03 without). An allgather member copies out a block from
    // every other; its 2-member rounds, both members sending at once,
    // took 1.2-1.9x comm, so its copies stay counted. Each costs what the
    // calibrated 2-member inline allgather takes over its bcast
    // (Calibration::inline_copy_out).
    const double blocks_in = c.op == Op::kBcast ? 1.0 : static_cast<double>(c.members - 1);
    const double one = cal.memcpy.at(static_cast<double>(c.bytes));
    if (is_inline && c.op == Op::kAllgather)
        p.memcpy_s += blocks_in * cal.inline_copy_out(static_cast<double>(c.bytes));
    // A buffered handle copies little more than a direct one (middle/
    // round.cpp): senders send from their arrays, members take inline
    // rounds from their slots into their arrays, and larger rounds go
    // from array to array between members of a node (put_in_place); an
    // allgather member copies its own block to its recvbuf. Only copies
    // by GMA, across nodes, go through the buffers: in at the sender, out
    // at the receiver.
    auto across_nodes = [&] {
        return c.nodes &&
               std::any_of(c.nodes->begin(), c.nodes->end(), [&](uint32_t n) { return n != c.nodes->front(); });
    };
    if (c.buffered) {
        if (c.op == Op::kAllgather) p.memcpy_s += one;  // own block to recvbuf
        if (!is_inline && across_nodes()) p.memcpy_s += one + blocks_in * one;
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
    return std::string(c.hier ? kHierPrefix : "") + (c.op == Op::kBcast
                                                         ? name_of(static_cast<BcastAlgo>(c.algo), c.radix)
                                                         : name_of(static_cast<AllgatherAlgo>(c.algo)));
}

Prediction predict(const Case &c, const Calibration &cal, const Topology *t) { return predict_round(c, cal, t, true); }

double predict_seconds(const Case &c, const Calibration &cal, const Topology *t) {
    return predict_round(c, cal, t, false).total();
}

bool time_sliced(const Case &c, const Calibration &cal, const Topology *t) {
    return c.members > 1 && sliced_members(c, cal, t).any;
}

std::vector<Case> candidates(const Case &c) {
    std::vector<Case> out;
    if (c.op == Op::kBcast) {
        for (const BcastInfo &i : bcast_table()) {
            const BcastAlgo a = i.algo;
            if (!bcast_applies(a, c.members).empty()) continue;
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            const auto param = i.param;
            k.radix = param ? param->def : 2;  // as parse_bcast_algo("name") gives
            if (a == BcastAlgo::kPipeline) {   // a few segment counts
                for (unsigned s : kPipelineCandidates) {
                    k.radix = s;
                    out.push_back(k);
                }
                continue;
            }
            out.push_back(k);
        }
    } else {
        for (const AllgatherInfo &i : allgather_table()) {
            const AllgatherAlgo a = i.algo;
            if (!allgather_applies(a, c.members).empty() || !allgather_modelled(a, c.members)) continue;
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            out.push_back(k);
        }
    }
    if (c.nodes && hier_differs(*c.nodes)) {
        const size_t flat = out.size();
        for (size_t i = 0; i < flat; ++i) {
            Case k = out[i];
            const bool offered = k.op == Op::kBcast ? hier_offered(static_cast<BcastAlgo>(k.algo))
                                                    : hier_offered(static_cast<AllgatherAlgo>(k.algo));
            if (!offered) continue;
            k.hier = true;
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
    if (c.op == Op::kAllgather) return depth_of(block_list(c, 0)) * least(c.bytes);
    // Block 0 (the largest) takes a step per entry on its longest chain.
    const auto a = static_cast<BcastAlgo>(c.algo);
    const uint64_t first = entry_bytes_of(c);
    double bound = depth_of(block_list(c, 0)) * least(first);
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

Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds) {
    const std::vector<Case> all = candidates(c);
    if (all.empty()) {  // an allgather over more than kMaxTurnedAllgather members
        if (seconds) *seconds = 0;
        Case pick = c;
        pick.algo = static_cast<uint8_t>(unmodelled_allgather(c.members, c.bytes));
        return pick;
    }
    std::vector<double> secs;
    // A candidate whose lower bound already loses to the pick so far is
    // not modelled: it could not be picked (pick_fastest), and a pipeline
    // or chain over tens of thousands of members is most of create's work.
    for (size_t i = 0; i < all.size(); ++i) {
        const bool hopeless = i > 0 && round_lower_bound(all[i], cal) >= secs[pick_fastest(secs)] * (1 - kTieMargin);
        secs.push_back(hopeless ? std::numeric_limits<double>::infinity() : predict_seconds(all[i], cal, t));
    }
    const size_t i = pick_fastest(secs);
    if (seconds) *seconds = secs[i];
    return all[i];
}

}  // namespace acpx::collectives::model
