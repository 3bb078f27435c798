#include "wake_channel.hpp"

#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace acpx::basic::ofi {
namespace {

socklen_t abstract_address(const std::string &name, sockaddr_un *a) {
    std::memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if (name.empty() || name.size() + 1 > sizeof a->sun_path) return 0;
    std::memcpy(a->sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

}  // namespace

WakeChannel::~WakeChannel() {
    for (int fd : {sock_, timer_, epfd_})
        if (fd >= 0) close(fd);
}

bool WakeChannel::open() {
    static std::atomic<unsigned> instances{0};  // several runtimes in one process (tests)
    name_ = "acpx-wake-" + std::to_string(getpid()) + "-" + std::to_string(instances++);
    sock_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_un a;
    const socklen_t len = abstract_address(name_, &a);
    if (sock_ < 0 || bind(sock_, reinterpret_cast<sockaddr *>(&a), len) != 0) return false;
    timer_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (timer_ < 0 || epfd_ < 0) return false;
    for (int fd : {sock_, timer_}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.fd = fd;
        if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0) return false;
    }
    return true;
}

void WakeChannel::set_peers(const std::vector<std::string> &names) {
    peers_.resize(names.size());
    peer_len_.resize(names.size());
    every_peer_pokes_ = true;
    for (size_t r = 0; r < names.size(); ++r) {
        peer_len_[r] = abstract_address(names[r], &peers_[r]);
        if (!peer_len_[r]) every_peer_pokes_ = false;
    }
}

void WakeChannel::poke(int rank) {
    const size_t r = static_cast<size_t>(rank);
    if (r >= peers_.size() || !peer_len_[r]) return;
    const char one = 1;
    if (sendto(sock_, &one, 1, MSG_DONTWAIT, reinterpret_cast<sockaddr *>(&peers_[r]), peer_len_[r]) < 0 &&
        errno != EAGAIN && errno != EWOULDBLOCK) {
        // Not on this node (or gone): that peer is left to the backup timer.
        peer_len_[r] = 0;
        every_peer_pokes_ = false;
    }
}

bool WakeChannel::drain() {
    bool poked = false;
    char buf[64];
    while (recv(sock_, buf, sizeof buf, MSG_DONTWAIT) > 0) poked = true;
    return poked;
}

void WakeChannel::arm_timer(bool in_flight, bool recent_work) {
    uint64_t ticks;
    if (read(timer_, &ticks, sizeof ticks) < 0) { /* it had not expired */
    }
    itimerspec t{};
    if (in_flight)
        t.it_value.tv_nsec = 200'000;
    else if (every_peer_pokes_)
        t.it_value.tv_nsec = 100'000'000;  // a safety net only
    else
        t.it_value.tv_nsec = recent_work ? 1'000'000 : 8'000'000;
    timerfd_settime(timer_, 0, &t, nullptr);
}

}  // namespace acpx::basic::ofi
