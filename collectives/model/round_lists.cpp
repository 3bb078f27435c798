// A case's round as command lists, and what follows from its shape.
#include "round_lists.hpp"

namespace acpx::collectives::model {

uint32_t blocks_of(const Case &c) {
    return c.op == Op::kBcast ? bcast_blocks(static_cast<BcastAlgo>(c.algo), c.members, c.radix) : c.members;
}

Turn turn_of(const Case &c) {
    // A hierarchical tree's lists follow the nodes, not a turn.
    return c.op == Op::kAllgather && !c.hier ? allgather_turn(static_cast<AllgatherAlgo>(c.algo), c.members) : Turn{};
}

CommandList block_list(const Case &c, uint32_t b) {
    if (c.hier && c.nodes && c.nodes->size() == c.members)
        return c.op == Op::kBcast ? hier_bcast_list(static_cast<BcastAlgo>(c.algo), c.radix, *c.nodes, c.root)
                                  : hier_allgather_block_list(*c.nodes, b);
    return c.op == Op::kBcast ? bcast_block_list(static_cast<BcastAlgo>(c.algo), c.members, c.root, b, c.radix)
                              : allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b);
}

bool multi_block(const Case &c) { return c.op == Op::kBcast && blocks_of(c) > 1; }

bool inline_round(const Case &c) { return c.bytes > 0 && c.bytes <= c.inline_bytes && !multi_block(c); }

uint64_t entry_bytes_of(const Case &c) {
    return multi_block(c) ? block_range(c.bytes, blocks_of(c), 0).length : c.bytes;
}

std::vector<BlockList> block_lists(const Case &c, uint32_t only) {
    std::vector<BlockList> out;
    if (c.op == Op::kBcast) {
        const uint32_t blocks = blocks_of(c);
        for (uint32_t b = 0; b < blocks; ++b)
            out.push_back({block_list(c, b), blocks == 1 ? c.bytes : block_range(c.bytes, blocks, b).length});
    } else {
        for (uint32_t b = 0; b < (only > 0 ? only : c.members); ++b) out.push_back({block_list(c, b), c.bytes});
    }
    return out;
}

}  // namespace acpx::collectives::model
