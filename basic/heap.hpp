// The allocator behind acp_malloc: blocks of a process's arenas (acpx
// segments, each one registration), by best fit. Pure bookkeeping of
// offsets; the arenas themselves are made by the caller (global_memory.cpp).
//
// Blocks are multiples of kAlign bytes at kAlign-aligned offsets (a cache
// line: no false sharing between two allocations, and every atomic width
// aligned). A free block is found by best fit (the smallest that holds the
// request, lowest arena and offset among equals) in O(log n), and a freed
// block merges with its free neighbours at once, so an arena that is all
// free again is one block. Waste: under kAlign bytes per allocation, plus
// the free blocks between live ones (best fit with merging keeps that low
// for typical mixes; no allocator bounds it for every sequence of requests).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace acpx::basic {

class Heap {
  public:
    static constexpr size_t kAlign = 64;

    struct Block {
        uint32_t arena;   // index, in the order add_arena was called
        uint64_t offset;  // from the arena's start
    };

    // Makes [0, size) of a new arena available; size a multiple of kAlign.
    // Returns its index.
    uint32_t add_arena(uint64_t size);
    // A block of at least `size` bytes (size >= 1), or nothing when no free
    // block is large enough (the caller adds an arena and asks again).
    std::optional<Block> alloc(uint64_t size);
    // Frees the live block that starts at `b`; false if there is none there
    // (never allocated, or freed already). *size: its size, when it was.
    bool free(Block b, uint64_t *size = nullptr);
    // The live block that contains `b` (its start and size), if any.
    std::optional<std::pair<Block, uint64_t>> containing(Block b) const;
    // The free block that contains `b` (its start and size), if any: a
    // freed block merged with its free neighbours.
    std::optional<std::pair<Block, uint64_t>> free_around(Block b) const;

    uint64_t bytes_live() const { return live_bytes_; }
    uint64_t bytes_total() const { return total_bytes_; }
    size_t blocks_live() const { return live_.size(); }
    size_t blocks_free() const { return by_size_.size(); }
    uint64_t largest_free() const { return by_size_.empty() ? 0 : std::get<0>(*by_size_.rbegin()); }
    static uint64_t rounded(uint64_t size) { return (size + kAlign - 1) / kAlign * kAlign; }

  private:
    using Key = std::pair<uint32_t, uint64_t>;  // (arena, offset)
    void insert_free(Key at, uint64_t size);
    void erase_free(std::map<Key, uint64_t>::iterator it);
    // The block of `blocks` (free_ or live_) that contains b, if any.
    static std::optional<std::pair<Block, uint64_t>> extent_at(const std::map<Key, uint64_t> &blocks, Block b);

    std::map<Key, uint64_t> free_;                                // free blocks by place: merging
    std::set<std::tuple<uint64_t, uint32_t, uint64_t>> by_size_;  // (size, arena, offset): best fit
    std::map<Key, uint64_t> live_;                                // allocated blocks: free and look-up
    std::vector<uint64_t> arena_size_;
    uint64_t live_bytes_ = 0, total_bytes_ = 0;
};

}  // namespace acpx::basic
