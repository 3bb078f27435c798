// The libfabric transport (ofi_transport.hpp): RMA and atomics, the
// completion queue, and the backlog of operations the provider refused
// for lack of resources.
#include "ofi_transport.hpp"

#include "../../errors.hpp"
#include "../cpu_atomic.hpp"

namespace acpx::basic::ofi {

int OfiTransport::atomic(int rank, AtomicOp op, size_t width, const uint64_t *operand, uint64_t *result, uint64_t raddr,
                         RemoteKey &rkey, Completion *c) {
    const WireKey &k = static_cast<OfiKey &>(rkey).k;
    if (agent_atomics_) {
        AtomicRequest req{0, raddr, k.key, *operand, *result, static_cast<uint8_t>(op), static_cast<uint8_t>(width),
                          {}};
        if (rank == rank_) {  // this process's own memory: no message
            const AtomicReply rep = execute_atomic(req);
            if (rep.status != 0)
                return report("ofi", "atomic", "address 0x%llx is not in a registration",
                              static_cast<unsigned long long>(raddr)),
                       -1;
            std::memcpy(result, &rep.old, width);
            return kDone;
        }
        req.id = next_atomic_id_++;
        pending_atomics_[req.id] =
            new Op{.kind = Op::kAgentAtomic, .rank = rank, .c = c, .result = result, .width = width};
        send_frame(rank, FrameKind::kAtomicRequest, &req, sizeof req);
        return kPending;
    }
    auto *o = new Op;
    o->rank = rank;
    o->c = c;
    o->result = result;
    o->width = width;
    static constexpr fi_op kOps[] = {FI_CSWAP, FI_ATOMIC_WRITE, FI_SUM, FI_BXOR, FI_BOR, FI_BAND};
    o->kind = op == AtomicOp::kCas ? Op::kCompareAtomic : Op::kFetchAtomic;
    o->aop = kOps[static_cast<int>(op)];
    o->dt = width == 4 ? FI_UINT32 : FI_UINT64;
    // The provider reads its inputs from here, not from the runtime's
    // words: kCas passes the new value in *result (see transport.hpp).
    if (op == AtomicOp::kCas) {
        o->in[0] = *result;
        o->in[1] = *operand;
    } else {
        o->in[0] = *operand;
    }
    o->raddr = provider_address(raddr, k);
    o->key = k.key;
    return submit(o);
}

unsigned OfiTransport::progress() {
    unsigned n = 0;
    while (!self_inbox_.empty()) {
        Blob m = std::move(self_inbox_.front());
        self_inbox_.pop_front();
        deliver_message(m.data(), m.size());
        ++n;
    }
    fi_cq_msg_entry ev[16];
    for (;;) {
        const ssize_t got = fi_cq_read(cq_, ev, 16);
        if (got == -FI_EAGAIN) break;
        if (got == -FI_EAVAIL) {
            completion_error();
            ++n;
            continue;
        }
        if (got < 0) {
            report("ofi", "completion queue", "fi_cq_read: %s", fab_.strerror(static_cast<int>(-got)));
            break;
        }
        for (ssize_t i = 0; i < got; ++i) completed(static_cast<Op *>(ev[i].op_context), ev[i].len);
        n += static_cast<unsigned>(got);
        if (got < 16) break;
    }
    n += retry_backlog();
    pump_sends();
    if (n) idle_sleeps_ = 0;
    return n;
}

bool OfiTransport::arm() {
    if (!self_inbox_.empty() || !backlog_.empty() || !reposts_.empty() || (!out_.empty() && !free_sends_.empty()))
        return false;
    if (wake_) {
        if (wake_->drain()) {  // poked since the last progress
            idle_sleeps_ = 0;
            return false;
        }
        const bool busy = in_flight();
        if (busy)
            for (size_t r = 0; r < in_flight_by_rank_.size(); ++r)
                if (in_flight_by_rank_[r]) poke(static_cast<int>(r));
        wake_->arm_timer(busy, idle_sleeps_++ < 64);
        return true;
    }
    fid *f[] = {&cq_->fid};
    return fi_trywait(fabric_, f, 1) == FI_SUCCESS;
}

bool OfiTransport::local_desc(Op *o) {
    if (!(mr_mode_ & FI_MR_LOCAL)) return true;
    const uintptr_t p = reinterpret_cast<uintptr_t>(o->local);
    auto it = by_base_.upper_bound(p);
    if (it != by_base_.begin()) {
        --it;
        const OfiRegion *r = it->second;
        if (p + o->len <= r->base + r->len) {
            o->desc = fi_mr_desc(r->mr);
            return true;
        }
    }
    if (!register_raw(o->local, o->len, FI_READ | FI_WRITE, &o->temp_mr)) return false;
    o->desc = fi_mr_desc(o->temp_mr);
    return true;
}

int OfiTransport::start_rma(Op::Kind kind, int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey,
                            Completion *c) {
    const WireKey &k = static_cast<OfiKey &>(rkey).k;
    const size_t parts = (len + kMaxRma - 1) / kMaxRma;
    Split *split = parts > 1 ? new Split{c, static_cast<unsigned>(parts), 0} : nullptr;
    for (size_t i = 0; i < parts; ++i) {
        const size_t off = i * kMaxRma;
        auto *o = new Op;
        o->kind = kind;
        o->rank = rank;
        o->c = c;
        o->split = split;
        o->local = static_cast<char *>(local) + off;
        o->len = std::min(kMaxRma, len - off);
        o->raddr = provider_address(raddr + off, k);
        o->key = k.key;
        const int rc = local_desc(o) ? submit(o) : (delete o, -1);
        if (rc >= 0) continue;
        if (i == 0) {  // nothing posted: an immediate error, no completion
            delete split;
            return -1;
        }
        // Parts already posted complete later; the whole reports failure.
        split->status = -1;
        split->left -= static_cast<unsigned>(parts - i);
        break;
    }
    return kPending;
}

int OfiTransport::submit(Op *o) {
    if (backlog_.empty()) {
        const ssize_t rc = post(o);
        if (rc == 0) {
            count_in_flight(o->rank, +1);
            poke(o->rank);
            return kPending;
        }
        if (rc != -FI_EAGAIN) {
            report("ofi", kind_name(o), "rank %d: %s", o->rank, fab_.strerror(static_cast<int>(-rc)));
            release(o);
            return -1;
        }
    }
    count_in_flight(o->rank, +1);
    backlog_.push_back(o);
    return kPending;
}

ssize_t OfiTransport::post(Op *o) {
    const fi_addr_t to = addrs_[o->rank];
    switch (o->kind) {
        case Op::kWrite: {
            iovec iov{o->local, o->len};
            fi_rma_iov riov{o->raddr, o->len, o->key};
            fi_msg_rma m{};
            m.msg_iov = &iov;
            m.desc = &o->desc;
            m.iov_count = 1;
            m.addr = to;
            m.rma_iov = &riov;
            m.rma_iov_count = 1;
            m.context = o;
            return fi_writemsg(ep_, &m, FI_DELIVERY_COMPLETE | FI_COMPLETION);
        }
        case Op::kRead: return fi_read(ep_, o->local, o->len, o->desc, to, o->raddr, o->key, o);
        case Op::kFetchAtomic:
            return fi_fetch_atomic(ep_, &o->in[0], 1, nullptr, &o->out, nullptr, to, o->raddr, o->key, o->dt, o->aop,
                                   o);
        case Op::kCompareAtomic:
            return fi_compare_atomic(ep_, &o->in[0], 1, nullptr, &o->in[1], nullptr, &o->out, nullptr, to, o->raddr,
                                     o->key, o->dt, o->aop, o);
        default: return -FI_EINVAL;
    }
}

const char *OfiTransport::kind_name(const Op *o) {
    switch (o->kind) {
        case Op::kWrite: return "write";
        case Op::kRead: return "read";
        case Op::kFetchAtomic:
        case Op::kCompareAtomic:
        case Op::kAgentAtomic: return "atomic";
        case Op::kRecv: return "receive";
        case Op::kSend: return "send";
    }
    return "operation";
}

unsigned OfiTransport::retry_backlog() {
    unsigned n = 0;
    while (!backlog_.empty()) {
        Op *o = backlog_.front();
        const ssize_t rc = post(o);
        if (rc == -FI_EAGAIN) break;
        backlog_.pop_front();
        ++n;
        if (rc == 0) poke(o->rank);
        if (rc != 0) {
            report("ofi", kind_name(o), "rank %d: %s", o->rank, fab_.strerror(static_cast<int>(-rc)));
            finish(o, -1);
        }
    }
    return n;
}

void OfiTransport::finish(Op *o, int status) {
    if (o->kind != Op::kAgentAtomic) count_in_flight(o->rank, -1);
    if (status == 0 && o->result) std::memcpy(o->result, &o->out, o->width);
    Completion *c = o->c;
    Split *split = o->split;
    release(o);
    if (split) {
        if (status) split->status = status;
        if (--split->left) return;
        status = split->status;
        delete split;
    }
    c->fn(c, status);
}

void OfiTransport::completed(Op *o, size_t len) {
    switch (o->kind) {
        case Op::kRecv: received(o->index, len); return;
        case Op::kSend:
            free_sends_.push_back(o->index);
            count_in_flight(o->rank, -1);
            return;
        default: finish(o, 0);
    }
}

void OfiTransport::completion_error() {
    fi_cq_err_entry e{};
    if (fi_cq_readerr(cq_, &e, 0) <= 0) return;
    auto *o = static_cast<Op *>(e.op_context);
    if (!o) return;
    if (o->kind == Op::kRecv) {
        if (!shutting_down_ && e.err != FI_ECANCELED) report("ofi", "receive", "%s", fab_.strerror(e.err));
        if (!shutting_down_ && !post_recv(o->index)) reposts_.push_back(o->index);
        return;
    }
    char buf[256];
    const char *why = fi_cq_strerror(cq_, e.prov_errno, e.err_data, buf, sizeof buf);
    report("ofi", kind_name(o), "rank %d: %s (%s)", o->rank, fab_.strerror(e.err), why ? why : "");
    if (o->kind == Op::kSend) {
        free_sends_.push_back(o->index);
        count_in_flight(o->rank, -1);
        peer_failed(o->rank, fab_.strerror(e.err));
        return;
    }
    finish(o, -1);
}

}  // namespace acpx::basic::ofi
