// A case's round as command lists (one per block), and what follows from
// its shape: how many blocks, whether it goes through the inline slots,
// the bytes of one entry. The step model (predict.cpp and footprint.cpp)
// starts from these.
#pragma once

#include <cstdint>
#include <vector>

#include "footprint.hpp"
#include "predict.hpp"

namespace acpx::collectives::model {

// The blocks of c's round: a bcast's by its algorithm, an allgather's one
// a member.
uint32_t blocks_of(const Case &c);

// How c's block lists follow from a few (allgather_turn): its steps then
// come from those lists (turned_steps), not from every block's.
Turn turn_of(const Case &c);

// A bcast in several blocks (pipeline, scatter_ring): never inline (plan.hpp).
bool multi_block(const Case &c);

// Whether c's round goes through the inline slots.
bool inline_round(const Case &c);

// The bytes of one entry of c: a block of a multi-block bcast (the
// first, the largest), else the round's (allgather: a block).
uint64_t entry_bytes_of(const Case &c);

// c's round as one command list per block, with each block's bytes: a
// single-block bcast one list of the round's bytes. only > 0: an
// allgather's blocks 0..only-1 (a turned allgather's, turn_of).
std::vector<BlockList> block_lists(const Case &c, uint32_t only = 0);
// The list of block b of c's round (hierarchical over c.nodes if c.hier).
CommandList block_list(const Case &c, uint32_t b);

}  // namespace acpx::collectives::model
