#include "shared_segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include <string>

namespace acpx::basic {

SharedSegment create_shared_segment(size_t size, const char *name) {
    SharedSegment s;
    const int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return s;
    if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
        close(fd);
        return s;
    }
    // Back every page now: a sparse memfd whose pages cannot be had later
    // (a memory cgroup's limit, tmpfs full) kills the process that
    // touches them with SIGBUS. Here the allocation fails instead, with
    // errno (ENOSPC, ENOMEM) for the caller's message.
    if (const int err = posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0 && err != EOPNOTSUPP) {
        close(fd);
        errno = err;
        return s;
    }
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return s;
    }
    return {p, size, fd};
}

void destroy_shared_segment(SharedSegment &s) {
    if (s.base) munmap(s.base, s.size);
    if (s.fd >= 0) close(s.fd);
    s = {};
}

void *map_peer_segment(pid_t pid, int fd, size_t size) {
    const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
    const int mine = open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (mine < 0) return nullptr;
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
    close(mine);  // the mapping keeps the segment alive
    return p == MAP_FAILED ? nullptr : p;
}

void unmap_peer_segment(void *base, size_t size) {
    if (base) munmap(base, size);
}

}  // namespace acpx::basic
