// A FIFO in one array that grows by doubling and never shrinks: the eager
// pool's held chunks (eager_pool.hpp), pushed one a round and popped in
// bunches. std::deque allocates and frees a node every few pushes, which
// cost a small pooled round ~5% of its sender's time in malloc and free;
// here a steady loop of rounds touches the same few entries and no heap.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace acpx::middle {

template <class T>
class RingQueue {
  public:
    bool empty() const { return count_ == 0; }
    size_t size() const { return count_; }
    // The i-th oldest (0: the front); i < size().
    T &at(size_t i) { return items_[(first_ + i) & (items_.size() - 1)]; }
    const T &at(size_t i) const { return items_[(first_ + i) & (items_.size() - 1)]; }
    T &front() { return at(0); }
    const T &front() const { return at(0); }
    T &back() { return at(count_ - 1); }

    // May throw std::bad_alloc (growing); the queue is then as it was.
    void push_back(T &&v) {
        if (count_ == items_.size()) grow();
        items_[(first_ + count_) & (items_.size() - 1)] = std::move(v);
        ++count_;
    }
    // The front's slot keeps its object, reset to T{} (a vector member
    // gives back its heap block).
    void pop_front() {
        items_[first_] = T{};
        first_ = (first_ + 1) & (items_.size() - 1);
        --count_;
    }

  private:
    void grow() {
        std::vector<T> bigger(items_.empty() ? 16 : items_.size() * 2);  // a power of two
        for (size_t i = 0; i < count_; ++i) bigger[i] = std::move(at(i));
        items_.swap(bigger);
        first_ = 0;
    }

    std::vector<T> items_;
    size_t first_ = 0, count_ = 0;
};

}  // namespace acpx::middle
