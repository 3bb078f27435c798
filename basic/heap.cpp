#include "heap.hpp"

#include <iterator>
#include <tuple>

namespace acpx::basic {

uint32_t Heap::add_arena(uint64_t size) {
    const auto index = static_cast<uint32_t>(arena_size_.size());
    arena_size_.push_back(size);
    total_bytes_ += size;
    if (size) insert_free({index, 0}, size);
    return index;
}

void Heap::insert_free(Key at, uint64_t size) {
    free_.emplace(at, size);
    by_size_.emplace(size, at.first, at.second);
}

void Heap::erase_free(std::map<Key, uint64_t>::iterator it) {
    by_size_.erase({it->second, it->first.first, it->first.second});
    free_.erase(it);
}

std::optional<Heap::Block> Heap::alloc(uint64_t size) {
    if (size == 0) return std::nullopt;
    const uint64_t need = rounded(size);
    if (need < size) return std::nullopt;  // wrapped around
    const auto fit = by_size_.lower_bound({need, 0, 0});
    if (fit == by_size_.end()) return std::nullopt;
    const auto [have, arena, offset] = *fit;
    erase_free(free_.find({arena, offset}));
    if (have > need) insert_free({arena, offset + need}, have - need);
    live_.emplace(Key{arena, offset}, need);
    live_bytes_ += need;
    return Block{arena, offset};
}

bool Heap::free(Block b, uint64_t *size) {
    const auto it = live_.find({b.arena, b.offset});
    if (it == live_.end()) return false;
    Key at = it->first;
    uint64_t n = it->second;
    if (size) *size = n;
    live_bytes_ -= n;
    live_.erase(it);
    // Merge with the free block right after it, then with the one before.
    if (auto next = free_.find({at.first, at.second + n}); next != free_.end()) {
        n += next->second;
        erase_free(next);
    }
    if (auto after = free_.lower_bound(at); after != free_.begin()) {
        auto prev = std::prev(after);
        if (prev->first.first == at.first && prev->first.second + prev->second == at.second) {
            at = prev->first;
            n += prev->second;
            erase_free(prev);
        }
    }
    insert_free(at, n);
    return true;
}

std::optional<std::pair<Heap::Block, uint64_t>> Heap::extent_at(const std::map<Key, uint64_t> &blocks, Block b) {
    auto it = blocks.upper_bound({b.arena, b.offset});
    if (it == blocks.begin()) return std::nullopt;
    --it;
    if (it->first.first != b.arena || b.offset >= it->first.second + it->second) return std::nullopt;
    return std::make_pair(Block{it->first.first, it->first.second}, it->second);
}

std::optional<std::pair<Heap::Block, uint64_t>> Heap::free_around(Block b) const { return extent_at(free_, b); }

std::optional<std::pair<Heap::Block, uint64_t>> Heap::containing(Block b) const { return extent_at(live_, b); }

}  // namespace acpx::basic
