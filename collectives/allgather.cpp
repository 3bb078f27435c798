// Allgather as one list per block. Every list moves its owner's block to
// all other members; the lists of different blocks share no dependency,
// so their entries may run in any interleaving (seed 002 Fig. 6).
#include "algorithms.hpp"

namespace acpx::collectives {
namespace {

// Ring: block `owner` goes owner -> owner+1 -> ... -> owner-1. All blocks
// together are the classic ring: in step s, member i forwards block i-s.
CommandList ring(uint32_t n, uint32_t owner) {
    CommandList out;
    out.reserve(n ? n - 1 : 0);
    for (uint64_t step = 1; step < n; ++step)
        out.push_back({static_cast<uint32_t>((owner + step) % n),
                       static_cast<uint32_t>((owner + step - 1) % n),
                       step == 1 ? kNoDep : static_cast<uint32_t>(step - 2)});
    return out;
}

}  // namespace

CommandList allgather_block_list(AllgatherAlgo algo, uint32_t members, uint32_t owner) {
    switch (algo) {
        case AllgatherAlgo::kBlockTree: return bcast_list(BcastAlgo::kBinaryTree, members, owner);
        case AllgatherAlgo::kRing: return ring(members, owner);
    }
    return {};
}

}  // namespace acpx::collectives
