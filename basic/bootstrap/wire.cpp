#include "wire.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace acpx::wire {
namespace {
// Waits until fd is ready for `events` or the deadline passes.
bool wait_fd(int fd, short events, std::chrono::steady_clock::time_point deadline, bool forever) {
    for (;;) {
        int ms = -1;
        if (!forever) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            ms = static_cast<int>(left.count());
        }
        pollfd p{fd, events, 0};
        int n = ::poll(&p, 1, ms);
        if (n > 0) return true;
        if (n < 0 && errno != EINTR) return false;
    }
}
}  // namespace

// Moves len bytes with `io` (read or write), waiting for `events` between
// partial transfers; false on error, EOF or the deadline.
template <class Io>
bool transfer(int fd, char *p, size_t len, short events, int timeout_ms, Io io) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (len > 0) {
        if (!wait_fd(fd, events, deadline, timeout_ms < 0)) return false;
        const ssize_t n = io(fd, p, len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return false;
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool write_all(int fd, const void *buf, size_t len, int timeout_ms) {
    return transfer(fd, static_cast<char *>(const_cast<void *>(buf)), len, POLLOUT, timeout_ms,
                    [](int f, char *p, size_t n) { return ::write(f, p, n); });
}

bool read_all(int fd, void *buf, size_t len, int timeout_ms) {
    return transfer(fd, static_cast<char *>(buf), len, POLLIN, timeout_ms,
                    [](int f, char *p, size_t n) { return ::read(f, p, n); });
}

bool write_frame(int fd, const std::vector<uint8_t> &data, int timeout_ms) {
    const uint64_t len = data.size();
    return write_all(fd, &len, sizeof len, timeout_ms) && write_all(fd, data.data(), data.size(), timeout_ms);
}

bool read_frame(int fd, std::vector<uint8_t> *data, size_t max_len, int timeout_ms) {
    uint64_t len = 0;
    if (!read_all(fd, &len, sizeof len, timeout_ms) || len > max_len) return false;
    data->resize(len);
    return read_all(fd, data->data(), len, timeout_ms);
}

}  // namespace acpx::wire
