// The libfabric transport (ofi_transport.hpp): opening the endpoint,
// addresses, registration, closing.
#include "ofi_transport.hpp"

#include "../../errors.hpp"
#include "ofi_select.hpp"

namespace acpx::basic::ofi {

bool OfiTransport::fail(const char *what, int rc) {
    return report("acp_init", "libfabric", "%s (provider %s): %s", what, info_->fabric_attr->prov_name,
                  fab_.strerror(rc < 0 ? -rc : rc));
}

bool OfiTransport::init() {
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

std::string OfiTransport::describe() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "libfabric %u.%u, provider %s, domain %s, atomics %s%s%s", FI_MAJOR(fab_.version()),
                  FI_MINOR(fab_.version()), info_->fabric_attr->prov_name, info_->domain_attr->name,
                  agent_atomics_ ? "by the target's agent" : "by the provider",
                  wake_ ? ", no wait fd (peers wake the agent through a socket)" : "",
                  (mr_mode_ & FI_MR_VIRT_ADDR) ? "" : ", offset addressing");
    return buf;
}

Blob OfiTransport::local_address() {
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

bool OfiTransport::connect(const std::vector<Blob> &addresses) {
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

std::unique_ptr<MemRegion> OfiTransport::register_memory(void *addr, size_t len) {
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

void OfiTransport::forget(OfiRegion *r) {
    by_key_.erase(r->key);
    auto [b, e] = by_base_.equal_range(r->base);
    for (auto it = b; it != e; ++it)
        if (it->second == r) {
            by_base_.erase(it);
            break;
        }
}

std::unique_ptr<RemoteKey> OfiTransport::unpack_rkey(int rank, const Blob &rkey) {
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

void OfiTransport::shutdown(double timeout_s) {
    // Our own sends must leave (the peers wait for them in the final
    // barrier); nothing else is awaited.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while ((!out_.empty() || free_sends_.size() < static_cast<size_t>(kSendBuffers) || !backlog_.empty()) &&
           std::chrono::steady_clock::now() < deadline)
        progress();
    shutting_down_ = true;
}

bool OfiTransport::open_cq() {
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

bool OfiTransport::provider_has_every_atomic() {
    static constexpr fi_op kFetch[] = {FI_ATOMIC_WRITE, FI_SUM, FI_BXOR, FI_BOR, FI_BAND};
    for (fi_datatype dt : {FI_UINT32, FI_UINT64}) {
        fi_atomic_attr a{};
        for (fi_op op : kFetch)
            if (fi_query_atomic(domain_, dt, op, &a, FI_FETCH_ATOMIC) != 0) return false;
        if (fi_query_atomic(domain_, dt, FI_CSWAP, &a, FI_COMPARE_ATOMIC) != 0) return false;
    }
    return true;
}

bool OfiTransport::register_raw(void *addr, size_t len, uint64_t access, fid_mr **mr) {
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

void OfiTransport::teardown() {
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

OfiRegion::~OfiRegion() {
    owner->forget(this);
    if (mr) fi_close(&mr->fid);
}

}  // namespace acpx::basic::ofi

namespace acpx::basic {

std::unique_ptr<Transport> make_ofi_transport(int rank, int procs, bool agent_atomics) {
    auto t = std::make_unique<ofi::OfiTransport>(rank, procs, agent_atomics);
    if (!t->init()) return nullptr;
    return t;
}

}  // namespace acpx::basic
