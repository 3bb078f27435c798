// ACP's channels: ordered messages from one rank to another (acp.h).
//
// Each end holds one block of acp_malloc memory on its own rank; the ends
// learn each other's block from a message sent at create (the n-th
// acp_create_ch(s, r) on s pairs with the n-th on r).
//   receiver's block: kSlots slots {seq, size, source GA, data[kEager]},
//     which the sender fills, then kSlots words it stages "consumed" in;
//   sender's block:   the "consumed" count the receiver writes, then
//     kSlots slot images it stages its copies from.
// Message i goes to slot i % kSlots once the receiver has consumed message
// i - kSlots. Its bytes and size land before its seq (= i + 1): by plain
// stores with release order where the peer's block is mapped here (same
// node), else by two copies, the seq ordered after the rest. A message of
// at most kEager bytes travels in the slot; a larger one is pulled by the
// receiver from the sender's buffer (registered for the time), and its
// send completes when the receiver says it has consumed it.
#pragma once

#include <acp.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "basic/layer.hpp"

namespace acpx::middle {

struct State;

constexpr uint32_t kSlots = 4;
constexpr size_t kEager = 1024;
constexpr size_t kSlotHeader = 32;  // seq, size, source GA, spare
// A slot starts on a cache line, so that a message of up to 32 bytes and
// its header are one line for the receiver to fetch.
constexpr size_t kSlotBytes = (kSlotHeader + kEager + 63) / 64 * 64;
constexpr size_t kCachedRegistrations = 8;  // per end: buffers of large messages kept registered
// The first byte of the middle layer's messages that are channels'.
constexpr uint8_t kChannelMsgFirst = 0x40;

struct ChRequest {
    enum class Kind : uint8_t { kSend, kRecv, kFree };
    Kind kind = Kind::kSend;
    uint64_t ch = 0;     // channel id
    uint64_t index = 0;  // message number on the channel (send, recv)
    char *buf = nullptr;
    size_t size = 0;
    bool started = false, done = false;
    int status = 0;                    // when done: 0 ok, -1 failed (reported)
    size_t got = 0;                    // a receive's size
    acp_atkey_t key = ACP_ATKEY_NULL;  // a large message's buffer, registered
    acp_handle_t copy = ACP_HANDLE_NULL;
};

struct Channel {
    uint64_t id = 0;
    int sender = 0, receiver = 0;
    uint32_t n = 0;  // the pair's n-th channel
    bool i_send = false;
    acp_ga_t mine = ACP_GA_NULL, peer = ACP_GA_NULL;  // blocks; peer: once its hello came
    char *mine_at = nullptr;                          // this rank's block
    char *peer_at = nullptr;                          // the peer's block where mapped here
    std::shared_ptr<void> keep;                       // that mapping
    uint64_t messages = 0;                            // sends issued (sender) or receives completed (receiver)
    uint64_t consumed_seen = 0;                       // sender: the receiver's "consumed" count, as last read
    uint64_t posted = 0;                              // sends or receives asked for: the next one's message number
    std::deque<uint64_t> queue;                       // request ids, oldest first
    size_t sends_started = 0;                         // sender: the queue's first that many are started (or done)
    bool freeing = false, peer_bye = false;
    // A copy of this channel failed, here or at the peer (which said so):
    // its pending and later sends and receives fail, saying why.
    bool broken = false;
    std::string broken_why;
    acp_handle_t consumed_copy[kSlots] = {};  // receiver: the copy each staged word went by
    acp_handle_t last_consumed = ACP_HANDLE_NULL;
    uint64_t quiet_since_ns = 0;  // when the head request last moved (ACP_TIMEOUT)
    // Buffers of large messages, registered (channel.cpp: registered()).
    struct CachedReg {
        char *base;
        size_t size;
        acp_atkey_t key;
        uint64_t last_use;
    };
    std::vector<CachedReg> regs;
    uint64_t reg_clock = 0;

    int peer_rank() const { return i_send ? receiver : sender; }
};

struct ChannelTable {
    std::map<uint64_t, std::unique_ptr<Channel>> chans;
    std::map<uint64_t, ChRequest> reqs;
    uint64_t next_ch = 1, next_req = 1;
    std::map<std::pair<int, int>, uint32_t> created;  // (sender, receiver) -> channels created so far
    using Key = std::tuple<int, int, uint32_t>;       // (sender, receiver, n)
    std::map<Key, acp_ga_t> hellos;                   // the peer's block, as announced
    std::map<Key, bool> byes;                         // the peer has freed its end
    std::map<Key, bool> broken;                       // the peer's copies for the channel failed
    std::map<Key, acp_ga_t> parked;                   // blocks of freed ends, until the peer's bye
};

// Files a channel message (hello, bye) that collect_mail took.
void channel_mail(State &st, const basic::layer::Bytes &m);

}  // namespace acpx::middle
