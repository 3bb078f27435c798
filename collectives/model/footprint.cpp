// Copies slow down once what their core touches in a round outgrows the
// caches (footprint.hpp).
#include "footprint.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace acpx::collectives::model {
namespace {

// The cores of c's members on their nodes, by which footprint_factors
// counts the bytes touched.
struct CoreMap {
    std::vector<uint64_t> core;   // node << 32 | core on the node
    std::vector<uint64_t> dense;  // cores numbered 0, 1, ...
    size_t cores = 0;
    uint32_t most = 0;  // the most members on one node
};

CoreMap core_map(const Case &c, const Calibration &cal, const Topology *t) {
    CoreMap out;
    std::map<uint32_t, uint32_t> on_node;  // node -> members placed so far
    out.core.resize(c.members);
    for (uint32_t m = 0; m < c.members; ++m) {
        const uint32_t node = t ? t->node_of(m) : 0;
        const uint32_t local = on_node[node]++;
        out.core[m] = (uint64_t{node} << 32) | (cal.cores > 0 ? local % cal.cores : local);
    }
    for (const auto &[node, n] : on_node) out.most = std::max(out.most, n);
    std::vector<uint64_t> ids(out.core);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    out.dense.resize(c.members);
    for (uint32_t m = 0; m < c.members; ++m)
        out.dense[m] = static_cast<uint64_t>(std::lower_bound(ids.begin(), ids.end(), out.core[m]) - ids.begin());
    out.cores = ids.size();
    return out;
}

// What footprint_factors divides by (0: no factor): the slowest
// comm_footprint sample up to the comm sample's span (the samples are
// noisy: the VM's 4 MiB span read 65 us, its 8 MiB 61).
double footprint_base(const Case &c, const Calibration &cal, double *sampled) {
    if (cal.comm_footprint.empty() || cal.comm.empty() || c.members < 2) return 0;
    *sampled = 2 * cal.comm.points().back().first;
    double base = cal.comm_footprint.clamped(*sampled);
    for (const auto &[span, secs] : cal.comm_footprint.points())
        if (span <= *sampled) base = std::max(base, secs);
    return base > 0 ? base : 0;
}

// The bytes each core (CoreMap::dense) touches, block by block: per
// block each (core, member) once, where the member is a sender on that
// core or the receiver, on its node, of one of its copies. A block's
// keys are few and sort in cache, where one sort of every block's
// (1,024 members: 2 million) took a fifth of create's modelling.
std::vector<double> core_bytes(const CoreMap &m, const std::vector<BlockList> &lists) {
    std::vector<double> bytes(m.cores, 0.0);
    std::vector<uint64_t> keys;  // core << 32 | member
    for (const BlockList &l : lists) {
        keys.clear();
        for (const Command &x : l.list)
            for (uint32_t member : {x.src, x.dst})  // a copy to another node writes none of this node's memory
                if (m.core[member] >> 32 == m.core[x.src] >> 32) keys.push_back(m.dense[x.src] << 32 | member);
        std::sort(keys.begin(), keys.end());
        for (size_t i = 0; i < keys.size(); ++i)
            if (i == 0 || keys[i] != keys[i - 1]) bytes[keys[i] >> 32] += static_cast<double>(l.bytes);
    }
    return bytes;
}

// core_bytes of a turned allgather (Turn), from the lists of blocks
// 0..period-1 alone (bases): the others are their images. Every member
// receives a block once (these algorithms), so a
// block's keys repeat only where a member sends several copies, or
// receives from a sender on its own core and sends too. So a member
// counts a block for each base list in which one of its class sends,
// and a block for each base entry of its class whose distance
// reaches a member of its node, unless that one sends too from the same
// core. Linear in the members times the distances of their class (a
// ring's one, Bruck's log P), where walking every block was quadratic
// (16,384 members: 3 s a candidate).
std::vector<double> turned_core_bytes(const Case &c, const CoreMap &m, const std::vector<BlockList> &bases, Turn turn) {
    const uint32_t n = c.members;
    const uint32_t g = turn.period;
    const auto b = static_cast<double>(c.bytes);
    std::vector<double> sends_in(g, 0.0);  // per class: its senders, summed over the base lists
    // (class, distance) -> base entries whose receiver does not / does forward
    std::map<std::pair<uint32_t, uint32_t>, std::pair<double, double>> reach;
    for (const BlockList &l : bases) {
        const CommandList &base = l.list;
        std::vector<uint8_t> sends(n, 0);
        for (const Command &x : base)
            if (!std::exchange(sends[x.src], 1)) sends_in[x.src % g] += 1;
        for (const Command &x : base) {
            auto &[leaf, fwd] = reach[{x.src % g, turn.distance(x.src, x.dst, n)}];
            (sends[x.dst] ? fwd : leaf) += 1;
        }
    }
    std::vector<double> bytes(m.cores, 0.0);
    for (uint32_t s = 0; s < n; ++s) {
        bytes[m.dense[s]] += b * sends_in[s % g];
        for (auto it = reach.lower_bound({s % g, 0}); it != reach.end() && it->first.first == s % g; ++it) {
            const uint32_t d = turn.moved(s, it->first.second, n);
            if (m.core[d] >> 32 != m.core[s] >> 32) continue;  // a copy to another node: none of this node's memory
            const auto [leaf, fwd] = it->second;
            bytes[m.dense[s]] += b * (leaf + (m.dense[d] == m.dense[s] ? 0 : fwd));
        }
    }
    return bytes;
}

}  // namespace

std::vector<double> footprint_factors(const Case &c, const Calibration &cal, const Topology *t,
                                      const std::vector<BlockList> &lists, Turn turn) {
    std::vector<double> out(c.members, 1.0);
    double sampled = 0;
    const double base = footprint_base(c, cal, &sampled);
    if (base == 0) return out;
    const CoreMap m = core_map(c, cal, t);
    // A core touches at most its node's arrays: no list to walk (create
    // walks these for every candidate) while those fit the base.
    const double array = static_cast<double>(c.bytes) * (c.op == Op::kBcast ? 1 : c.members);
    if (m.most * array <= sampled) return out;
    const std::vector<double> bytes = turn.period > 0 ? turned_core_bytes(c, m, lists, turn) : core_bytes(m, lists);
    for (uint32_t i = 0; i < c.members; ++i)
        out[i] = std::max(1.0, cal.comm_footprint.clamped(bytes[m.dense[i]]) / base);
    return out;
}

}  // namespace acpx::collectives::model
