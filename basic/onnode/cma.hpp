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
//
// Short distances: the kernel copies with `rep movsb`, and on the 2-core
// VM's AMD EPYC (Zen 4, KVM) that ran 5x slower when the destination sat
// 1-31 bytes after the source modulo 4096 (process_vm_writev of 1 MiB:
// 620-680 us against 115-125 at other distances; 256 KiB 170 against 33;
// 16 KiB 10 against 3). The distance between two processes' arrays is
// fixed by their allocations, so such a copy goes through a staging
// buffer here instead, placed 2048 bytes from both ends: a memcpy into
// it and the system call out of it (or the reverse for a read), 128 KiB
// at a time so the staged bytes are still in cache (1 MiB: 145-180 us).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace acpx::basic {

// What identifies "the same node and the same pid namespace".
uint64_t local_node_id();

class CmaChannel {
  public:
    // node[r], pid[r]: every rank's, from the start-up exchange.
    void init(int me, const std::vector<uint64_t> &node, const std::vector<pid_t> &pid, bool enabled);
    bool reaches(int rank) const { return static_cast<size_t>(rank) < pid_.size() && pid_[rank] > 0; }
    // Has a copy with rank by CMA worked (so the system permits them)?
    bool worked(int rank) const { return reaches(rank) && worked_[rank]; }
    pid_t pid_of(int rank) const { return reaches(rank) ? pid_[rank] : 0; }
    // 0: done, bytes visible at the destination. kFallback: CMA is not
    // permitted here (now disabled for that rank): use the transport. The
    // first refusal is a warning on stderr, naming the likely cause.
    // -1 (reported): the system refused the addresses, or the peer is
    // gone: its pid answered before and now does not exist (ESRCH). An
    // ESRCH before any copy to that peer worked is taken as a refusal (a
    // peer in another PID namespace), not a death.
    static constexpr int kFallback = 1;
    int write(int rank, uint64_t raddr, const void *local, size_t len);
    int read(int rank, void *local, uint64_t raddr, size_t len);

    // Whether a copy of len bytes from src to dst goes through the
    // staging buffer (see the top): the kernel's slow distances, from
    // the size where they were measured slow.
    static constexpr uintptr_t kSlowDistance = 32;
    static constexpr size_t kStageFrom = 2048;
    static constexpr size_t kStageChunk = 128u << 10;
    static bool staged(uint64_t dst, uint64_t src, size_t len) {
        const uint64_t distance = (dst - src) & 4095;
        return len >= kStageFrom && distance != 0 && distance < kSlowDistance;
    }

  private:
    int finish(int rank, ssize_t n, size_t len, const char *what);
    // False (reported) when rank's process is known to be gone: its pidfd
    // (opened at init, so it names that process, never a later one with
    // the same pid) says it exited. Asked at most once a millisecond per
    // peer: a pid comes round again only after the kernel has handed out
    // every other (pid_max, 32768 at the least), which takes far longer.
    bool alive(int rank, const char *what);
    // Where a chunk starting at `at` is staged: 2048 bytes after it
    // modulo 4096: the memcpy runs at a distance of 2048, the system call
    // at 2048 + the copy's own (1-31).
    char *stage_for(uint64_t at);
    // A copy through the stage: to the peer (a write) or from it (a read).
    ssize_t move_staged(pid_t pid, char *local, uint64_t raddr, size_t len, bool to_peer);
    std::unique_ptr<char[]> stage_;  // kStageChunk + 4096, on the first staged copy
    std::vector<pid_t> pid_;         // 0: not reachable by CMA
    std::vector<uint8_t> worked_;    // a copy to that rank has succeeded
    std::vector<uint8_t> gone_;      // its process no longer exists: every copy fails
    struct Fds {                     // pidfds of the peers, closed with the channel
        std::vector<int> fd;
        ~Fds();
    };
    std::shared_ptr<Fds> pidfd_ = std::make_shared<Fds>();
    std::vector<std::chrono::steady_clock::time_point> checked_;  // last pidfd look, per rank
    int me_ = -1;
    bool warned_ = false;  // of a refusal: once a process, not once a copy
};

}  // namespace acpx::basic
