// Broadcast trees. Members are renumbered relative to the root
// (v = (member - root) mod n) so every tree is built rooted at 0.
#include "algorithms.hpp"

namespace acpx::collectives {
namespace {

uint32_t absolute(uint32_t v, uint32_t root, uint32_t n) {
    return static_cast<uint32_t>((static_cast<uint64_t>(v) + root) % n);
}

// Binomial: in step k every v < 2^k that has the data sends to v + 2^k.
// into[v] remembers which entry delivered to v, for the dependencies.
CommandList binomial(uint32_t n, uint32_t root) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    std::vector<uint32_t> into(n, kNoDep);
    for (uint64_t span = 1; span < n; span <<= 1)
        for (uint64_t v = 0; v < span && v + span < n; ++v) {
            const auto to = static_cast<uint32_t>(v + span);
            into[to] = static_cast<uint32_t>(out.size());
            out.push_back({absolute(to, root, n), absolute(static_cast<uint32_t>(v), root, n),
                           into[v]});
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
        out.push_back({absolute(static_cast<uint32_t>(to), root, n),
                       absolute(static_cast<uint32_t>(parent), root, n),
                       parent == 0 ? kNoDep : static_cast<uint32_t>(parent - 1)});
    }
    return out;
}

}  // namespace

CommandList bcast_list(BcastAlgo algo, uint32_t members, uint32_t root) {
    switch (algo) {
        case BcastAlgo::kBinomial: return binomial(members, root);
        case BcastAlgo::kBinaryTree: return binary_tree(members, root);
    }
    return {};
}

}  // namespace acpx::collectives
