// Waking a peer's agent when the provider gives no wait fd (libfabric
// 1.17's shm). Such a provider only moves data when the *target* calls
// into it, so a sleeping target must be told: each process binds an
// abstract unix datagram socket (no file left behind, gone with the
// process), a sender pokes it after posting work for that peer, and the
// agent sleeps in epoll on the socket and a backup timer.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string>
#include <vector>

namespace acpx::basic::ofi {

class WakeChannel {
  public:
    WakeChannel() = default;
    WakeChannel(const WakeChannel &) = delete;
    WakeChannel &operator=(const WakeChannel &) = delete;
    ~WakeChannel();

    // Creates the socket, the timer and the epoll fd joining them.
    bool open();
    // The name peers poke (abstract namespace, without the leading NUL).
    const std::string &name() const { return name_; }
    // Index = rank; an empty name: that peer cannot be poked.
    void set_peers(const std::vector<std::string> &names);
    // Tells rank's agent that work is waiting for it. Never blocks.
    void poke(int rank);
    // The fd the agent sleeps on: readable on a poke or the timer.
    int fd() const { return epfd_; }
    // Empties the socket; true when a poke had arrived (go and progress).
    bool drain();
    // Starts the backup timer before a sleep. in_flight: this process has
    // operations outstanding; a peer's progress may have made work for
    // ours (a reply, the next segment) without poking us, so poll soon.
    // Otherwise short after recent work or when some peer cannot poke us,
    // long when every peer can.
    void arm_timer(bool in_flight, bool recent_work);

  private:
    int sock_ = -1, timer_ = -1, epfd_ = -1;
    std::string name_;
    std::vector<sockaddr_un> peers_;
    std::vector<socklen_t> peer_len_;  // 0: cannot be poked
    bool every_peer_pokes_ = false;
};

}  // namespace acpx::basic::ofi
