// Cross-Memory Attach: copies straight into or out of another process's
// memory on this node (process_vm_writev / process_vm_readv).
//
// Why beside the transport: without xpmem, UCX's shared-memory transports
// can only reach memory UCX itself allocated; a user's registered array on
// a peer is reached through UCX's software RMA emulation, which needs the
// target's progress for every put and flush (measured here: ~4-30 us for
// 8 bytes). A CMA copy is one system call, needs nothing from the target,
// and is complete -- visible at the destination -- when it returns.
// Atomics stay with the transport. ACP_CMA=0 turns this off.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace acpx::basic {

// What identifies "the same node and the same pid namespace".
uint64_t local_node_id();

class CmaChannel {
  public:
    // node[r], pid[r]: every rank's, from the start-up exchange.
    void init(int me, const std::vector<uint64_t> &node, const std::vector<pid_t> &pid,
              bool enabled);
    bool reaches(int rank) const {
        return static_cast<size_t>(rank) < pid_.size() && pid_[rank] > 0;
    }
    pid_t pid_of(int rank) const { return reaches(rank) ? pid_[rank] : 0; }
    // 0: done, bytes visible at the destination. kFallback: CMA is not
    // permitted here (now disabled for that rank): use the transport. The
    // first refusal is a warning on stderr, naming the likely cause.
    // -1: the system refused the addresses (reported).
    static constexpr int kFallback = 1;
    int write(int rank, uint64_t raddr, const void *local, size_t len);
    int read(int rank, void *local, uint64_t raddr, size_t len);

  private:
    int finish(int rank, ssize_t n, size_t len, const char *what);
    std::vector<pid_t> pid_;  // 0: not reachable by CMA
    int me_ = -1;
    bool warned_ = false;  // of a refusal: once a process, not once a copy
};

}  // namespace acpx::basic
