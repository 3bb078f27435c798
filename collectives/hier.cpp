// Hierarchical lists: a tree among nodes, then a tree on each node.
#include <algorithm>
#include <unordered_map>

#include "algorithms.hpp"

namespace acpx::collectives {

CommandList hier_bcast_list(BcastAlgo algo, unsigned radix, std::span<const uint32_t> node_of, uint32_t origin) {
    const auto n = static_cast<uint32_t>(node_of.size());
    if (n <= 1) return {};
    // Each node's members, the origin's node first, the others in order of
    // their first member; each list starts with the node's leader: the
    // origin on its node, the member listed first on the others.
    std::unordered_map<uint32_t, uint32_t> slot;  // node id -> index in on_node
    std::vector<std::vector<uint32_t>> on_node{{origin}};
    slot.emplace(node_of[origin], 0);
    for (uint32_t m = 0; m < n; ++m) {
        if (m == origin) continue;
        auto [it, fresh] = slot.emplace(node_of[m], static_cast<uint32_t>(on_node.size()));
        if (fresh) on_node.emplace_back();
        on_node[it->second].push_back(m);
    }
    const auto nodes = static_cast<uint32_t>(on_node.size());
    CommandList out;
    out.reserve(n - 1);
    // Among the leaders (index = node): into_leader[j] is the entry that
    // carries the bytes into node j.
    std::vector<uint32_t> into_leader(nodes, kNoDep);
    for (const Command &c : bcast_list(algo, nodes, 0, radix)) {
        into_leader[c.dst] = static_cast<uint32_t>(out.size());
        out.push_back({on_node[c.dst][0], on_node[c.src][0], c.dep});
    }
    // On each node, from its leader (index 0 of the node's list).
    for (uint32_t j = 0; j < nodes; ++j) {
        const std::vector<uint32_t> &here = on_node[j];
        const auto first = static_cast<uint32_t>(out.size());
        for (const Command &c : bcast_list(algo, static_cast<uint32_t>(here.size()), 0, radix))
            out.push_back({here[c.dst], here[c.src], c.dep == kNoDep ? into_leader[j] : first + c.dep});
    }
    return out;
}

CommandList hier_allgather_block_list(std::span<const uint32_t> node_of, uint32_t owner) {
    return hier_bcast_list(BcastAlgo::kBinaryTree, 2, node_of, owner);
}

bool hier_offered(AllgatherAlgo algo) { return algo == AllgatherAlgo::kBlockTree; }

bool hier_differs(std::span<const uint32_t> node_of) {
    std::unordered_map<uint32_t, uint32_t> members;
    for (const uint32_t id : node_of) ++members[id];
    return members.size() > 1 && members.size() < node_of.size();
}

}  // namespace acpx::collectives
