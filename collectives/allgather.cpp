// Allgather as one list per block. Every list moves its owner's block to
// all other members; the lists of different blocks share no dependency,
// so their entries may run in any interleaving (seed 002 Fig. 6). The
// classic algorithms send several blocks in one message; here each is
// the path one block takes through that algorithm, and the blocks of a
// message land at their final places in the array, so Bruck needs no
// final rotation.
#include <iterator>
#include <string>

#include "algorithms.hpp"

namespace acpx::collectives {
namespace {

uint32_t mod(int64_t v, uint32_t n) {
    const int64_t r = v % static_cast<int64_t>(n);
    return static_cast<uint32_t>(r < 0 ? r + n : r);
}

// Builds a list while remembering which entry delivered to each member.
struct Builder {
    CommandList out;
    std::vector<uint32_t> into;
    uint32_t origin;
    Builder(uint32_t n, uint32_t o) : into(n, kNoDep), origin(o) { out.reserve(n ? n - 1 : 0); }
    void send(uint32_t src, uint32_t dst) {
        const uint32_t dep = src == origin ? kNoDep : into[src];
        into[dst] = static_cast<uint32_t>(out.size());
        out.push_back({dst, src, dep});
    }
};

// Ring: block `owner` goes owner -> owner+1 -> ... -> owner-1. All blocks
// together are the classic ring: in step s, member i forwards block i-s.
CommandList ring(uint32_t n, uint32_t owner) {
    Builder b(n, owner);
    for (uint64_t step = 1; step < n; ++step) b.send(mod(int64_t{owner} + step - 1, n), mod(int64_t{owner} + step, n));
    return std::move(b.out);
}

// Bruck: after step k member i holds blocks i .. i + 2^(k+1) - 1, so block
// `owner` is at owner - d for d < 2^(k+1); in step k the holder at distance
// d < 2^k sends it to distance d + 2^k, while that is < n.
CommandList bruck(uint32_t n, uint32_t owner) {
    Builder b(n, owner);
    for (uint64_t span = 1; span < n; span <<= 1)
        for (uint64_t d = 0; d < span && d + span < n; ++d)
            b.send(mod(int64_t{owner} - static_cast<int64_t>(d), n),
                   mod(int64_t{owner} - static_cast<int64_t>(d + span), n));
    return std::move(b.out);
}

// Recursive doubling over the largest power of two p2 <= n: member r >= p2
// first hands its block to r - p2; the butterfly spreads every block over
// 0..p2-1 (step k: holder h sends to h xor 2^k); last, r < n - p2 passes
// everything on to r + p2.
CommandList recursive_doubling(uint32_t n, uint32_t owner) {
    Builder b(n, owner);
    uint32_t p2 = 1;
    while (uint64_t{p2} * 2 <= n) p2 *= 2;
    uint32_t q = owner;
    if (owner >= p2) {
        q = owner - p2;
        b.send(owner, q);
    }
    for (uint32_t span = 1; span < p2; span <<= 1)
        for (uint32_t x = 0; x < span; ++x) b.send(q ^ x, q ^ x ^ span);
    for (uint32_t r = 0; r + p2 < n; ++r)
        if (r + p2 != owner) b.send(r, r + p2);
    return std::move(b.out);
}

// Neighbor exchange (even n): step 0, pairs (2m, 2m+1) swap blocks; then
// pairs (2m+1, 2m+2) and (2m, 2m+1) alternate, each member passing on the
// blocks it got in the step before. One block travels both ways at once:
// the lower of its pair towards lower members, the upper towards higher.
CommandList neighbor_exchange(uint32_t n, uint32_t owner) {
    Builder b(n, owner);
    const int64_t lo = owner & ~1u, hi = lo + 1;
    b.send(owner, owner ^ 1u);
    for (int64_t s = 1; s < n / 2; ++s) {
        b.send(mod(lo - s + 1, n), mod(lo - s, n));
        b.send(mod(hi + s - 1, n), mod(hi + s, n));
    }
    return std::move(b.out);
}

// The table's turns, by algorithm.
AllgatherTurn turned_by_one(uint32_t) { return {1, false}; }
AllgatherTurn turned_by_two_if_even(uint32_t n) { return {n % 2 == 0 ? 2u : 0u, false}; }
AllgatherTurn turned_by_xor_if_power_of_two(uint32_t n) { return {(n & (n - 1)) == 0 ? 1u : 0u, true}; }
CommandList block_tree(uint32_t n, uint32_t owner) { return bcast_list(BcastAlgo::kBinaryTree, n, owner); }

// In enum order (info_of indexes it).
constexpr AllgatherInfo kAllgatherTable[] = {
    {AllgatherAlgo::kBlockTree, "tree", false, turned_by_one, block_tree},
    {AllgatherAlgo::kRing, "ring", false, turned_by_one, ring},
    {AllgatherAlgo::kBruck, "bruck", false, turned_by_one, bruck},
    {AllgatherAlgo::kRecursiveDoubling, "recdoubling", false, turned_by_xor_if_power_of_two, recursive_doubling},
    {AllgatherAlgo::kNeighborExchange, "neighbor", true, turned_by_two_if_even, neighbor_exchange},
};

}  // namespace

std::span<const AllgatherInfo> allgather_table() { return kAllgatherTable; }

const AllgatherInfo &info_of(AllgatherAlgo a) {
    static_assert(std::size(kAllgatherTable) == kAllgatherAlgoCount, "a row per AllgatherAlgo");
    return kAllgatherTable[static_cast<size_t>(a)];
}

std::string allgather_applies(AllgatherAlgo algo, uint32_t members) {
    if (info_of(algo).even_members_only && members % 2 != 0)
        return std::string(info_of(algo).name) + " needs an even number of members, not " + std::to_string(members);
    return "";
}

AllgatherTurn allgather_turn(AllgatherAlgo algo, uint32_t members) { return info_of(algo).turn(members); }

CommandList allgather_block_list(AllgatherAlgo algo, uint32_t members, uint32_t owner) {
    return members <= 1 ? CommandList{} : info_of(algo).block_list(members, owner);
}

}  // namespace acpx::collectives
