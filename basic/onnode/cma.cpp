#include "cma.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>

#include "../errors.hpp"
#include "ptrace_access.hpp"

namespace acpx::basic {

uint64_t local_node_id() {
    std::string id;
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::getline(boot, id);
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    id += host;
    struct stat ns;
    if (stat("/proc/self/ns/pid", &ns) == 0) id += std::to_string(ns.st_ino);  // same pid namespace
    return std::hash<std::string>{}(id) | 1;                                   // never 0
}

void CmaChannel::init(int me, const std::vector<uint64_t> &node, const std::vector<pid_t> &pid, bool enabled) {
    pid_.assign(pid.size(), 0);
    worked_.assign(pid.size(), 0);
    gone_.assign(pid.size(), 0);
    checked_.assign(pid.size(), {});
    pidfd_->fd.assign(pid.size(), -1);
    me_ = me;
    if (!enabled) return;
    for (size_t r = 0; r < pid.size(); ++r)
        if (static_cast<int>(r) != me && node[r] == node[me]) {
            pid_[r] = pid[r];
            // -1 (kernel < 5.3): ESRCH alone tells a death. By number:
            // Debian 12's glibc declares pidfd_open without C linkage.
            pidfd_->fd[r] = static_cast<int>(syscall(SYS_pidfd_open, pid[r], 0));
        }
}

CmaChannel::Fds::~Fds() {
    for (int f : fd)
        if (f >= 0) close(f);
}

bool CmaChannel::alive(int rank, const char *what) {
    if (gone_[rank]) return report("acp_copy", what, "rank %d has died", rank);
    const int fd = pidfd_->fd[rank];
    if (fd < 0) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now - checked_[rank] < std::chrono::milliseconds(1)) return true;
    checked_[rank] = now;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return true;  // readable: the process has exited
    gone_[rank] = 1;
    return report("acp_copy", what, "rank %d's process (pid %d) has exited: it has died", rank,
                  static_cast<int>(pid_[rank]));
}

int CmaChannel::finish(int rank, ssize_t n, size_t len, const char *what) {
    if (n >= 0 && static_cast<size_t>(n) == len) {
        worked_[rank] = 1;
        return 0;
    }
    if (n < 0 && errno == ESRCH && worked_[rank]) {  // it answered before: it died
        gone_[rank] = 1;
        report("acp_copy", what, "rank %d: rank %d's process (pid %d) no longer exists: it has died", me_, rank,
               static_cast<int>(pid_[rank]));
        return -1;
    }
    if (n < 0 && (errno == EPERM || errno == ENOSYS || errno == ESRCH)) {
        const int err = errno;
        pid_[rank] = 0;  // not allowed here (ptrace policy, seccomp): the transport does it
        if (!warned_) {
            warned_ = true;
            warn("acp_copy", what,
                 "rank %d: Cross-Memory Attach to rank %d refused (%s: %s); copies between them go through "
                 "the transport from now on, which is slower (ACP_CMA=0 chooses that without this warning)",
                 me_, rank, std::strerror(err), cma_access::refusal_hint(err, cma_access::yama_scope()).c_str());
        }
        return kFallback;
    }
    report("acp_copy", what, "rank %d: direct copy of %zu bytes failed: %s", rank, len,
           n < 0 ? std::strerror(errno) : "short copy");
    return -1;
}

namespace {
// Runs a process_vm_* call until all bytes moved (the kernel may move less).
// Returns the bytes moved, or -1 with errno set.
template <class Sys>
ssize_t move_all(pid_t pid, char *local, uint64_t raddr, size_t len, Sys sys) {
    size_t done = 0;
    while (done < len) {
        iovec l{local + done, len - done};
        iovec r{reinterpret_cast<void *>(raddr + done), len - done};
        const ssize_t n = sys(pid, &l, 1, &r, 1, 0);
        if (n < 0) return -1;
        if (n == 0) break;
        done += static_cast<size_t>(n);
    }
    return static_cast<ssize_t>(done);
}
}  // namespace

char *CmaChannel::stage_for(uint64_t at) {
    if (!stage_) stage_ = std::make_unique<char[]>(kStageChunk + 4096);
    const uint64_t base = reinterpret_cast<uint64_t>(stage_.get());
    return stage_.get() + ((at + 2048 - base) & 4095);
}

// The chunks in order; a short move ends the copy (the caller reports
// it). The stage sits beside the chunk's source: the local bytes for a
// write, the peer's for a read.
ssize_t CmaChannel::move_staged(pid_t pid, char *local, uint64_t raddr, size_t len, bool to_peer) {
    size_t done = 0;
    while (done < len) {
        const size_t n = len - done < kStageChunk ? len - done : kStageChunk;
        char *stage = stage_for(to_peer ? reinterpret_cast<uint64_t>(local + done) : raddr + done);
        if (to_peer) std::memcpy(stage, local + done, n);
        const ssize_t moved = move_all(pid, stage, raddr + done, n, to_peer ? process_vm_writev : process_vm_readv);
        if (moved < 0) return -1;
        if (!to_peer) std::memcpy(local + done, stage, static_cast<size_t>(moved));
        done += static_cast<size_t>(moved);
        if (static_cast<size_t>(moved) != n) break;
    }
    return static_cast<ssize_t>(done);
}

int CmaChannel::write(int rank, uint64_t raddr, const void *local, size_t len) {
    // Not to its pid again once it is gone: it may be another process's.
    if (!alive(rank, "dst")) return -1;
    char *p = static_cast<char *>(const_cast<void *>(local));  // only read: the iovec's type is not const
    if (staged(raddr, reinterpret_cast<uint64_t>(p), len))
        return finish(rank, move_staged(pid_[rank], p, raddr, len, true), len, "dst");
    return finish(rank, move_all(pid_[rank], p, raddr, len, process_vm_writev), len, "dst");
}

int CmaChannel::read(int rank, void *local, uint64_t raddr, size_t len) {
    if (!alive(rank, "src")) return -1;
    char *p = static_cast<char *>(local);
    if (staged(reinterpret_cast<uint64_t>(p), raddr, len))
        return finish(rank, move_staged(pid_[rank], p, raddr, len, false), len, "src");
    return finish(rank, move_all(pid_[rank], p, raddr, len, process_vm_readv), len, "src");
}

}  // namespace acpx::basic
