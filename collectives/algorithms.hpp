// Collective algorithms as pure functions: (members, root or block owner)
// -> command list. No runtime, no transport: a list for 10^6 members is
// built and checked in one process.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "command_list.hpp"

namespace acpx::collectives {

enum class BcastAlgo : uint8_t {
    kBinomial,    // step k: every member that has the data sends it 2^k further
    kBinaryTree,  // member i (relative to the root) sends to 2i+1 and 2i+2 (seed 002 Fig. 5)
};

enum class AllgatherAlgo : uint8_t {
    kBlockTree,  // each block goes down its own binary tree rooted at its owner (Fig. 6)
    kRing,       // each block travels once around the ring, owner+1, owner+2, ...
};

// Entries that carry the root's bytes to every member. Entries are in
// steps (all entries of a step are independent), parents before children.
CommandList bcast_list(BcastAlgo algo, uint32_t members, uint32_t root);

// Entries that carry block `owner` (held by member `owner`) to every
// member; an allgather is the union of the lists of all blocks.
CommandList allgather_block_list(AllgatherAlgo algo, uint32_t members, uint32_t owner);

// Names as used by ACP_COL_BCAST_ALGO / ACP_COL_ALLGATHER_ALGO and printed by tools.
const char *name_of(BcastAlgo a);
const char *name_of(AllgatherAlgo a);
std::optional<BcastAlgo> parse_bcast_algo(std::string_view s);
std::optional<AllgatherAlgo> parse_allgather_algo(std::string_view s);

}  // namespace acpx::collectives
