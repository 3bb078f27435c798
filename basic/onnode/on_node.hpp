// Copies between ranks of one node that need no transport: the one home
// of on-node copies. The GMA queue (gma.cpp), the executor of delegated
// copies (messages.cpp) and the middle layer's direct stores
// (basic::layer::mapped) all come through here.
//
// Two paths, the fastest the memory allows:
// - a peer's segment that acpx allocated (the starter memory,
//   layer::alloc_shared) mapped here: plain loads and stores (~0.14 us for
//   8 B), nothing asked of the owner;
// - any other registered memory of a peer: Cross-Memory Attach (cma.hpp),
//   one system call, complete when it returns.
// A peer neither reaches (another node, ACP_CMA=0, CMA refused here) is
// the transport's. Atomics on a mapped segment are CPU atomics (gma.cpp);
// others stay with the transport.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cma.hpp"

namespace acpx::basic {

// A peer's acpx-allocated segment as this process knows it; mapped on
// the first copy that could use it, unmapped with this object.
class PeerSegment {
  public:
    PeerSegment() = default;
    PeerSegment(const PeerSegment &) = delete;
    PeerSegment &operator=(const PeerSegment &) = delete;
    ~PeerSegment();

  private:
    friend class OnNode;
    pid_t pid_ = 0;
    int fd_ = -1;        // the owner's memfd; -1: none, or not reachable from here
    uint64_t base_ = 0;  // the owner's address of byte 0
    size_t size_ = 0;
    bool tried_ = false;  // mapping was attempted (it may have been refused)
    char *at_ = nullptr;  // byte 0 here
};

class OnNode {
  public:
    // From CmaChannel: the copy must go through the transport.
    static constexpr int kFallback = CmaChannel::kFallback;

    // node[r], pid[r]: every rank's, from the start-up exchange. Decides
    // once which peers are on this node and may be reached (ACP_CMA).
    void init(int me, const std::vector<uint64_t> &node, const std::vector<pid_t> &pid, bool enabled);
    bool reaches(int rank) const { return cma_.reaches(rank); }

    // Records that `rank`'s registration [base, base + size) is its
    // segment `fd` (fd < 0, or a rank not reached: nothing to map).
    void describe(PeerSegment &s, int rank, int fd, uint64_t base, size_t size) const;
    // Where the peer's byte `raddr` is in this process, mapping on first
    // use; nullptr when the segment is not mapped here.
    char *mapped(PeerSegment &s, uint64_t raddr);

    // Copies len bytes to (put) or from (get) raddr at rank, whose
    // registration is described by s. 0: done, bytes visible at the
    // destination. kFallback: no on-node path; use the transport. -1: the
    // copy failed (reported: refused addresses, a dead peer).
    int put(int rank, PeerSegment &s, uint64_t raddr, const void *src, size_t len);
    int get(int rank, PeerSegment &s, void *dst, uint64_t raddr, size_t len);
    // As put, to any address of the peer (registered or not): CMA only.
    int write_direct(int rank, uint64_t raddr, const void *src, size_t len) {
        return cma_.reaches(rank) ? cma_.write(rank, raddr, src, len) : kFallback;
    }
    // As get, from any address of the peer: CMA only.
    int read_direct(int rank, void *dst, uint64_t raddr, size_t len) {
        return cma_.reaches(rank) ? cma_.read(rank, dst, raddr, len) : kFallback;
    }
    // Has a direct copy with rank worked?
    bool direct_worked(int rank) const { return cma_.worked(rank); }

  private:
    CmaChannel cma_;
};

}  // namespace acpx::basic
