// Steps from command lists, collisions per step, time per step.
#include "predict.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace acpx::collectives::model {
namespace {

// (depth, src, dst) -> blocks, over every block's list.
using StepMap = std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t>;

void add_list(const CommandList &l, StepMap *m, std::vector<uint32_t> *depth) {
    depth->assign(l.size(), 0);
    for (size_t e = 0; e < l.size(); ++e) {
        (*depth)[e] = l[e].dep == kNoDep ? 0 : (*depth)[l[e].dep] + 1;
        ++(*m)[{(*depth)[e], l[e].src, l[e].dst}];
    }
}

StepMap steps_of(const Case &c) {
    StepMap m;
    std::vector<uint32_t> depth;
    if (c.op == Op::kBcast) {
        add_list(bcast_list(static_cast<BcastAlgo>(c.algo), c.members, c.root, c.radix), &m, &depth);
    } else {
        for (uint32_t b = 0; b < c.members; ++b)
            add_list(allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b), &m, &depth);
    }
    return m;
}

void cost(Step &s, const Calibration &cal, const Topology *t) {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (const Message &m : s.msgs) pairs.emplace_back(m.src, m.dst);
    const std::vector<uint32_t> col = collisions(t, pairs, cal.cores);
    s.seconds = 0;
    for (size_t i = 0; i < s.msgs.size(); ++i) {
        s.msgs[i].collisions = col[i];
        s.seconds = std::max(s.seconds, cal.comm.at(static_cast<double>(col[i]) * s.msgs[i].bytes));
    }
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
    for (const auto &[key, blocks] : m) {
        const auto [depth, src, dst] = key;
        if (p.steps.size() < depth + 1) p.steps.resize(depth + 1);
        p.steps[depth].msgs.push_back({src, dst, blocks * c.bytes, 1});
    }
    for (Step &s : p.steps) {
        cost(s, cal, t);
        p.comm_s += s.seconds;
    }
    // Local copies on the longest path: what a receiver copies out of the
    // inline slots or its buffer, and what a sender copies in.
    const double blocks_in = c.op == Op::kBcast ? 1.0 : static_cast<double>(c.members - 1);
    const double one = cal.memcpy.at(static_cast<double>(c.bytes));
    const bool is_inline = c.bytes > 0 && c.bytes <= c.inline_bytes;
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
            Case k = c;
            k.algo = static_cast<uint8_t>(a);
            k.radix = a == BcastAlgo::kKnomial ? kDefaultRadix : 2;
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

Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds) {
    const std::vector<Case> all = candidates(c);
    Case pick = all.front();
    double fastest = -1;
    for (const Case &k : all) {
        const double s = predict(k, cal, t).total();
        if (fastest < 0 || s < fastest * (1 - 1e-6)) {  // a real difference, not rounding
            fastest = s;
            pick = k;
        }
    }
    if (seconds) *seconds = fastest;
    return pick;
}

}  // namespace acpx::collectives::model
