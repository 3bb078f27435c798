// The transport interface of the basic layer. One object per process,
// chosen once at acp_init (ACP_TRANSPORT); the runtime calls it only with
// its lock held, so implementations need no locking of their own.
//
// Every operation that may finish later takes a Completion. An operation
// returns kDone when it finished inside the call (the completion is NOT
// called), kPending when the completion will be called from a later
// progress(), or a negative value on an immediate error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace acpx::basic {

using Blob = std::vector<uint8_t>;

// head_n bytes at head, then body_n at body, as one Blob: appended, not
// resized and copied over (resize would zero the bytes first).
inline Blob joined(const void *head, size_t head_n, const void *body, size_t body_n) {
    const auto *h = static_cast<const uint8_t *>(head), *b = static_cast<const uint8_t *>(body);
    Blob m;
    m.reserve(head_n + body_n);
    m.insert(m.end(), h, h + head_n);
    m.insert(m.end(), b, b + body_n);
    return m;
}

constexpr int kDone = 0;
constexpr int kPending = 1;
// put: as kPending, and the source bytes were copied out already: the
// caller may change them before the completion.
constexpr int kPendingSourceFree = 2;

struct Completion {
    // status 0: success; otherwise the operation failed.
    void (*fn)(Completion *self, int status) = nullptr;
};

enum class AtomicOp { kCas, kSwap, kAdd, kXor, kOr, kAnd };

// A local registration as the transport sees it.
struct MemRegion {
    virtual ~MemRegion() = default;
    Blob rkey;  // what a peer needs to reach this region
};

// A peer's registration, unpacked for use from this process.
struct RemoteKey {
    virtual ~RemoteKey() = default;
};

// Incoming message: head_n bytes at head (0: none), then len at data, as
// one message; the runtime copies what it needs before returning.
using MessageHandler = void (*)(void *arg, const void *head, size_t head_n, const void *data, size_t len);

// Called when the transport finds a peer unreachable.
using PeerFailureHandler = void (*)(void *arg, int rank, const char *why);

class Transport {
  public:
    virtual ~Transport() = default;

    virtual const char *name() const = 0;
    // One line describing what the transport selected (devices, protocols).
    virtual std::string describe() const = 0;
    // One line describing how this process reaches `rank` (the transports
    // and devices in use), for ACP_VERBOSE; may connect to it. "" where the
    // transport cannot say.
    virtual std::string describe_path(int rank) {
        (void)rank;
        return "";
    }

    // The address peers need to connect to this process.
    virtual Blob local_address() = 0;
    // Given every rank's address (index = rank), prepares to reach them.
    virtual bool connect(const std::vector<Blob> &addresses) = 0;
    // Before connect: which ranks run on another node (index = rank). A
    // transport that can watch those connections for a dead peer does so
    // (peer_failed), where on-node paths cannot be watched at no cost.
    void set_off_node(std::vector<uint8_t> off_node) { off_node_ = std::move(off_node); }

    virtual std::unique_ptr<MemRegion> register_memory(void *addr, size_t len) = 0;
    virtual std::unique_ptr<RemoteKey> unpack_rkey(int rank, const Blob &rkey) = 0;

    // Writes [local, local+len) to raddr at rank; completes when the bytes
    // are visible at the target (remote completion). May return
    // kPendingSourceFree.
    virtual int put(int rank, const void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) = 0;
    // Orders what this process issues from here on after what it issued
    // before, as each target sees it (OpenSHMEM's fence): a put issued
    // after the fence is visible at its target only after every earlier
    // put, get and atomic to that target. False where the transport cannot
    // (the runtime then waits for completion instead).
    virtual bool fence() { return false; }
    // The largest put to another node that goes better as one message
    // (stored by the target's progress) than as RMA and its completion.
    virtual size_t message_put_max() const { return 4096; }
    // A put by message larger than this goes as pieces of this size, one
    // message each (signal_put.cpp): the largest message the transport
    // receives in one piece.
    virtual size_t message_piece() const { return 32768; }
    // The largest body a held put (layer::put_held) to another node
    // carries better than an RMA put after the receiver's go-ahead. On the
    // two-host bed, an allgather's 64 KiB blocks over tcp;ofi_rxm took 134
    // us a round as held puts and 100 by RMA after a ready byte; 32 KiB
    // blocks 73 and 88.
    virtual size_t held_put_max() const { return 32768; }
    // Someone waits for completions: what the transport holds back to
    // batch (UCX: the flushes that complete puts) goes at the next progress.
    virtual void flush_now() {}
    // Reads [raddr, raddr+len) at rank into local.
    virtual int get(int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) = 0;
    // Applies op atomically at raddr (width 4 or 8 bytes) and stores the
    // previous value in *result. For kCas, *operand holds the compare value
    // and *result the new value on entry (UCX's convention). Both must stay valid
    // until the operation completes (the runtime owns them).
    virtual int atomic(int rank, AtomicOp op, size_t width, const uint64_t *operand, uint64_t *result, uint64_t raddr,
                       RemoteKey &rkey, Completion *c) = 0;
    // Sends a small message to rank's message handler. The data is copied
    // before the call returns. No ordering between messages is promised.
    virtual int send(int rank, const void *data, size_t len) = 0;
    // The same, the message handed over: a transport may send from its
    // memory without copying it.
    virtual int send_owned(int rank, Blob &&m) { return send(rank, m.data(), m.size()); }
    // One message of head (copied before the call returns; at most 256
    // bytes) and then body, the body sent from where it is (the receiver
    // may get them apart: deliver_message's head): kPending, and `released` runs once
    // the transport no longer reads it (status 0, or -1: the send failed);
    // kDone where nothing reads it any more (released is not called); <0
    // on an immediate error. By default the body is copied out (kDone).
    virtual int send_from(int rank, const void *head, size_t head_n, const void *body, size_t body_n,
                          Completion *released) {
        (void)released;
        return send_owned(rank, joined(head, head_n, body, body_n)) < 0 ? -1 : kDone;
    }

    void set_message_handler(MessageHandler h, void *arg) {
        on_msg_ = h;
        on_msg_arg_ = arg;
    }
    void set_peer_failure_handler(PeerFailureHandler h, void *arg) {
        on_fail_ = h;
        on_fail_arg_ = arg;
    }

    // Makes progress; returns the number of events handled (0: idle).
    virtual unsigned progress() = 0;
    // A file descriptor that becomes readable when progress() has work.
    virtual int event_fd() = 0;
    // Prepares event_fd() for sleeping. False: events are pending, call
    // progress() instead of sleeping.
    virtual bool arm() = 0;

    // Closes connections, waiting at most timeout_s for in-flight traffic.
    virtual void shutdown(double timeout_s) = 0;

  protected:
    // For implementations: hand an incoming message, or a peer found
    // unreachable, to whoever set the handlers.
    void deliver_message(const void *data, size_t len) { deliver_message(nullptr, 0, data, len); }
    void deliver_message(const void *head, size_t head_n, const void *data, size_t len) {
        if (on_msg_) on_msg_(on_msg_arg_, head, head_n, data, len);
    }
    void peer_failed(int rank, const char *why) {
        if (on_fail_) on_fail_(on_fail_arg_, rank, why);
    }

  protected:
    bool off_node(int rank) const { return static_cast<size_t>(rank) < off_node_.size() && off_node_[rank]; }

  private:
    std::vector<uint8_t> off_node_;
    MessageHandler on_msg_ = nullptr;
    void *on_msg_arg_ = nullptr;
    PeerFailureHandler on_fail_ = nullptr;
    void *on_fail_arg_ = nullptr;
};

// The transport named by ACP_TRANSPORT ("ucx", "ofi"); nullptr with a
// report() on failure (factory.cpp).
struct Config;
std::unique_ptr<Transport> make_transport(const Config &cfg, int rank, int procs);

std::unique_ptr<Transport> make_ucx_transport(int rank, int procs);
// agent_atomics: every atomic carried out by the target (ACP_OFI_ATOMICS=agent).
std::unique_ptr<Transport> make_ofi_transport(int rank, int procs, bool agent_atomics);

}  // namespace acpx::basic
