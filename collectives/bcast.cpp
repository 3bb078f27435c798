// Broadcast trees. Members are renumbered relative to the root
// (v = (member - root) mod n) so every tree is built rooted at 0.
#include "algorithms.hpp"

namespace acpx::collectives {
namespace {

uint32_t absolute(uint64_t v, uint32_t root, uint32_t n) {
    return static_cast<uint32_t>((v + root) % n);
}

// K-nomial: in the step of span s (1, k, k^2, ...) every v < s has the data
// and sends it to v + j*s, j = 1..k-1. Binomial is k = 2. into[v]
// remembers which entry delivered to v, for the dependencies.
CommandList knomial(uint32_t n, uint32_t root, unsigned k) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    std::vector<uint32_t> into(n, kNoDep);
    for (uint64_t span = 1; span < n; span *= k)
        for (uint64_t v = 0; v < span; ++v)
            for (uint64_t j = 1; j < k && v + j * span < n; ++j) {
                const uint64_t to = v + j * span;
                into[to] = static_cast<uint32_t>(out.size());
                out.push_back({absolute(to, root, n), absolute(v, root, n), into[v]});
            }
    return out;
}

// Binary tree in breadth-first order: the entry into v is entry v-1, so the
// dependency of the entries out of v is v-1 (none for the root).
CommandList binary_tree(uint32_t n, uint32_t root) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    for (uint64_t to = 1; to < n; ++to) {
        const uint64_t parent = (to - 1) / 2;
        out.push_back({absolute(to, root, n), absolute(parent, root, n),
                       parent == 0 ? kNoDep : static_cast<uint32_t>(parent - 1)});
    }
    return out;
}

// Chain: entry v-1 carries the data from v-1 to v.
CommandList chain(uint32_t n, uint32_t root) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    for (uint64_t to = 1; to < n; ++to)
        out.push_back({absolute(to, root, n), absolute(to - 1, root, n),
                       to == 1 ? kNoDep : static_cast<uint32_t>(to - 2)});
    return out;
}

}  // namespace

CommandList bcast_list(BcastAlgo algo, uint32_t members, uint32_t root, unsigned radix) {
    switch (algo) {
        case BcastAlgo::kBinomial: return knomial(members, root, 2);
        case BcastAlgo::kBinaryTree: return binary_tree(members, root);
        case BcastAlgo::kKnomial:
            return knomial(members, root, radix < 2 ? 2 : radix > kMaxRadix ? kMaxRadix : radix);
        case BcastAlgo::kChain: return chain(members, root);
    }
    return {};
}

}  // namespace acpx::collectives
