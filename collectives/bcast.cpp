// Broadcast trees. Members are renumbered relative to the root
// (v = (member - root) mod n) so every tree is built rooted at 0.
#include <algorithm>
#include <iterator>
#include <string>

#include "algorithms.hpp"

namespace acpx::collectives {
namespace {

uint32_t absolute(uint64_t v, uint32_t root, uint32_t n) { return static_cast<uint32_t>((v + root) % n); }

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
        out.push_back(
            {absolute(to, root, n), absolute(to - 1, root, n), to == 1 ? kNoDep : static_cast<uint32_t>(to - 2)});
    return out;
}

// Scatter + ring over the n-1 non-roots, block b: the root sends it to
// member v = b+1, which starts it around the ring v+1, ..., n-1, 1, ...,
// v-1. In ring step s member v forwards block v-s: one block in and one
// out a step, n-2 steps.
CommandList scatter_ring(uint32_t n, uint32_t root, uint32_t block) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    uint64_t from = uint64_t{block} + 1;
    out.push_back({absolute(from, root, n), root, kNoDep});
    for (uint32_t k = 1; k + 1 < n; ++k) {
        const uint64_t to = from + 1 < n ? from + 1 : 1;
        out.push_back({absolute(to, root, n), absolute(from, root, n), k - 1});
        from = to;
    }
    return out;
}

// The table's list and block functions, by the parameter each takes.
CommandList binomial_block(uint32_t n, uint32_t root, uint32_t, unsigned) { return knomial(n, root, 2); }
CommandList binary_block(uint32_t n, uint32_t root, uint32_t, unsigned) { return binary_tree(n, root); }
CommandList knomial_block(uint32_t n, uint32_t root, uint32_t, unsigned radix) {
    return knomial(n, root, std::clamp(radix, 2u, kMaxRadix));
}
CommandList chain_block(uint32_t n, uint32_t root, uint32_t, unsigned) { return chain(n, root); }
CommandList scatter_ring_block(uint32_t n, uint32_t root, uint32_t block, unsigned) {
    return n <= 1 ? CommandList{} : scatter_ring(n, root, block);
}
uint32_t one_block(uint32_t, unsigned) { return 1; }
uint32_t segments(uint32_t, unsigned radix) { return std::clamp(radix, 2u, kMaxSegments); }
uint32_t non_roots(uint32_t n, unsigned) { return n - 1; }

// In enum order (info_of indexes it).
constexpr BcastInfo kBcastTable[] = {
    {BcastAlgo::kBinomial, "binomial", std::nullopt, 0, one_block, binomial_block},
    {BcastAlgo::kBinaryTree, "binary", std::nullopt, 0, one_block, binary_block},
    {BcastAlgo::kKnomial, "knomial", AlgoParam{kDefaultRadix, 2, kMaxRadix}, 0, one_block, knomial_block},
    {BcastAlgo::kChain, "chain", std::nullopt, 0, one_block, chain_block},
    // Each segment down the chain: block s's list is the chain's.
    {BcastAlgo::kPipeline, "pipeline", AlgoParam{kDefaultSegments, 2, kMaxSegments}, 0, segments, chain_block},
    {BcastAlgo::kScatterRing, "scatter_ring", std::nullopt, kMaxScatterRingMembers, non_roots, scatter_ring_block},
};

}  // namespace

std::span<const BcastInfo> bcast_table() { return kBcastTable; }

const BcastInfo &info_of(BcastAlgo a) {
    static_assert(std::size(kBcastTable) == kBcastAlgoCount, "a row per BcastAlgo");
    return kBcastTable[static_cast<size_t>(a)];
}

CommandList bcast_list(BcastAlgo algo, uint32_t members, uint32_t root, unsigned radix) {
    return bcast_block_list(algo, members, root, 0, radix);
}

CommandList bcast_block_list(BcastAlgo algo, uint32_t members, uint32_t root, uint32_t block, unsigned radix) {
    return info_of(algo).block_list(members, root, block, radix);
}

uint32_t bcast_blocks(BcastAlgo algo, uint32_t members, unsigned radix) {
    return members <= 1 ? 1 : info_of(algo).blocks(members, radix);
}

bool hier_offered(BcastAlgo algo) { return info_of(algo).blocks == one_block; }

std::string bcast_applies(BcastAlgo algo, uint32_t members) {
    const BcastInfo &i = info_of(algo);
    if (i.max_members && members > i.max_members)
        return std::string(i.name) + " is limited to " + std::to_string(i.max_members) + " members (it has " +
               "members^2 entries), not " + std::to_string(members);
    return "";
}

ByteRange block_range(uint64_t bytes, uint32_t blocks, uint32_t block) {
    if (blocks <= 1) return {0, bytes};
    const uint64_t chunk = (bytes + blocks - 1) / blocks;
    const uint64_t each = (chunk + 63) / 64 * 64;
    const uint64_t off = std::min<uint64_t>(bytes, uint64_t{block} * each);
    return {off, std::min(each, bytes - off)};
}

}  // namespace acpx::collectives
