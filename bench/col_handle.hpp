// A persistent bcast or allgather handle as the collective benchmarks use
// it (col_bench.cpp, overlap_bench.cpp): its arrays, its create and send,
// and a checked round of fresh bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "acp.h"

namespace acpx::bench {

// A direct handle's array: this process's own memory, or acp_malloc's
// (--memory malloc), which ranks of a node reach through mapped memory.
class Array {
  public:
    Array() = default;
    Array(const Array &) = delete;
    Array &operator=(const Array &) = delete;
    ~Array();
    // False (acp_malloc said why) if acp_malloc memory ran out.
    bool assign(size_t bytes, char value, bool from_malloc);
    char *data() const { return p_; }
    size_t size() const { return n_; }

  private:
    std::vector<char> own_;
    acp_ga_t ga_ = ACP_GA_NULL;
    char *p_ = nullptr;
    size_t n_ = 0;
};

struct Handle {
    acp_col_t h = ACP_COL_NULL;
    size_t block = 0;  // bytes a member: a direct allgather's blocks lie this far apart
    Array array;
    std::vector<char> in, out;
};

// Creates x's handle over `group` (root: group[0]) of `size` bytes (a
// bcast) or bytes a member (an allgather); x.h stays ACP_COL_NULL on
// failure (acpx said why).
void create(Handle &x, bool bcast, bool buffered, std::vector<int> &group, size_t size, bool malloc_arrays);

// Starts one round of `size` bytes on x.
acp_request_t send(const Handle &x, bool bcast, bool buffered, size_t size);

// Whether this member holds, after checked round `round`, what it should:
// fills the sources' blocks and poisons the rest first. On a wrong byte it
// names it on stderr. The round is `run` (false if it failed), by default
// a send on x.h and its wait; buffered: blocks in x.in / x.out (bcast: x.array).
bool checked_round(const Handle &x, bool bcast, bool buffered, const std::vector<int> &group, size_t size, int round,
                   const std::function<bool()> &run = nullptr);

}  // namespace acpx::bench
