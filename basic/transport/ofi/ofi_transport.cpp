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

#include "../../errors.hpp"
#include "../cpu_atomic.hpp"
#include "../transport.hpp"
#include "ofi_select.hpp"
#include "ofi_wire.hpp"
#include "wake_channel.hpp"

namespace acpx::basic {
namespace {

using namespace ofi;

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

    bool init() {
        std::string why;
        if (!load_fabric(&fab_, &why)) return report("acp_init", "ACP_TRANSPORT", "ofi: %s", why.c_str());
        Selection s = select_provider(fab_);
        if (!s.info) return false;
        info_ = s.info;
        mr_mode_ = info_->domain_attr->mr_mode;
        int rc = fab_.fabric(info_->fabric_attr, &fabric_, nullptr);
        if (rc == 0) rc = fi_domain(fabric_, info_, &domain_, nullptr);
        if (rc) return fail("fabric/domain", rc);
        fi_av_attr av{};
        av.type = FI_AV_TABLE;
        av.count = static_cast<size_t>(procs_);
        if ((rc = fi_av_open(domain_, &av, &av_, nullptr))) return fail("address vector", rc);
        if (!open_cq()) return false;
        if ((rc = fi_endpoint(domain_, info_, &ep_, nullptr))) return fail("endpoint", rc);
        if ((rc = fi_ep_bind(ep_, &av_->fid, 0))) return fail("endpoint/av", rc);
        if ((rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV))) return fail("endpoint/cq", rc);
        if ((rc = fi_enable(ep_))) return fail("endpoint enable", rc);
        agent_atomics_ =
            force_agent_atomics_ || !s.provider_atomics || (mr_mode_ & FI_MR_LOCAL) || !provider_has_every_atomic();
        slab_.resize(static_cast<size_t>(kRecvBuffers + kSendBuffers) * kFrameBytes);
        if (!register_raw(slab_.data(), slab_.size(), FI_SEND | FI_RECV, &slab_mr_)) return false;
        slab_desc_ = fi_mr_desc(slab_mr_);
        recv_ops_.resize(kRecvBuffers);
        for (int i = 0; i < kRecvBuffers; ++i) {
            recv_ops_[i].kind = Op::kRecv;
            recv_ops_[i].index = i;
            if (!post_recv(i)) return false;
        }
        send_ops_.resize(kSendBuffers);
        for (int i = 0; i < kSendBuffers; ++i) {
            send_ops_[i].kind = Op::kSend;
            send_ops_[i].index = i;
            free_sends_.push_back(i);
        }
        return true;
    }

    const char *name() const override { return "ofi"; }

    std::string describe() const override {
        char buf[256];
        std::snprintf(buf, sizeof buf, "libfabric %u.%u, provider %s, domain %s, atomics %s%s%s",
                      FI_MAJOR(fab_.version()), FI_MINOR(fab_.version()), info_->fabric_attr->prov_name,
                      info_->domain_attr->name, agent_atomics_ ? "by the target's agent" : "by the provider",
                      wake_ ? ", no wait fd (peers wake the agent through a socket)" : "",
                      (mr_mode_ & FI_MR_VIRT_ADDR) ? "" : ", offset addressing");
        return buf;
    }

    // [4-byte length][the provider's address][wake channel name, if any]
    Blob local_address() override {
        size_t len = 0;
        fi_getname(&ep_->fid, nullptr, &len);
        Blob b(sizeof(uint32_t) + len);
        if (fi_getname(&ep_->fid, b.data() + sizeof(uint32_t), &len) != 0) return {};
        const auto n = static_cast<uint32_t>(len);
        std::memcpy(b.data(), &n, sizeof n);
        b.resize(sizeof n + len);
        if (wake_) b.insert(b.end(), wake_->name().begin(), wake_->name().end());
        return b;
    }

    bool connect(const std::vector<Blob> &addresses) override {
        addrs_.assign(addresses.size(), FI_ADDR_NOTAVAIL);
        std::vector<std::string> wake_names(addresses.size());
        for (size_t r = 0; r < addresses.size(); ++r) {
            const Blob &a = addresses[r];
            uint32_t len = 0;
            if (a.size() >= sizeof len) std::memcpy(&len, a.data(), sizeof len);
            if (a.size() < sizeof len + len || len == 0)
                return report("acp_init", "libfabric address",
                              "rank %zu sent no libfabric "
                              "address (do all ranks use ACP_TRANSPORT=ofi?)",
                              r);
            const uint8_t *name = a.data() + sizeof len + len;
            wake_names[r].assign(name, a.data() + a.size());
            const int n = fi_av_insert(av_, a.data() + sizeof len, 1, &addrs_[r], 0, nullptr);
            if (n != 1)
                return report("acp_init", "libfabric address",
                              "cannot add rank %zu's address "
                              "to the address vector (%s)",
                              r, fab_.strerror(n < 0 ? -n : FI_EINVAL));
        }
        if (wake_) wake_->set_peers(wake_names);
        return true;
    }

    std::unique_ptr<MemRegion> register_memory(void *addr, size_t len) override {
        auto r = std::make_unique<OfiRegion>();
        r->owner = this;
        r->base = reinterpret_cast<uintptr_t>(addr);
        r->len = len;
        if (!register_raw(addr, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, &r->mr)) return nullptr;
        r->key = fi_mr_key(r->mr);
        const WireKey wk{r->key, r->base};
        const auto *p = reinterpret_cast<const uint8_t *>(&wk);
        r->rkey.assign(p, p + sizeof wk);
        by_base_.emplace(r->base, r.get());
        by_key_[r->key] = r.get();
        return r;
    }

    void forget(OfiRegion *r) {
        by_key_.erase(r->key);
        auto [b, e] = by_base_.equal_range(r->base);
        for (auto it = b; it != e; ++it)
            if (it->second == r) {
                by_base_.erase(it);
                break;
            }
    }

    std::unique_ptr<RemoteKey> unpack_rkey(int rank, const Blob &rkey) override {
        if (rkey.size() != sizeof(WireKey)) {
            report("ofi", "rkey",
                   "rank %d sent a %zu-byte key, not a libfabric one (do all "
                   "ranks use ACP_TRANSPORT=ofi?)",
                   rank, rkey.size());
            return nullptr;
        }
        auto k = std::make_unique<OfiKey>();
        std::memcpy(&k->k, rkey.data(), sizeof k->k);
        return k;
    }

    int put(int rank, const void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        if (len == 0) return kDone;
        return start_rma(Op::kWrite, rank, const_cast<void *>(local), len, raddr, rkey, c);
    }

    int get(int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        if (len == 0) return kDone;
        return start_rma(Op::kRead, rank, local, len, raddr, rkey, c);
    }

    int atomic(int rank, AtomicOp op, size_t width, const uint64_t *operand, uint64_t *result, uint64_t raddr,
               RemoteKey &rkey, Completion *c) override {
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

    int send(int rank, const void *data, size_t len) override {
        if (rank == rank_) {  // messages to self skip the provider
            const auto *p = static_cast<const uint8_t *>(data);
            self_inbox_.emplace_back(p, p + len);
            return kDone;
        }
        split_message(
            static_cast<uint32_t>(rank_), next_msg_id_++, static_cast<const uint8_t *>(data), len, kFrameBytes,
            [&](const FrameHeader &h, const uint8_t *payload, size_t n) { queue_frame(rank, h, payload, n); });
        pump_sends();
        return kDone;
    }

    unsigned progress() override {
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

    int event_fd() override { return efd_; }

    bool arm() override {
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

    void shutdown(double timeout_s) override {
        // Our own sends must leave (the peers wait for them in the final
        // barrier); nothing else is awaited.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while ((!out_.empty() || free_sends_.size() < static_cast<size_t>(kSendBuffers) || !backlog_.empty()) &&
               std::chrono::steady_clock::now() < deadline)
            progress();
        shutting_down_ = true;
    }

  private:
    bool fail(const char *what, int rc) {
        return report("acp_init", "libfabric", "%s (provider %s): %s", what, info_->fabric_attr->prov_name,
                      fab_.strerror(rc < 0 ? -rc : rc));
    }

    bool open_cq() {
        fi_cq_attr ca{};
        ca.format = FI_CQ_FORMAT_MSG;
        ca.wait_obj = FI_WAIT_FD;
        ca.size = static_cast<size_t>(kRecvBuffers + kSendBuffers) * 4;
        if (fi_cq_open(domain_, &ca, &cq_, nullptr) == 0 && fi_control(&cq_->fid, FI_GETWAIT, &efd_) == 0) return true;
        if (cq_) fi_close(&cq_->fid);
        cq_ = nullptr;
        // No wait fd: peers poke this process's wake channel after posting
        // work for it (wake_channel.hpp).
        ca.wait_obj = FI_WAIT_NONE;
        const int rc = fi_cq_open(domain_, &ca, &cq_, nullptr);
        if (rc) return fail("completion queue", rc);
        wake_ = std::make_unique<WakeChannel>();
        if (!wake_->open())
            return report("acp_init", "libfabric",
                          "provider %s has no wait fd and acpx cannot "
                          "open its wake socket: %s",
                          info_->fabric_attr->prov_name, std::strerror(errno));
        efd_ = wake_->fd();
        return true;
    }

    bool provider_has_every_atomic() {
        static constexpr fi_op kFetch[] = {FI_ATOMIC_WRITE, FI_SUM, FI_BXOR, FI_BOR, FI_BAND};
        for (fi_datatype dt : {FI_UINT32, FI_UINT64}) {
            fi_atomic_attr a{};
            for (fi_op op : kFetch)
                if (fi_query_atomic(domain_, dt, op, &a, FI_FETCH_ATOMIC) != 0) return false;
            if (fi_query_atomic(domain_, dt, FI_CSWAP, &a, FI_COMPARE_ATOMIC) != 0) return false;
        }
        return true;
    }

    bool register_raw(void *addr, size_t len, uint64_t access, fid_mr **mr) {
        const uint64_t want_key = (mr_mode_ & FI_MR_PROV_KEY) ? 0 : next_key_++;
        int rc = fi_mr_reg(domain_, addr, len, access, 0, want_key, 0, mr, nullptr);
        if (rc == 0 && (mr_mode_ & FI_MR_ENDPOINT)) {
            rc = fi_mr_bind(*mr, &ep_->fid, 0);
            if (rc == 0) rc = fi_mr_enable(*mr);
        }
        if (rc) {
            if (*mr) fi_close(&(*mr)->fid);
            *mr = nullptr;
            return report("acp_register_memory", "addr",
                          "libfabric (%s) cannot register %zu "
                          "bytes: %s",
                          info_->fabric_attr->prov_name, len, fab_.strerror(-rc));
        }
        return true;
    }

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
    bool local_desc(Op *o) {
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

    int start_rma(Op::Kind kind, int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) {
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

    // Posts o, or keeps it for progress() if the provider is out of room.
    int submit(Op *o) {
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

    ssize_t post(Op *o) {
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
                return fi_fetch_atomic(ep_, &o->in[0], 1, nullptr, &o->out, nullptr, to, o->raddr, o->key, o->dt,
                                       o->aop, o);
            case Op::kCompareAtomic:
                return fi_compare_atomic(ep_, &o->in[0], 1, nullptr, &o->in[1], nullptr, &o->out, nullptr, to, o->raddr,
                                         o->key, o->dt, o->aop, o);
            default: return -FI_EINVAL;
        }
    }

    static const char *kind_name(const Op *o) {
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

    unsigned retry_backlog() {
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

    void release(Op *o) {
        if (o->temp_mr) fi_close(&o->temp_mr->fid);
        delete o;
    }

    // An RMA or atomic operation ended: tell the runtime, free the context.
    void finish(Op *o, int status) {
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

    void completed(Op *o, size_t len) {
        switch (o->kind) {
            case Op::kRecv: received(o->index, len); return;
            case Op::kSend:
                free_sends_.push_back(o->index);
                count_in_flight(o->rank, -1);
                return;
            default: finish(o, 0);
        }
    }

    void completion_error() {
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

    uint8_t *recv_buffer(int i) { return slab_.data() + static_cast<size_t>(i) * kFrameBytes; }
    uint8_t *send_buffer(int i) { return slab_.data() + static_cast<size_t>(kRecvBuffers + i) * kFrameBytes; }

    bool post_recv(int i) {
        const ssize_t rc = fi_recv(ep_, recv_buffer(i), kFrameBytes, slab_desc_, FI_ADDR_UNSPEC, &recv_ops_[i]);
        if (rc == 0) return true;
        if (rc != -FI_EAGAIN)
            report("ofi", "receive", "cannot post a receive buffer: %s", fab_.strerror(static_cast<int>(-rc)));
        return false;
    }

    void received(int i, size_t len) {
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

    void dispatch(const FrameHeader &h, const uint8_t *payload, size_t n) {
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

    // An atomic a peer asked this process to carry out: on this process's
    // memory, only inside a registration with the key the peer was given.
    AtomicReply execute_atomic(const AtomicRequest &q) {
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

    void send_frame(int rank, FrameKind kind, const void *payload, size_t n) {
        FrameHeader h{kind, {}, static_cast<uint32_t>(rank_), 0, static_cast<uint32_t>(n), 0};
        queue_frame(rank, h, static_cast<const uint8_t *>(payload), n);
        pump_sends();
    }

    struct OutFrame {
        int rank;
        std::vector<uint8_t> bytes;
    };

    void queue_frame(int rank, const FrameHeader &h, const uint8_t *payload, size_t n) {
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

    void pump_sends() {
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

    void teardown() {
        for (Op *o : backlog_) release(o);
        backlog_.clear();
        for (auto &[id, o] : pending_atomics_) release(o);
        pending_atomics_.clear();
        if (ep_) fi_close(&ep_->fid);
        if (slab_mr_) fi_close(&slab_mr_->fid);
        if (cq_) fi_close(&cq_->fid);
        if (av_) fi_close(&av_->fid);
        if (domain_) fi_close(&domain_->fid);
        if (fabric_) fi_close(&fabric_->fid);
        if (info_) fab_.freeinfo(info_);
        ep_ = nullptr;
        info_ = nullptr;
    }

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

OfiRegion::~OfiRegion() {
    owner->forget(this);
    if (mr) fi_close(&mr->fid);
}

}  // namespace

std::unique_ptr<Transport> make_ofi_transport(int rank, int procs, bool agent_atomics) {
    auto t = std::make_unique<OfiTransport>(rank, procs, agent_atomics);
    if (!t->init()) return nullptr;
    return t;
}

}  // namespace acpx::basic
