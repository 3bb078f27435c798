// ACP's segmented buffers: a ring of segnum segments of segsize bytes that
// a source rank fills and hands over one at a time to a destination rank
// (acp.h).
//
// Each end registers the application's buffer and holds one block of
// acp_malloc memory on its own rank; the ends learn each other's buffer
// and block from a message sent at create (the n-th
// acp_create_src_segbuf(d) on s pairs with the n-th acp_create_dst_segbuf(s)
// on d).
//   destination's block: segnum words, word k % segnum = k + 1 once
//     segment k's bytes are in its buffer (the source writes it, after the
//     bytes), then kHeadStage words it stages its count in;
//   source's block: the count of segments the destination has given back
//     (acp_ready_segbuf), which the destination writes, then segnum words
//     the source stages the destination's words in.
// Where the peer's block is mapped here (same node), a word is a plain
// store with release order; else a copy (the source's ordered after the
// segment's bytes, the destination's after its previous count).
// A per-segment word rather than one count: a segment whose copy failed
// leaves its word unset, so the destination never takes it (nor any
// segment after it) for data, whatever later copies did.
#pragma once

#include <acp.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <tuple>

#include "basic/layer.hpp"

namespace acpx::middle {

struct State;

// The first byte of the middle layer's messages that are segmented
// buffers' (channels' are below it).
constexpr uint8_t kSegbufMsgFirst = 0x50;
constexpr size_t kHeadStage = 8;  // destination: counts in flight to the source at once

struct Segbuf {
    uint64_t id = 0;
    int src = 0, dst = 0;
    uint32_t n = 0;  // the pair's n-th segmented buffer
    bool i_src = false;
    char *buf = nullptr;  // the application's
    size_t segsize = 0, segnum = 0;
    acp_atkey_t key = ACP_ATKEY_NULL;  // buf, registered
    acp_ga_t buf_ga = ACP_GA_NULL;
    acp_ga_t mine = ACP_GA_NULL;  // this end's block
    char *mine_at = nullptr;
    acp_ga_t peer_buf = ACP_GA_NULL, peer_block = ACP_GA_NULL;  // once connected
    char *peer_at = nullptr;                                    // the peer's block where mapped here
    std::shared_ptr<void> keep;                                 // that mapping
    bool connected = false, disconnected = false;
    bool peer_gone = false;    // the peer disconnected
    bool broken = false;       // a copy failed (said once)
    bool broke_here = false;   // one of this end's
    bool said_futile = false;  // a poll said that waiting is futile
    // Segment counts since connect: tail = handed over (source: acks
    // issued; destination: arrived), head = given back (destination:
    // readies; source: as last read), sent = acks whose bytes arrived.
    uint64_t tail = 0, head = 0, sent = 0;
    std::deque<acp_handle_t> in_flight;             // source: the word copy of each ack not yet sent (NULL: stored)
    acp_handle_t head_copies[kHeadStage] = {};      // destination: the copy each staged count went by
    acp_handle_t last_head_copy = ACP_HANDLE_NULL;  // the latest of them

    int peer_rank() const { return i_src ? dst : src; }
};

struct SegbufTable {
    std::map<uint64_t, std::unique_ptr<Segbuf>> bufs;
    uint64_t next_id = 1;
    std::map<std::pair<int, int>, uint32_t> created;  // (src, dst) -> segmented buffers created so far
    using Key = std::tuple<int, int, uint32_t>;       // (src, dst, n)
    struct Hello {
        acp_ga_t block, buf;
        uint64_t segsize, segnum;
    };
    std::map<Key, Hello> hellos;     // the peer's end, as announced
    std::map<Key, bool> byes;        // the peer disconnected
    std::map<Key, bool> broken;      // the source's copies failed
    std::map<Key, acp_ga_t> parked;  // blocks of freed ends, until the peer's bye
};

// Files a segmented buffer's message (hello, bye, broken) that collect_mail took.
void segbuf_mail(State &st, const basic::layer::Bytes &m);

}  // namespace acpx::middle
