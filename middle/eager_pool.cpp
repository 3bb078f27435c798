// The process's eager pool (eager_pool.hpp).
#include "eager_pool.hpp"

#include <algorithm>

#include "basic/ga.hpp"
#include "shared_words.hpp"

namespace acpx::middle {

size_t EagerPool::take(size_t n, uint64_t col, uint64_t seq, uint32_t block, const uint64_t *mark, bool *fresh) {
    size_t looked = 0;
    for (size_t i = held_.size(); i-- > 0 && looked < 16; ++looked) {
        Chunk &c = held_.at(i);
        if (c.col != col) continue;
        if (c.seq != seq) break;  // an earlier round of the handle: this round's chunks are all newer
        if (c.block != block) continue;
        if (c.n_marks < c.first.size())
            c.first[c.n_marks] = mark;
        else
            c.more.push_back(mark);
        ++c.n_marks;
        *fresh = false;
        return c.off;
    }
    *fresh = true;
    return alloc(n, col, seq, block, mark);
}

size_t EagerPool::alloc(size_t n, uint64_t col, uint64_t seq, uint32_t block, const uint64_t *mark) {
    if (capacity_ == 0 || failed_) return kNone;
    if (!mem_.base && !basic::layer::alloc_shared(capacity_, "acp_wait_col (ACP_COL_POOL)", &mem_)) {
        failed_ = true;  // reported there; rounds go the non-eager way
        return kNone;
    }
    const size_t len = (n + kChunkAlign - 1) / kChunkAlign * kChunkAlign;
    if (len == 0 || len > mem_.size) return kNone;
    // Chunks go round the pool's first warm_bytes while those have room,
    // and beyond only when they have none after a reclaim.
    const size_t warm = std::min(mem_.size, std::max(kWarmBytes, kWarmChunks * len));
    bool reclaimed = false;
    for (;;) {
        size_t at = place(len, warm);
        if (at == kNone && reclaimed) at = place(len, mem_.size);
        if (at != kNone) {
            held_.push_back({at, col, seq, block, 1, {mark}, {}});
            head_ = at + len == warm || at + len == mem_.size ? 0 : at + len;
            return at;
        }
        if (reclaimed) return kNone;
        reclaim();
        reclaimed = true;
    }
}

size_t EagerPool::place(size_t len, size_t end) const {
    if (held_.empty()) return len <= end ? 0 : kNone;
    const size_t tail = held_.front().off;
    if (head_ > tail) return head_ + len <= end ? head_ : tail >= len ? 0 : kNone;  // free: [head, end) and [0, tail)
    if (head_ < tail) return tail - head_ >= len ? head_ : kNone;                   // free: [head, tail)
    return kNone;  // head == tail with chunks held: full
}

bool EagerPool::consumed(const Chunk &c) const {
    const acp_ga_t mine = ga(c.off);
    for (uint32_t i = 0; i < c.n_marks; ++i)
        if (load_acquire(i < c.first.size() ? c.first[i] : c.more[i - c.first.size()]) == mine) return false;
    return true;
}

void EagerPool::reclaim() {
    bool freed = false;
    while (!held_.empty() && consumed(held_.front())) {
        held_.pop_front();
        freed = true;
    }
    if (freed && held_.empty()) head_ = 0;  // start over where the lines are warm
    if (freed && !retained_.empty())
        for (auto it = retained_.begin(); it != retained_.end();) {
            bool used = false;
            for (size_t i = 0; i < held_.size() && !used; ++i) used = held_.at(i).col == it->first;
            it = used ? std::next(it) : retained_.erase(it);
        }
}

void EagerPool::retain(uint64_t col, std::vector<std::shared_ptr<void>> &&mappings) {
    reclaim();  // its chunks read already need not keep anything
    for (size_t i = 0; i < held_.size(); ++i)
        if (held_.at(i).col == col) {
            retained_[col] = std::move(mappings);
            return;
        }
}

const char *EagerPool::peer_chunk(acp_ga_t chunk, uint64_t pool_bytes, size_t len) {
    const basic::ga::Parts g = basic::ga::decode(chunk);
    if (!basic::ga::fits(g.offset, len, pool_bytes)) return nullptr;
    const acp_ga_t base = basic::ga::encode(g.rank, g.tag, 0);
    if (base == last_peer_) return last_base_ + g.offset;
    auto it = peers_.find(base);
    if (it == peers_.end()) {  // mapped once; only a mapping that worked is kept
        basic::layer::Mapped m = basic::layer::mapped(base, pool_bytes);
        if (!m.ptr) return nullptr;
        it = peers_.insert_or_assign(base, std::move(m)).first;
    }
    last_peer_ = base;
    last_base_ = it->second.ptr;
    return last_base_ + g.offset;
}

}  // namespace acpx::middle
