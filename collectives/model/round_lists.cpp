// A case's round as command lists, and what follows from its shape.
#include "round_lists.hpp"

namespace acpx::collectives::model {

uint32_t blocks_of(const Case &c) {
    return c.op == Op::kBcast ? bcast_blocks(static_cast<BcastAlgo>(c.algo), c.members, c.radix) : c.members;
}

Turn turn_of(const Case &c) {
    return c.op == Op::kAllgather ? allgather_turn(static_cast<AllgatherAlgo>(c.algo), c.members) : Turn{};
}

bool multi_block(const Case &c) { return c.op == Op::kBcast && blocks_of(c) > 1; }

bool inline_round(const Case &c) { return c.bytes > 0 && c.bytes <= c.inline_bytes && !multi_block(c); }

uint64_t entry_bytes_of(const Case &c) {
    return multi_block(c) ? block_range(c.bytes, blocks_of(c), 0).length : c.bytes;
}

std::vector<BlockList> block_lists(const Case &c, uint32_t only) {
    std::vector<BlockList> out;
    if (c.op == Op::kBcast) {
        const auto a = static_cast<BcastAlgo>(c.algo);
        const uint32_t blocks = blocks_of(c);
        for (uint32_t b = 0; b < blocks; ++b)
            out.push_back({bcast_block_list(a, c.members, c.root, b, c.radix),
                           blocks == 1 ? c.bytes : block_range(c.bytes, blocks, b).length});
    } else {
        for (uint32_t b = 0; b < (only > 0 ? only : c.members); ++b)
            out.push_back({allgather_block_list(static_cast<AllgatherAlgo>(c.algo), c.members, b), c.bytes});
    }
    return out;
}

}  // namespace acpx::collectives::model
