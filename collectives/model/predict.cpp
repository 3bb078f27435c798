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

// (step, src, dst) -> bytes over every block's list, and whether the pair
// carried a block in the step before too (a stream of blocks).
struct PairLoad {
    uint64_t bytes = 0;
    bool streamed = false;
};
using StepMap = std::map<std::tuple<uint32_t, uint32_t, uint32_t>, PairLoad>;

// The trees and the allgathers: an entry's step is its depth.
void add_by_depth(const CommandList &l, uint64_t bytes, StepMap *m) {
    std::vector<uint32_t> depth(l.size(), 0);
    for (size_t e = 0; e < l.size(); ++e) {
        depth[e] = l[e].dep == kNoDep ? 0 : depth[l[e].dep] + 1;
        (*m)[{depth[e], l[e].src, l[e].dst}].bytes += bytes;
    }
}

// The multi-block bcasts: a pair of members carries one block a step (the
// pipeline's segments leave the root one after the other). Entries are
// placed in the order their data can arrive, earlier blocks first, each
// in the first step after its dependency's in which its pair is free --
// how the delegated engine runs them, forwarding what has arrived.
void add_pipelined(const std::vector<CommandList> &lists, const std::vector<uint64_t> &bytes, StepMap *m) {
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
    std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> busy;  // pair -> steps taken
    while (!ready.empty()) {
        const auto [earliest, b, e] = ready.top();
        ready.pop();
        const Command &c = lists[b][e];
        std::set<uint32_t> &taken = busy[{c.src, c.dst}];
        uint32_t step = earliest;
        while (taken.count(step)) ++step;
        taken.insert(step);
        PairLoad &load = (*m)[{step, c.src, c.dst}];
        load.bytes += bytes[b];
        // Entries leave the queue by earliest step, so none placed later
        // can take step - 1 of this pair: the flag is final.
        load.streamed = step > 0 && taken.count(step - 1);
        for (uint32_t next : after[b][e]) ready.push({step + 1, b, next});
    }
}

uint32_t blocks_of(const Case &c) {
    return c.op == Op::kBcast ? bcast_blocks(static_cast<BcastAlgo>(c.algo), c.members, c.radix) : c.members;
}

StepMap steps_of(const Case &c) {
    StepMap m;
    if (c.op == Op::kBcast) {
        const auto a = static_cast<BcastAlgo>(c.algo);
        const uint32_t blocks = blocks_of(c);
        if (blocks == 1) {
            add_by_depth(bcast_list(a, c.members, c.root, c.radix), c.bytes, &m);
            return m;
        }
        std::vector<CommandList> lists;
        std::vector<uint64_t> bytes;
        for (uint32_t b = 0; b < blocks; ++b) {
            lists.push_back(bcast_block_list(a, c.members, c.root, b, c.radix));
            bytes.push_back(block_range(c.bytes, blocks, b).length);
        }
        add_pipelined(lists, bytes, &m);
    } else {
        for (uint32_t b = 0; b < c.members; ++b)
            add_by_depth(allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b), c.bytes, &m);
    }
    return m;
}

// crowded[m]: member m's node holds more members than the calibration's
// cores, so its copies also wait for CPUs (Calibration::crowd_wait).
// A crowded node runs crowd_parallel copies of M bytes at once, on
// average, not cores: the ranks that wait share the CPUs with those that
// copy, and large copies share the memory bus. So there m copies of a
// step count as m / crowd_parallel(M) (a fraction: it is an average),
// where they would count ceil(m / cores); and its receivers wait
// crowd_wait to run, one after the other as the copies go, m /
// crowd_parallel(M) waits (at least one). For one copy that is
// comm_crowded, as calibrated; a k-nomial root's k-1 copies wake k-1
// receivers, a chain's one.
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
            double par = cal.parallel_at(static_cast<double>(m.bytes));
            if (par <= 0) par = cal.cores;  // a file without the curve
            c = std::max(c, on_node[node(m.src)] / par);
            waits = std::max(1.0, on_node[node(m.src)] / par);
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
        if (crowd && crowded[m.src]) secs += waits * cal.crowd_wait(static_cast<double>(m.bytes));
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
    const StepMap m = steps_of(c);
    for (const auto &[key, load] : m) {
        const auto [step, src, dst] = key;
        if (p.steps.size() < step + 1) p.steps.resize(step + 1);
        p.steps[step].msgs.push_back({src, dst, load.bytes, 1, load.streamed});
    }
    const bool multi_block = c.op == Op::kBcast && blocks_of(c) > 1;  // never inline (plan.hpp)
    const bool is_inline = c.bytes > 0 && c.bytes <= c.inline_bytes && !multi_block;
    const std::vector<bool> crowded = crowded_members(c, cal, t);
    for (Step &s : p.steps) {
        cost(s, is_inline, crowded, cal, t, multi_block ? c.bytes : 0);
        p.comm_s += s.seconds;
    }
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
