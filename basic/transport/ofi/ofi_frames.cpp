// The libfabric transport (ofi_transport.hpp): runtime messages as
// frames through posted receive buffers, and atomics a target's progress
// carries out (ofi_wire.hpp).
#include "ofi_transport.hpp"

#include "../../errors.hpp"
#include "../cpu_atomic.hpp"

namespace acpx::basic::ofi {

int OfiTransport::send(int rank, const void *data, size_t len) {
    if (rank == rank_) {  // messages to self skip the provider
        const auto *p = static_cast<const uint8_t *>(data);
        self_inbox_.emplace_back(p, p + len);
        return kDone;
    }
    split_message(static_cast<uint32_t>(rank_), next_msg_id_++, static_cast<const uint8_t *>(data), len, kFrameBytes,
                  [&](const FrameHeader &h, const uint8_t *payload, size_t n) { queue_frame(rank, h, payload, n); });
    pump_sends();
    return kDone;
}

bool OfiTransport::post_recv(int i) {
    const ssize_t rc = fi_recv(ep_, recv_buffer(i), kFrameBytes, slab_desc_, FI_ADDR_UNSPEC, &recv_ops_[i]);
    if (rc == 0) return true;
    if (rc != -FI_EAGAIN)
        report("ofi", "receive", "cannot post a receive buffer: %s", fab_.strerror(static_cast<int>(-rc)));
    return false;
}

void OfiTransport::received(int i, size_t len) {
    const uint8_t *b = recv_buffer(i);
    FrameHeader h;
    if (len >= sizeof h) {
        std::memcpy(&h, b, sizeof h);
        dispatch(h, b + sizeof h, len - sizeof h);
    } else {
        report("ofi", "receive", "dropped a %zu-byte frame, shorter than its header", len);
    }
    if (!post_recv(i)) reposts_.push_back(i);
    while (!reposts_.empty() && post_recv(reposts_.front())) reposts_.pop_front();
}

void OfiTransport::dispatch(const FrameHeader &h, const uint8_t *payload, size_t n) {
    switch (h.kind) {
        case FrameKind::kMessage: {
            if (h.offset == 0 && n == h.total) {  // whole: hand over without a copy
                deliver_message(payload, n);
                return;
            }
            bool malformed = false;
            if (reassembly_.add(h, payload, n, &reassembled_, &malformed)) {
                deliver_message(reassembled_.data(), reassembled_.size());
            } else if (malformed) {
                report("ofi", "receive", "dropped a malformed frame from rank %u", h.from);
            }
            return;
        }
        case FrameKind::kAtomicRequest: {
            AtomicRequest req;
            if (n != sizeof req) break;
            std::memcpy(&req, payload, sizeof req);
            const AtomicReply rep = execute_atomic(req);
            send_frame(static_cast<int>(h.from), FrameKind::kAtomicReply, &rep, sizeof rep);
            return;
        }
        case FrameKind::kAtomicReply: {
            AtomicReply rep;
            if (n != sizeof rep) break;
            std::memcpy(&rep, payload, sizeof rep);
            auto it = pending_atomics_.find(rep.id);
            if (it == pending_atomics_.end()) break;
            Op *o = it->second;
            pending_atomics_.erase(it);
            if (rep.status != 0)
                report("ofi", "atomic",
                       "rank %d refused it: the address is not in a "
                       "registration with that key",
                       o->rank);
            o->out = rep.old;
            finish(o, rep.status == 0 ? 0 : -1);
            return;
        }
    }
    report("ofi", "receive", "dropped a malformed frame (kind %u, %zu bytes) from rank %u",
           static_cast<unsigned>(h.kind), n, h.from);
}

AtomicReply OfiTransport::execute_atomic(const AtomicRequest &q) {
    AtomicReply rep{q.id, 0, -1, 0};
    auto it = by_key_.find(q.key);
    if (it == by_key_.end()) return rep;
    const OfiRegion *r = it->second;
    if (q.raddr < r->base || q.raddr + q.width > r->base + r->len || q.op > 5 || (q.width != 4 && q.width != 8) ||
        q.raddr % q.width != 0)
        return rep;
    const auto op = static_cast<AtomicOp>(q.op);
    if (q.width == 4)
        rep.old = apply_cpu_atomic<uint32_t>(op, reinterpret_cast<uint32_t *>(q.raddr),
                                             static_cast<uint32_t>(q.operand), static_cast<uint32_t>(q.swap_in));
    else
        rep.old = apply_cpu_atomic<uint64_t>(op, reinterpret_cast<uint64_t *>(q.raddr), q.operand, q.swap_in);
    rep.status = 0;
    return rep;
}

void OfiTransport::queue_frame(int rank, const FrameHeader &h, const uint8_t *payload, size_t n) {
    const size_t total = sizeof h + n;
    // Small and nothing queued before it: inject, no buffer to wait for.
    if (out_.empty() && total <= kInjectFast && total <= info_->tx_attr->inject_size) {
        uint8_t buf[kInjectFast];
        std::memcpy(buf, &h, sizeof h);
        std::memcpy(buf + sizeof h, payload, n);
        const ssize_t rc = fi_inject(ep_, buf, total, addrs_[rank]);
        if (rc == 0) {
            poke(rank);
            return;
        }
        if (rc != -FI_EAGAIN) {
            report("ofi", "send", "rank %d: %s", rank, fab_.strerror(static_cast<int>(-rc)));
            return;
        }
    }
    OutFrame f{rank, std::vector<uint8_t>(total)};
    std::memcpy(f.bytes.data(), &h, sizeof h);
    std::memcpy(f.bytes.data() + sizeof h, payload, n);
    out_.push_back(std::move(f));
}

void OfiTransport::pump_sends() {
    while (!out_.empty() && !free_sends_.empty()) {
        const int i = free_sends_.back();
        OutFrame &f = out_.front();
        std::memcpy(send_buffer(i), f.bytes.data(), f.bytes.size());
        const ssize_t rc = fi_send(ep_, send_buffer(i), f.bytes.size(), slab_desc_, addrs_[f.rank], &send_ops_[i]);
        if (rc == -FI_EAGAIN) return;
        if (rc != 0) {
            report("ofi", "send", "rank %d: %s", f.rank, fab_.strerror(static_cast<int>(-rc)));
        } else {
            free_sends_.pop_back();
            send_ops_[i].rank = f.rank;
            count_in_flight(f.rank, +1);
            poke(f.rank);
        }
        out_.pop_front();
    }
}

}  // namespace acpx::basic::ofi
