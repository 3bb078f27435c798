#include "on_node.hpp"

#include <atomic>

#include "../copy_bytes.hpp"
#include "shared_segment.hpp"

namespace acpx::basic {

PeerSegment::~PeerSegment() { unmap_peer_segment(at_, size_); }

void OnNode::init(int me, const std::vector<uint64_t> &node, const std::vector<pid_t> &pid, bool enabled) {
    cma_.init(me, node, pid, enabled);
}

void OnNode::describe(PeerSegment &s, int rank, int fd, uint64_t base, size_t size) const {
    if (fd < 0 || !cma_.reaches(rank)) return;
    s.pid_ = cma_.pid_of(rank);
    s.fd_ = fd;
    s.base_ = base;
    s.size_ = size;
}

char *OnNode::mapped(PeerSegment &s, uint64_t raddr) {
    if (!s.tried_ && s.fd_ >= 0) {
        s.tried_ = true;
        s.at_ = static_cast<char *>(map_peer_segment(s.pid_, s.fd_, s.size_));
    }
    return s.at_ ? s.at_ + (raddr - s.base_) : nullptr;
}

int OnNode::put(int rank, PeerSegment &s, uint64_t raddr, const void *src, size_t len) {
    if (char *at = mapped(s, raddr)) {
        copy_bytes(at, src, len);
        // The stores land before whatever this rank signals next.
        std::atomic_thread_fence(std::memory_order_release);
        return 0;
    }
    return cma_.reaches(rank) ? cma_.write(rank, raddr, src, len) : kFallback;
}

int OnNode::get(int rank, PeerSegment &s, void *dst, uint64_t raddr, size_t len) {
    if (char *at = mapped(s, raddr)) {
        std::atomic_thread_fence(std::memory_order_acquire);
        copy_bytes(dst, at, len);
        return 0;
    }
    return cma_.reaches(rank) ? cma_.read(rank, dst, raddr, len) : kFallback;
}

}  // namespace acpx::basic
