// Control messages between the runtimes of two ranks. Each is a fixed
// plain struct, sometimes followed by an rkey blob, sent as one transport
// message. Both sides run the same build, so layouts are shared as is.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "transport/transport.hpp"

namespace acpx::basic::proto {

enum class Type : uint8_t {
    kCopyCmd = 1,       // issuer -> src owner: write [src, +size) to dst
    kCopyDone,          // src owner -> issuer: the delegated copy is complete
    kRegQuery,          // any -> owner: describe registration `tag`
    kRegInfo,           // owner -> asker: the description (+ rkey blob)
    kRegInvalidate,     // owner -> cachers: `tag` of generation `gen` is gone
    kRegInvalidateAck,  // cacher -> owner
    kSync,              // barrier round message
    kLayer,             // for the upper layer: opaque bytes (layer.hpp)
    kPing,              // a waiter -> the rank it waits for: are you there? (wait.ipp)
    kPong,              // the answer, from that rank's progress (its agent, if nothing else)
    kMallocReq,         // any -> owner: allocate global memory there (acp_malloc)
    kFreeReq,           // any -> owner: free a block of it (acp_free)
    kHeapReply,         // owner -> asker: the GA, or why not (text follows)
    kSignalPut,         // issuer -> owner of dst: bytes to store, the signal last (signal_put.cpp)
    kSignalAck,         // owner -> issuer: every signal put up to `count` stored (or one refused)
    kSignalAskAck,      // issuer -> owner: someone here waits, acknowledge what you stored
};

struct CopyCmd {
    Type type = Type::kCopyCmd;
    uint32_t issuer;
    int64_t handle;
    uint64_t dst_ga, src_ga, size;
    // The generation of the destination registration the issuer resolved
    // dst in: the executor refuses the copy if the owner has replaced it
    // since. Nothing else of the issuer's view is trusted: the executor
    // checks dst against the owner's own description (messages.cpp).
    uint64_t dst_gen;
};

struct CopyDone {
    Type type = Type::kCopyDone;
    int32_t status;  // 0 ok, else failed: the executor's reason follows as text
    int64_t handle;
};

struct RegQuery {
    Type type = Type::kRegQuery;
    uint32_t asker;
    uint32_t tag;
    uint64_t request;
};

struct RegInfo {
    Type type = Type::kRegInfo;
    uint32_t owner;
    uint32_t tag;
    int32_t status;  // 0: live (rkey blob follows), 1: not registered
    uint64_t request;
    uint64_t base, size, gen;
    int32_t color;
    int32_t seg_fd;               // >= 0: an acpx-allocated segment on-node peers may map
    uint64_t seg_base, seg_size;  // that segment (it may hold more than the registration)
};

struct RegInvalidate {
    Type type = Type::kRegInvalidate;
    uint32_t owner;
    uint32_t tag;
    uint64_t gen;
};

struct RegInvalidateAck {
    Type type = Type::kRegInvalidateAck;
    uint32_t from;
    uint32_t tag;
    uint64_t gen;
};

struct Sync {
    Type type = Type::kSync;
    uint32_t from;
    uint64_t epoch;
    uint32_t round;
};

// kPing and kPong: a liveness probe and its answer.
struct Probe {
    Type type = Type::kPing;
    uint32_t from;
};

// kMallocReq and kFreeReq: `value` is the size to allocate, or the GA to free.
struct HeapReq {
    Type type = Type::kMallocReq;
    uint32_t asker;
    uint64_t request;
    uint64_t value;
};

struct HeapReply {
    Type type = Type::kHeapReply;
    int32_t status;  // 0 done; else failed, the owner's reason follows as text
    uint64_t request;
    uint64_t ga;  // kMallocReq: the block's
};

// kSignalPut: `size` bytes follow, to store at offset `offset` of
// registration `tag` (generation `gen`) of the receiver; the first
// `signal` of them last (signal_put.cpp). `seq` numbers the issuer's
// signal puts to this receiver from 1; they are stored in that order.
// `ack`: how many of the receiver's own signal puts to the issuer the
// issuer has stored (an acknowledgement riding along). [after_lo,
// after_hi] (0, 0: none): the issuer's signal puts to this receiver that
// this one is ordered after and that were in flight when it went (a put
// issued behind a fence): if the receiver refused one, it refuses this.
// `hold` (layer::put_held): the receiver stores the first `hold` bytes
// at `offset`, their last 8 replaced by a reference to the rest, which
// it holds in memory of its own.
struct SignalPut {
    Type type = Type::kSignalPut;
    uint8_t signal;
    uint8_t hold;  // 0, or: only the first `hold` bytes are stored; the target holds the rest (a held put)
    uint32_t from;
    uint32_t tag;
    uint64_t seq, offset, size, gen, ack, after_lo, after_hi;
};

// kSignalAck: the receiver stored the issuer's signal puts 1..count; if
// `refused`, it refused number `count` (the reason follows as text).
// `answer`: it answers a kSignalAskAck.
struct SignalAck {
    Type type = Type::kSignalAck;
    uint8_t refused, answer;
    uint32_t from;
    uint64_t count;
};

// A message as bytes: the struct, then an optional blob.
template <class T>
Blob pack(const T &msg, const Blob *tail = nullptr) {
    static_assert(std::is_trivially_copyable_v<T>);
    Blob out(sizeof(T) + (tail ? tail->size() : 0));
    std::memcpy(out.data(), &msg, sizeof(T));
    if (tail && !tail->empty()) std::memcpy(out.data() + sizeof(T), tail->data(), tail->size());
    return out;
}

// Reads a T from the front of a message; false if it is too short.
template <class T>
bool unpack(const Blob &in, T *msg) {
    if (in.size() < sizeof(T)) return false;
    std::memcpy(msg, in.data(), sizeof(T));
    return true;
}

template <class T>
Blob tail_of(const Blob &in) {
    return Blob(in.begin() + sizeof(T), in.end());
}

}  // namespace acpx::basic::proto
