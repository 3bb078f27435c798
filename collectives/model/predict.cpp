// Steps from command lists, collisions per step, time per step.
#include "predict.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>
#include <tuple>

namespace acpx::collectives::model {
namespace {

// Predictions closer than this are a tie, which the earlier candidate
// (binomial, the per-block tree) wins: the calibration itself is not that
// precise (two runs on the 2-core VM differ by 5-20%), and at 4 ranks
// there the trees were predicted within 1% of each other while measured
// chain was 1.6x binary.
constexpr double kTieMargin = 0.02;

// Segment counts the selection tries for pipeline.
constexpr unsigned kPipelineCandidates[] = {4, 8, 16, 32};

// (step, src, dst) -> bytes over every block's list; whether the pair
// carried a block in the step before too (a stream of blocks), and
// whether the sender had to wait for the data (not a bcast's root).
struct PairLoad {
    uint64_t bytes = 0;
    bool streamed = false;
    bool woken = true;
};
using StepMap = std::map<std::tuple<uint32_t, uint32_t, uint32_t>, PairLoad>;

// The allgathers: an entry's step is its depth (every member sends each
// step; a member's blocks to one peer in a step are one message).
void add_by_depth(const CommandList &l, uint64_t bytes, StepMap *m) {
    std::vector<uint32_t> depth(l.size(), 0);
    for (size_t e = 0; e < l.size(); ++e) {
        depth[e] = l[e].dep == kNoDep ? 0 : depth[l[e].dep] + 1;
        (*m)[{depth[e], l[e].src, l[e].dst}].bytes += bytes;
    }
}

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
void add_scheduled(const std::vector<CommandList> &lists, const std::vector<uint64_t> &bytes, Serial serial,
                   StepMap *m) {
    using Item = std::tuple<uint32_t, uint32_t, uint32_t>;  // (earliest step, block, entry)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    std::vector<std::vector<std::vector<uint32_t>>> after(lists.size());  // entries waiting on an entry
    for (uint32_t b = 0; b < lists.size(); ++b) {
        after[b].resize(lists[b].size());
        for (uint32_t e = 0; e < lists[b].size(); ++e) {
            if (lists[b][e].dep == kNoDep) ready.push({0, b, e});
            else after[b][lists[b][e].dep].push_back(e);
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> busy;  // (sender, sender) or pair -> steps taken
    while (!ready.empty()) {
        const auto [earliest, b, e] = ready.top();
        ready.pop();
        const Command &c = lists[b][e];
        const bool by_sender = serial(c.src, c.dst);
        std::set<uint32_t> &taken = busy[{c.src, by_sender ? c.src : c.dst}];
        uint32_t step = earliest;
        while (taken.count(step)) ++step;
        taken.insert(step);
        PairLoad &load = (*m)[{step, c.src, c.dst}];
        load.bytes += bytes[b];
        // Entries leave the queue by earliest step, so none placed later
        // can take step - 1 of this pair: the flag is final.
        load.streamed = !by_sender && step > 0 && taken.count(step - 1);
        // A root holds its data from the start: it never waits to be woken.
        load.woken = c.dep != kNoDep;
        for (uint32_t next : after[b][e]) ready.push({step + 1, b, next});
    }
}

uint32_t blocks_of(const Case &c) {
    return c.op == Op::kBcast ? bcast_blocks(static_cast<BcastAlgo>(c.algo), c.members, c.radix) : c.members;
}

StepMap steps_of(const Case &c, const Calibration &cal, const Topology *t) {
    StepMap m;
    if (c.op == Op::kBcast) {
        const auto a = static_cast<BcastAlgo>(c.algo);
        const uint32_t blocks = blocks_of(c);
        if (blocks == 1) {
            auto node = [&](uint32_t member) { return t ? t->node_of(member) : 0u; };
            add_scheduled({bcast_list(a, c.members, c.root, c.radix)}, {c.bytes},
                          [&](uint32_t s, uint32_t d) { return cal.cores > 0 && node(s) == node(d); }, &m);
            return m;
        }
        std::vector<CommandList> lists;
        std::vector<uint64_t> bytes;
        for (uint32_t b = 0; b < blocks; ++b) {
            lists.push_back(bcast_block_list(a, c.members, c.root, b, c.radix));
            bytes.push_back(block_range(c.bytes, blocks, b).length);
        }
        add_scheduled(lists, bytes, [](uint32_t, uint32_t) { return false; }, &m);
    } else {
        for (uint32_t b = 0; b < c.members; ++b)
            add_by_depth(allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b), c.bytes, &m);
    }
    return m;
}

// How many of `copies` on-node copies of `bytes` run at once on a crowded
// node. No more copies than cores: all of them (a 4-rank binomial's
// second step, two copies, measured as long as one chain step). As many
// as the calibration's crowd_ranks: crowd_parallel, as measured there;
// in between, linearly.
double parallel(const Calibration &cal, double copies, double bytes) {
    const double cores = cal.cores;
    double full = cal.parallel_at(bytes);
    if (full <= 0) full = cores;  // a file without the curve
    if (copies <= cores) return copies;
    if (copies >= cal.crowd_ranks || cal.crowd_ranks <= cal.cores) return full;
    return cores + (full - cores) * (copies - cores) / (cal.crowd_ranks - cores);
}

// crowded[m]: member m's node holds more members than the calibration's
// cores, so its copies also wait for CPUs (Calibration::crowd_wait).
// A crowded node runs crowd_parallel copies of M bytes at once, on
// average, not cores: the ranks that wait share the CPUs with those that
// copy, and large copies share the memory bus. So there m copies of a
// step count as m / parallel(M) (a fraction: it is an average), where
// they would count ceil(m / cores). A copy whose sender waited for the
// data (a forwarder; not a root, which holds it from the start) first
// waits crowd_wait for that sender to run, m / parallel(M) times in turn
// (at least once); a bcast's last receivers wait once more at the end
// (predict()). A chain step is thus comm_crowded, as calibrated.
void cost(Step &s, bool inline_round, const std::vector<bool> &crowded, const Calibration &cal,
          const Topology *t, uint64_t round_bytes) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const Message &m : s.msgs) pairs.emplace_back(m.src, m.dst);
    const bool crowd = std::find(crowded.begin(), crowded.end(), true) != crowded.end();
    const std::vector<uint32_t> col = collisions(t, pairs, crowd ? 0 : cal.cores);
    std::map<uint32_t, uint32_t> on_node;  // crowded node -> its on-node copies this step
    auto node = [&](uint32_t m) { return t ? t->node_of(m) : 0u; };
    if (crowd)
        for (const Message &m : s.msgs)
            if (node(m.src) == node(m.dst) && crowded[m.src]) ++on_node[node(m.src)];
    s.seconds = 0;
    for (size_t i = 0; i < s.msgs.size(); ++i) {
        const Message &m = s.msgs[i];
        double c = col[i], waits = 1;
        if (crowd && node(m.src) == node(m.dst) && crowded[m.src]) {
            const double here = on_node[node(m.src)];
            const double par = parallel(cal, here, static_cast<double>(m.bytes));
            c = std::max(c, here / par);
            waits = std::max(1.0, here / par);
        }
        s.msgs[i].collisions = static_cast<uint32_t>(std::ceil(c - 1e-9));
        const Samples &entry = cal.entry(inline_round);
        // A block right behind another on its pair skips the wait for the
        // receiver's ready signal the first one paid.
        const Samples &copy = m.streamed && !cal.comm_stream.empty() ? cal.comm_stream : entry;
        double secs = copy.at(c * m.bytes);
        if (round_bytes > 0)
            secs = std::max(secs, c * m.bytes / static_cast<double>(round_bytes) *
                                      entry.at(static_cast<double>(round_bytes)));
        if (crowd && crowded[m.src] && m.woken) secs += waits * cal.crowd_wait(static_cast<double>(m.bytes));
        s.seconds = std::max(s.seconds, secs);
    }
}

std::vector<bool> crowded_members(const Case &c, const Calibration &cal, const Topology *t) {
    std::vector<bool> out(c.members, false);
    if (cal.cores == 0 || cal.comm_crowded.empty()) return out;
    std::map<uint32_t, uint32_t> per_node;
    auto node = [&](uint32_t m) { return t ? t->node_of(m) : 0; };  // no topology: one node
    for (uint32_t m = 0; m < c.members; ++m) ++per_node[node(m)];
    for (uint32_t m = 0; m < c.members; ++m) out[m] = per_node[node(m)] > cal.cores;
    return out;
}

}  // namespace

std::string algo_name(const Case &c) {
    return c.op == Op::kBcast ? name_of(static_cast<BcastAlgo>(c.algo), c.radix)
                              : name_of(static_cast<AllgatherAlgo>(c.algo));
}

Prediction predict(const Case &c, const Calibration &cal, const Topology *t) {
    Prediction p;
    if (c.members <= 1) return p;
    const StepMap m = steps_of(c, cal, t);
    for (const auto &[key, load] : m) {
        const auto [step, src, dst] = key;
        if (p.steps.size() < step + 1) p.steps.resize(step + 1);
        p.steps[step].msgs.push_back({src, dst, load.bytes, 1, load.streamed, load.woken});
    }
    const bool multi_block = c.op == Op::kBcast && blocks_of(c) > 1;  // never inline (plan.hpp)
    const bool is_inline = c.bytes > 0 && c.bytes <= c.inline_bytes && !multi_block;
    const std::vector<bool> crowded = crowded_members(c, cal, t);
    for (Step &s : p.steps) cost(s, is_inline, crowded, cal, t, multi_block ? c.bytes : 0);
    // A bcast's last receivers, too, wait to be scheduled before their
    // round is done (a chain over n crowded members: n-1 copies and n-1
    // waits, comm_crowded a step as calibrated). An allgather's steps
    // count a wait for each of theirs.
    if (c.op == Op::kBcast && !p.steps.empty()) {
        Step &last = p.steps.back();
        uint64_t largest = 0;
        bool crowd_end = false;
        for (const Message &m : last.msgs) {
            largest = std::max(largest, m.bytes);
            crowd_end = crowd_end || crowded[m.dst];
        }
        if (crowd_end) last.seconds += cal.crowd_wait(static_cast<double>(largest));
    }
    for (const Step &s : p.steps) p.comm_s += s.seconds;
    // Local copies on the longest path: what a receiver copies out of the
    // inline slots or its buffer, and what a sender copies in.
    const double blocks_in = c.op == Op::kBcast ? 1.0 : static_cast<double>(c.members - 1);
    const double one = cal.memcpy.at(static_cast<double>(c.bytes));
    if (is_inline) p.memcpy_s += blocks_in * one;
    if (c.buffered) {
        p.memcpy_s += one;                                      // in
        if (c.op == Op::kAllgather) p.memcpy_s += one;          // own block to recvbuf
        if (!is_inline) p.memcpy_s += blocks_in * one;          // out (inline: already counted)
    }
    return p;
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
            if (!allgather_applies(a, c.members).empty()) continue;
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            out.push_back(k);
        }
    }
    return out;
}

size_t pick_fastest(const std::vector<double> &seconds) {
    size_t pick = 0;
    for (size_t i = 1; i < seconds.size(); ++i)
        if (seconds[i] < seconds[pick] * (1 - kTieMargin)) pick = i;
    return pick;
}

Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds) {
    const std::vector<Case> all = candidates(c);
    std::vector<double> secs;
    for (const Case &k : all) secs.push_back(predict(k, cal, t).total());
    const size_t i = pick_fastest(secs);
    if (seconds) *seconds = secs[i];
    return all[i];
}

}  // namespace acpx::collectives::model
