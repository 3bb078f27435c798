// Memory acpx allocates itself (the starter memory now; the middle layer's
// buffers next) lives in a memfd segment, so processes on the same node can
// map it and copy with plain loads and stores: no system call, nothing
// needed from the owner, complete when the copy returns. A peer maps it
// through /proc/<pid>/fd/<fd>, which needs the same permission as CMA.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace acpx::basic {

struct SharedSegment {
    void *base = nullptr;
    size_t size = 0;
    int fd = -1;
};

// A zeroed segment of `size` bytes mapped here; {nullptr} on failure.
SharedSegment create_shared_segment(size_t size, const char *name);
void destroy_shared_segment(SharedSegment &s);

// Maps a peer's segment; nullptr when not permitted or gone (the caller
// then uses CMA or the transport).
void *map_peer_segment(pid_t pid, int fd, size_t size);
void unmap_peer_segment(void *base, size_t size);

}  // namespace acpx::basic
