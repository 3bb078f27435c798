// A command list as an executor keeps it: the entries themselves, or, for
// the k-nomial trees (binomial is k = 2), the formula they follow, each
// entry computed when it is issued. A root in root mode issues every entry
// of its list each round; at 10^6 members the list was 12 MB of its 23
// (seed 002 section 2: a library should hold only what it cannot
// regenerate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "command_list.hpp"

namespace acpx::collectives {

// knomial(n, root, k)'s list (bcast.cpp), entry by entry, in O(log n)
// each and no memory: equal to the built list entry for entry
// (test/collectives/stored_list_test.cpp).
class KnomialList {
  public:
    KnomialList(uint32_t members, uint32_t root, unsigned k);
    uint32_t size() const { return n_ ? n_ - 1 : 0; }
    Command operator[](uint32_t e) const;

  private:
    // In the step of span s every v < s with the data sends to v + j*s, j
    // = 1.. while below n: q of them for v <= rem, q - 1 after (every step
    // but the last has all k - 1 for every v); the step's entries start at
    // s - 1.
    struct Step {
        uint64_t q, rem;
    };
    Step step(uint64_t s) const;
    uint32_t index(uint64_t s, uint64_t v, uint64_t j) const;  // the entry v -> v + j*s
    uint32_t abs(uint64_t v) const { return static_cast<uint32_t>((v + root_) % n_); }
    uint32_t n_, root_;
    uint64_t k_;
};

// The entries, or the formula.
class StoredList {
  public:
    StoredList() = default;
    explicit StoredList(CommandList list) : list_(std::move(list)) { list_.shrink_to_fit(); }
    explicit StoredList(KnomialList formula) : formula_(formula) {}
    uint32_t size() const { return formula_ ? formula_->size() : static_cast<uint32_t>(list_.size()); }
    Command operator[](uint32_t e) const { return formula_ ? (*formula_)[e] : list_[e]; }
    bool is_formula() const { return formula_.has_value(); }
    size_t heap_bytes() const { return list_.capacity() * sizeof(Command); }

  private:
    CommandList list_;
    std::optional<KnomialList> formula_;
};

}  // namespace acpx::collectives
