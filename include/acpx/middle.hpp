// acpx C++ API for ACP's middle layer: global memory (acp_malloc) and
// channels, RAII over the C API of <acp.h>.
//
//   acpx::GlobalMemory block(1 << 20, owner);      // acp_malloc on any rank
//   acpx::copy(block.ga(), reg.ga(), n).wait();     // ~GlobalMemory: acp_free
//   auto mine = block.local<double>();              // on the owner only
//
//   acpx::Channel ch(0, 1);                         // both ends create it
//   if (rank == 0) ch.send(std::span(v));           // blocking
//   else n = ch.recv(std::span(v));                 // bytes received
//   auto r = ch.isend(std::span(v)); r.wait();      // non-blocking
//
// Every failure throws acpx::Error carrying the line the C API printed.
#pragma once

#include <acp.h>

#include <cstddef>
#include <span>
#include <utility>

#include "acpx.hpp"

namespace acpx {

// A block of global memory on some rank, freed with the object.
class GlobalMemory {
  public:
    GlobalMemory(std::size_t bytes, int rank) : ga_(acp_malloc(bytes, rank)), bytes_(bytes) {
        if (ga_ == ACP_GA_NULL) throw Error("acpx: acp_malloc failed");
    }
    ~GlobalMemory() {
        if (ga_ != ACP_GA_NULL) acp_free(ga_);
    }
    GlobalMemory(GlobalMemory &&o) noexcept : ga_(std::exchange(o.ga_, ACP_GA_NULL)), bytes_(o.bytes_) {}
    GlobalMemory &operator=(GlobalMemory &&) = delete;
    GlobalMemory(const GlobalMemory &) = delete;

    acp_ga_t ga(std::size_t offset = 0) const {
        if (offset >= bytes_) throw std::out_of_range("acpx::GlobalMemory::ga: offset past the block");
        return ga_ + offset;
    }
    std::size_t size_bytes() const { return bytes_; }
    int rank() const { return acp_query_rank(ga_); }
    // The block as this process sees it: only on its owner.
    template <class T>
    std::span<T> local() const {
        auto *p = static_cast<T *>(acp_query_address(ga_));
        if (!p) throw Error(Error::Own{}, "acpx::GlobalMemory::local: the block is on rank " + std::to_string(rank()));
        return {p, bytes_ / sizeof(T)};
    }

  private:
    acp_ga_t ga_;
    std::size_t bytes_;
};

// A channel request. wait(): a receive's size (0 for a send).
class ChannelRequest {
  public:
    explicit ChannelRequest(acp_request_t r) : r_(r) {}
    std::size_t wait() const {
        const std::size_t n = acp_wait_ch(r_);
        if (n == static_cast<std::size_t>(-1)) throw Error("acpx: acp_wait_ch failed");
        return n;
    }
    acp_request_t get() const { return r_; }

  private:
    acp_request_t r_;
};

// This rank's end of a channel from `sender` to `receiver`; freed (both
// ends must free theirs) with the object.
class Channel {
  public:
    Channel(int sender, int receiver) : ch_(acp_create_ch(sender, receiver)) {
        if (ch_ == ACP_CH_NULL) throw Error("acpx: acp_create_ch failed");
    }
    ~Channel() {
        if (ch_ != ACP_CH_NULL) acp_free_ch(ch_);
    }
    Channel(Channel &&o) noexcept : ch_(std::exchange(o.ch_, ACP_CH_NULL)) {}
    Channel &operator=(Channel &&) = delete;
    Channel(const Channel &) = delete;

    template <class T, std::size_t N>
    ChannelRequest isend(std::span<T, N> s) {
        const acp_request_t r =
            acp_nbsend_ch(ch_, const_cast<void *>(static_cast<const void *>(s.data())), s.size_bytes());
        if (r == ACP_REQUEST_NULL) throw Error("acpx: acp_nbsend_ch failed");
        return ChannelRequest(r);
    }
    template <class T, std::size_t N>
    ChannelRequest irecv(std::span<T, N> s) {
        const acp_request_t r = acp_nbrecv_ch(ch_, static_cast<void *>(s.data()), s.size_bytes());
        if (r == ACP_REQUEST_NULL) throw Error("acpx: acp_nbrecv_ch failed");
        return ChannelRequest(r);
    }
    template <class T, std::size_t N>
    void send(std::span<T, N> s) {
        isend(s).wait();
    }
    // The bytes received (a longer message is cut to the span).
    template <class T, std::size_t N>
    std::size_t recv(std::span<T, N> s) {
        return irecv(s).wait();
    }
    acp_ch_t get() const { return ch_; }

  private:
    acp_ch_t ch_;
};

}  // namespace acpx
