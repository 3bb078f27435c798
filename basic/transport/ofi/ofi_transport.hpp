// The libfabric (OFI) transport: one reliable-datagram endpoint per
// process, RMA with fi_writemsg(FI_DELIVERY_COMPLETE) so a write's
// completion means the bytes landed, atomics with fi_fetch_atomic /
// fi_compare_atomic where the provider has every one acpx needs (else
// carried out by the target's progress, see ofi_wire.hpp), runtime
// messages as frames through posted receive buffers, and the completion
// queue's wait fd for the agent's sleep.
//
// The runtime serialises every call, so the domain is FI_THREAD_DOMAIN and
// nothing here locks. An operation the provider refuses for lack of
// resources (-FI_EAGAIN) is kept in a backlog and posted again by
// progress(): callers never see EAGAIN and no completion runs inside them.
//
// The class is declared here and defined in three files by job:
// ofi_transport.cpp (opening, addresses, registration, closing),
// ofi_rma.cpp (RMA, atomics, the completion queue, the backlog) and
// ofi_frames.cpp (runtime messages and agent-executed atomics as frames).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <unistd.h>
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>

#include "../transport.hpp"
#include "fabric_library.hpp"
#include "ofi_wire.hpp"
#include "wake_channel.hpp"

namespace acpx::basic::ofi {

constexpr size_t kFrameBytes = 16384;  // one receive buffer, header included
constexpr int kRecvBuffers = 64;
constexpr int kSendBuffers = 64;
constexpr size_t kInjectFast = 512;  // small frames are built on the stack
// Largest single RMA operation. libfabric 1.17's shm never completes a
// delivery-complete write of 3 MiB or more to a target that only its agent
// progresses (2 MiB does); larger transfers are split.
constexpr size_t kMaxRma = size_t{1} << 20;

class OfiTransport;

// A transfer larger than kMaxRma travels as several operations; the
// caller's completion runs once, when the last of them ends.
struct Split {
    Completion *c;
    unsigned left;
    int status;
};

// The context of every posted operation (FI_CONTEXT2: the provider may use
// the first bytes), with what is needed to post it again after -FI_EAGAIN.
struct Op {
    fi_context2 fc{};
    enum Kind : uint8_t { kWrite, kRead, kFetchAtomic, kCompareAtomic, kAgentAtomic, kRecv, kSend } kind = kWrite;
    int index = -1;  // kRecv, kSend: the buffer
    int rank = -1;
    Completion *c = nullptr;  // RMA and atomics
    void *local = nullptr;
    size_t len = 0;
    uint64_t raddr = 0;  // as the provider wants it (virtual address or offset)
    uint64_t key = 0;
    void *desc = nullptr;
    fid_mr *temp_mr = nullptr;  // FI_MR_LOCAL and no registration covered `local`
    fi_op aop = FI_SUM;
    fi_datatype dt = FI_UINT64;
    uint64_t in[2]{};  // operand, compare value
    uint64_t out = 0;  // the target's previous value
    uint64_t *result = nullptr;
    size_t width = 8;
    Split *split = nullptr;  // part of a larger transfer
};

struct OfiRegion final : MemRegion {
    OfiTransport *owner = nullptr;
    fid_mr *mr = nullptr;
    uintptr_t base = 0;
    size_t len = 0;
    uint64_t key = 0;
    ~OfiRegion() override;
};

// What a peer sends in its rkey blob.
struct WireKey {
    uint64_t key;
    uint64_t base;  // for providers that address by offset (no FI_MR_VIRT_ADDR)
};

struct OfiKey final : RemoteKey {
    WireKey k{};
};

class OfiTransport final : public Transport {
  public:
    OfiTransport(int rank, int procs, bool agent_atomics)
        : rank_(rank), procs_(procs), force_agent_atomics_(agent_atomics) {}
    ~OfiTransport() override { teardown(); }

    bool init();

    const char *name() const override { return "ofi"; }

    std::string describe() const override;

    // [4-byte length][the provider's address][wake channel name, if any]
    Blob local_address() override;

    bool connect(const std::vector<Blob> &addresses) override;
    std::unique_ptr<MemRegion> register_memory(void *addr, size_t len) override;
    void forget(OfiRegion *r);
    std::unique_ptr<RemoteKey> unpack_rkey(int rank, const Blob &rkey) override;

    int put(int rank, const void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        if (len == 0) return kDone;
        return start_rma(Op::kWrite, rank, const_cast<void *>(local), len, raddr, rkey, c);
    }

    int get(int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        if (len == 0) return kDone;
        return start_rma(Op::kRead, rank, local, len, raddr, rkey, c);
    }

    int atomic(int rank, AtomicOp op, size_t width, const uint64_t *operand, uint64_t *result, uint64_t raddr,
               RemoteKey &rkey, Completion *c) override;

    int send(int rank, const void *data, size_t len) override;
    unsigned progress() override;

    int event_fd() override { return efd_; }

    bool arm() override;
    void shutdown(double timeout_s) override;

  private:
    bool fail(const char *what, int rc);  // reports, under acp_init; false

    bool open_cq();
    bool provider_has_every_atomic();
    bool register_raw(void *addr, size_t len, uint64_t access, fid_mr **mr);

    // Operations posted and not yet complete (the wake timer polls while any are).
    bool in_flight() const { return in_flight_ != 0 || !pending_atomics_.empty() || !out_.empty(); }

    // Operations toward each peer that its progress has to carry: while any
    // is outstanding, the peer is poked again at every backup-timer tick
    // (a large transfer needs the target's progress once per segment).
    void count_in_flight(int rank, int delta) {
        if (static_cast<size_t>(rank) >= in_flight_by_rank_.size())
            in_flight_by_rank_.resize(static_cast<size_t>(rank) + 1);
        in_flight_by_rank_[static_cast<size_t>(rank)] += static_cast<unsigned>(delta);
        in_flight_ += static_cast<size_t>(delta);
    }

    void poke(int rank) {
        if (wake_) wake_->poke(rank);
    }

    uint64_t provider_address(uint64_t raddr, const WireKey &k) const {
        return (mr_mode_ & FI_MR_VIRT_ADDR) ? raddr : raddr - k.base;
    }

    // FI_MR_LOCAL: the descriptor of a registration covering [p, p+len), or
    // one made for this operation alone.
    bool local_desc(Op *o);
    int start_rma(Op::Kind kind, int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c);

    // Posts o, or keeps it for progress() if the provider is out of room.
    int submit(Op *o);
    ssize_t post(Op *o);
    static const char *kind_name(const Op *o);
    unsigned retry_backlog();

    void release(Op *o) {
        if (o->temp_mr) fi_close(&o->temp_mr->fid);
        delete o;
    }

    // An RMA or atomic operation ended: tell the runtime, free the context.
    void finish(Op *o, int status);
    void completed(Op *o, size_t len);
    void completion_error();

    uint8_t *recv_buffer(int i) { return slab_.data() + static_cast<size_t>(i) * kFrameBytes; }
    uint8_t *send_buffer(int i) { return slab_.data() + static_cast<size_t>(kRecvBuffers + i) * kFrameBytes; }

    bool post_recv(int i);
    void received(int i, size_t len);
    void dispatch(const FrameHeader &h, const uint8_t *payload, size_t n);

    // An atomic a peer asked this process to carry out: on this process's
    // memory, only inside a registration with the key the peer was given.
    AtomicReply execute_atomic(const AtomicRequest &q);

    void send_frame(int rank, FrameKind kind, const void *payload, size_t n) {
        FrameHeader h{kind, {}, static_cast<uint32_t>(rank_), 0, static_cast<uint32_t>(n), 0};
        queue_frame(rank, h, static_cast<const uint8_t *>(payload), n);
        pump_sends();
    }

    struct OutFrame {
        int rank;
        std::vector<uint8_t> bytes;
    };
    void queue_frame(int rank, const FrameHeader &h, const uint8_t *payload, size_t n);
    void pump_sends();
    void teardown();

    int rank_;
    int procs_;
    bool force_agent_atomics_;
    bool agent_atomics_ = false;
    bool shutting_down_ = false;
    Fabric fab_;  // libfabric's entry points, opened by init()
    fi_info *info_ = nullptr;
    uint64_t mr_mode_ = 0;
    fid_fabric *fabric_ = nullptr;
    fid_domain *domain_ = nullptr;
    fid_av *av_ = nullptr;
    fid_cq *cq_ = nullptr;
    fid_ep *ep_ = nullptr;
    int efd_ = -1;
    std::unique_ptr<WakeChannel> wake_;  // providers without a wait fd
    unsigned idle_sleeps_ = 0;
    std::vector<fi_addr_t> addrs_;
    uint64_t next_key_ = 1;
    std::multimap<uintptr_t, OfiRegion *> by_base_;     // FI_MR_LOCAL look-ups
    std::unordered_map<uint64_t, OfiRegion *> by_key_;  // the target's atomic checks
    std::vector<uint8_t> slab_;                         // receive buffers, then send buffers
    fid_mr *slab_mr_ = nullptr;
    void *slab_desc_ = nullptr;
    std::vector<Op> recv_ops_, send_ops_;
    std::vector<int> free_sends_;
    std::deque<int> reposts_;
    std::deque<OutFrame> out_;
    std::deque<Op *> backlog_;
    std::deque<Blob> self_inbox_;
    uint32_t next_msg_id_ = 0;
    Reassembly reassembly_;
    std::vector<uint8_t> reassembled_;
    uint64_t next_atomic_id_ = 1;
    size_t in_flight_ = 0;  // provider RMA, atomics and sends posted or in the backlog
    std::vector<unsigned> in_flight_by_rank_;
    std::unordered_map<uint64_t, Op *> pending_atomics_;
};

}  // namespace acpx::basic::ofi
