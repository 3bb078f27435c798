// The process's eager pool (eager_pool.hpp).
#include "eager_pool.hpp"

#include "basic/ga.hpp"
#include "shared_words.hpp"

namespace acpx::middle {

size_t EagerPool::find(uint64_t col, uint64_t seq, uint32_t block) const {
    size_t looked = 0;
    for (auto it = held_.rbegin(); it != held_.rend() && looked < 16; ++it, ++looked)
        if (it->col == col && it->seq == seq && it->block == block) return it->off;
    return kNone;
}

size_t EagerPool::alloc(size_t n, uint64_t col, uint64_t seq, uint32_t block) {
    if (capacity_ == 0 || failed_) return kNone;
    if (!mem_.base && !basic::layer::alloc_shared(capacity_, "acp_wait_col (ACP_COL_POOL)", &mem_)) {
        failed_ = true;  // reported there; rounds go the non-eager way
        return kNone;
    }
    const size_t len = (n + kChunkAlign - 1) / kChunkAlign * kChunkAlign;
    if (len == 0 || len > mem_.size) return kNone;
    for (;;) {
        size_t at = kNone;
        if (held_.empty()) {
            at = 0;
        } else if (const size_t tail = held_.front().off; head_ > tail) {  // free: [head, end) and [0, tail)
            at = mem_.size - head_ >= len ? head_ : tail >= len ? 0 : kNone;
        } else if (head_ < tail) {  // free: [head, tail)
            at = tail - head_ >= len ? head_ : kNone;
        }  // head == tail with chunks held: full
        if (at != kNone) {
            held_.push_back({at, col, seq, block, 0, {}, {}});
            head_ = at + len == mem_.size ? 0 : at + len;
            return at;
        }
        if (!reclaim()) return kNone;
    }
}

void EagerPool::add_reader(size_t off, const uint64_t *mark) {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)  // the newest, nearly always
        if (it->off == off) {
            if (it->n_marks < it->first.size())
                it->first[it->n_marks] = mark;
            else
                it->more.push_back(mark);
            ++it->n_marks;
            return;
        }
}

bool EagerPool::consumed(const Chunk &c) const {
    const acp_ga_t mine = ga(c.off);
    for (uint32_t i = 0; i < c.n_marks; ++i)
        if (load_acquire(i < c.first.size() ? c.first[i] : c.more[i - c.first.size()]) == mine) return false;
    return true;
}

bool EagerPool::reclaim() {
    bool freed = false;
    while (!held_.empty() && consumed(held_.front())) {
        held_.pop_front();
        freed = true;
    }
    if (freed && held_.empty()) head_ = 0;  // start over where the lines are warm
    if (freed && !retained_.empty())
        for (auto it = retained_.begin(); it != retained_.end();) {
            bool used = false;
            for (const Chunk &c : held_) used |= c.col == it->first;
            it = used ? std::next(it) : retained_.erase(it);
        }
    return freed;
}

void EagerPool::retain(uint64_t col, std::vector<std::shared_ptr<void>> &&mappings) {
    for (const Chunk &c : held_)
        if (c.col == col) {
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
