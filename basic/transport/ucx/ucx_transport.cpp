// The UCX (UCP) transport: RMA put/get, native (or UCX-emulated) atomics,
// active messages for the runtime's control messages, and the worker's
// event fd for sleeping. A put completes remotely by an endpoint flush,
// which costs a message each way: puts share one flush per peer, issued
// when someone waits for a completion (flush_now), when 64 puts wait, or
// 200 us after the oldest; at most one in flight per peer.
//
// The runtime serialises every call (one lock), so the worker is created
// UCS_THREAD_MODE_SERIALIZED: no UCX-internal locking on the fast path.
#include <ucp/api/ucp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "../../errors.hpp"
#include "../transport.hpp"

namespace acpx::basic {
namespace {

constexpr unsigned kAmId = 7;  // the one active-message id acpx uses

// A put by message to another node goes in pieces of kPiece bytes, each
// one eager active message that the TCP transport receives whole into
// one receive segment, which acpx makes room for (kRxSegment, unless the
// user set UCX_TCP_RX_SEG_SIZE: then kUserPiece, which fits UCX's
// default of 64 KiB with its headers). Larger pieces cost fewer
// `sendmsg` calls and larger TCP segments per byte: on the two-host bed a
// 1 MiB bcast round takes ~265 us so, ~325 in 32 KiB pieces, and rounds
// of 8 B-32 KiB the same either way; pieces larger than a segment gain
// nothing (doc/measurements/2026-12-06-tcp-pieces-two-hosts.md). Each
// segment of the receive pool (allocated on the first message from
// another node, 8 at a time) is 136 KiB instead of 64.
constexpr size_t kPiece = 128 * 1024;
constexpr const char *kRxSegment = "136K";
constexpr size_t kUserPiece = 32 * 1024;

class UcxTransport;

struct EpContext {
    UcxTransport *self;
    int rank;
};

struct UcxRegion final : MemRegion {
    ucp_context_h ctx = nullptr;
    ucp_mem_h memh = nullptr;
    ~UcxRegion() override {
        if (memh) ucp_mem_unmap(ctx, memh);
    }
};

struct UcxKey final : RemoteKey {
    ucp_rkey_h rkey = nullptr;
    ~UcxKey() override {
        if (rkey) ucp_rkey_destroy(rkey);
    }
};

// Completes an acpx Completion from a UCX request callback.
void on_request_done(void *request, ucs_status_t status, void *user_data) {
    auto *c = static_cast<Completion *>(user_data);
    ucp_request_free(request);
    c->fn(c, status == UCS_OK ? 0 : -1);
}

// Turns a UCX nbx return value into kDone / kPending / -1.
int outcome(ucs_status_ptr_t sp, const char *what, int rank) {
    if (sp == nullptr) return kDone;
    if (UCS_PTR_IS_ERR(sp)) {
        report("ucx", what, "rank %d: %s", rank, ucs_status_string(UCS_PTR_STATUS(sp)));
        return -1;
    }
    return kPending;
}

ucp_request_param_t completion_param(Completion *c) {
    ucp_request_param_t p{};
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.send = on_request_done;
    p.user_data = c;
    return p;
}

void free_send_buffer(void *request, ucs_status_t, void *user_data) {
    delete[] static_cast<uint8_t *>(user_data);
    ucp_request_free(request);
}

void free_owned_message(void *request, ucs_status_t, void *user_data) {
    delete static_cast<Blob *>(user_data);
    ucp_request_free(request);
}

// A message sent from its body's own memory (send_from): the head's copy,
// which UCX may read until it calls back.
struct SentFrom {
    Blob head;
    Completion *released;
};

void on_sent_from(void *request, ucs_status_t status, void *user_data) {
    auto *s = static_cast<SentFrom *>(user_data);
    Completion *c = s->released;
    delete s;
    ucp_request_free(request);
    c->fn(c, status == UCS_OK ? 0 : -1);
}

class UcxTransport final : public Transport {
  public:
    UcxTransport(int rank, int procs) : rank_(rank), procs_(procs), eps_(procs), unflushed_(procs), flushing_(procs) {}

    ~UcxTransport() override { teardown(); }

    bool init() {
        ucp_config_t *config = nullptr;
        ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
        if (st != UCS_OK) return report("acp_init", "UCX configuration", "%s", ucs_status_string(st));
        const char *user_rx = std::getenv("UCX_TCP_RX_SEG_SIZE");
        if (!user_rx && ucp_config_modify(config, "RX_SEG_SIZE", kRxSegment) == UCS_OK) piece_ = kPiece;
        ucp_params_t params{};
        params.field_mask =
            UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
        params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
        params.estimated_num_eps = static_cast<size_t>(procs_);
        params.mt_workers_shared = 0;
        st = ucp_init(&params, config, &ctx_);
        ucp_config_release(config);
        if (st != UCS_OK) return report("acp_init", "UCX context", "ucp_init failed: %s", ucs_status_string(st));
        ucp_worker_params_t wp{};
        wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
        wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
        st = ucp_worker_create(ctx_, &wp, &worker_);
        if (st != UCS_OK)
            return report("acp_init", "UCX worker", "ucp_worker_create failed: %s", ucs_status_string(st));
        st = ucp_worker_get_efd(worker_, &efd_);
        if (st != UCS_OK)
            return report("acp_init", "UCX worker",
                          "no event fd (%s): a transport "
                          "without wakeup support was selected by UCX_TLS",
                          ucs_status_string(st));
        ucp_am_handler_param_t hp{};
        hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
        hp.id = kAmId;
        hp.cb = &UcxTransport::on_message;
        hp.arg = this;
        st = ucp_worker_set_am_recv_handler(worker_, &hp);
        if (st != UCS_OK)
            return report("acp_init", "UCX worker", "cannot set message handler: %s", ucs_status_string(st));
        for (int r = 0; r < procs_; ++r) ep_ctx_.push_back({this, r});
        return true;
    }

    const char *name() const override { return "ucx"; }

    std::string describe() const override {
        std::string s = std::string("UCX ") + ucp_get_version_string();
        const char *tls = std::getenv("UCX_TLS");
        s += ", UCX_TLS=";
        s += (tls && *tls) ? tls : "(all)";
        return s;
    }

    // From ucp_ep_print_info's lanes ("lane[0]:  3:sysv/memory.0 md[2] ->
    // md[2]/sysv/sysdev[255] amo#0 am am_bw#0"): "sysv/memory.0 (amo am
    // am_bw), ...": each transport/device and what UCX uses it for.
    std::string describe_path(int rank) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return "";
        char *text = nullptr;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) return "";
        ucp_ep_print_info(ep, f);
        std::fclose(f);
        std::istringstream info(std::string(text, len));
        std::free(text);
        std::string out, line;
        while (std::getline(info, line)) {
            if (line.find("lane[") == std::string::npos) continue;
            std::istringstream words(line.substr(line.find(':') + 1));
            std::string lane, word, uses;
            words >> lane;  // "3:sysv/memory.0"
            while (words >> word && word != "->") {
            }
            words >> word;  // the remote md
            while (words >> word) uses += (uses.empty() ? "" : " ") + word.substr(0, word.find('#'));
            out += (out.empty() ? "" : ", ") + lane.substr(lane.find(':') + 1) + " (" + uses + ")";
        }
        return out;
    }

    Blob local_address() override {
        ucp_address_t *addr = nullptr;
        size_t len = 0;
        if (ucp_worker_get_address(worker_, &addr, &len) != UCS_OK) return {};
        Blob b(reinterpret_cast<uint8_t *>(addr), reinterpret_cast<uint8_t *>(addr) + len);
        ucp_worker_release_address(worker_, addr);
        return b;
    }

    bool connect(const std::vector<Blob> &addresses) override {
        addresses_ = addresses;
        return true;  // endpoints are created on first use
    }

    std::unique_ptr<MemRegion> register_memory(void *addr, size_t len) override {
        auto r = std::make_unique<UcxRegion>();
        r->ctx = ctx_;
        ucp_mem_map_params_t mp{};
        mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
        mp.address = addr;
        mp.length = len;
        ucs_status_t st = ucp_mem_map(ctx_, &mp, &r->memh);
        if (st != UCS_OK) {
            report("acp_register_memory", "addr", "UCX cannot register %zu bytes: %s", len, ucs_status_string(st));
            return nullptr;
        }
        void *buf = nullptr;
        size_t size = 0;
        st = ucp_rkey_pack(ctx_, r->memh, &buf, &size);
        if (st != UCS_OK) {
            report("acp_register_memory", "addr", "UCX cannot pack the key: %s", ucs_status_string(st));
            return nullptr;
        }
        r->rkey.assign(static_cast<uint8_t *>(buf), static_cast<uint8_t *>(buf) + size);
        ucp_rkey_buffer_release(buf);
        return r;
    }

    std::unique_ptr<RemoteKey> unpack_rkey(int rank, const Blob &rkey) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return nullptr;
        auto k = std::make_unique<UcxKey>();
        ucs_status_t st = ucp_ep_rkey_unpack(ep, rkey.data(), &k->rkey);
        if (st != UCS_OK) {
            report("ucx", "rkey", "rank %d: cannot unpack a remote key: %s", rank, ucs_status_string(st));
            return nullptr;
        }
        return k;
    }

    int put(int rank, const void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        ucp_request_param_t p{};
        ucs_status_ptr_t sp = ucp_put_nbx(ep, local, len, raddr, static_cast<UcxKey &>(rkey).rkey, &p);
        if (UCS_PTR_IS_ERR(sp)) return outcome(sp, "put", rank);
        if (sp) ucp_request_free(sp);  // the flush tells when it landed
        if (unflushed_[rank].empty()) to_flush_.push_back(rank);
        if (waiting_puts_++ == 0) oldest_put_ = std::chrono::steady_clock::now();
        // On one node the flush goes at the next progress: held back there,
        // UCX's emulated puts (Cross-Memory Attach refused) stall the
        // middle suite's rounds for milliseconds each.
        if (!off_node(rank)) flush_asked_ = true;
        unflushed_[rank].push_back(c);
        return sp ? kPending : kPendingSourceFree;  // no request: UCX copied the bytes out
    }

    bool fence() override { return ucp_worker_fence(worker_) == UCS_OK; }
    // Over TCP a put and its completion cost the put, UCX's answer to it
    // and a flush round trip; eager active messages (in pieces: kPiece)
    // stream better (on the two-host bed a 1 MiB put +
    // completion takes 270 us so, 600 as RMA; a window streams 3.8-4.9
    // GB/s, 1.3-1.7 as RMA), at any size: the pieces go from the put's
    // source (send_from); the source is free once UCX has sent them. (An
    // 8 MiB bcast round between two hosts takes ~1.5 ms in pieces, as
    // Open MPI's, ~4.7 as an RMA put.) Measured over TCP only: over an
    // RDMA transport, UCX's RMA put may well be the better one.
    // libfabric's tcp;ofi_rxm RMA streams better than its messages from
    // 16 KiB (32 KiB window: 3.8 vs 1.4 GB/s): it keeps the default.
    size_t message_put_max() const override { return std::numeric_limits<size_t>::max(); }
    size_t message_piece() const override { return piece_; }
    // Held puts up to the largest signal put: between two hosts an
    // allgather's 32 and 64 KiB blocks take 30 and 56 us a round so, 70
    // and 87 after the receiver's ready byte.
    size_t held_put_max() const override { return 65536; }

    int get(int rank, void *local, size_t len, uint64_t raddr, RemoteKey &rkey, Completion *c) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        ucp_request_param_t p = completion_param(c);
        return outcome(ucp_get_nbx(ep, local, len, raddr, static_cast<UcxKey &>(rkey).rkey, &p), "get", rank);
    }

    int atomic(int rank, AtomicOp op, size_t width, const uint64_t *operand, uint64_t *result, uint64_t raddr,
               RemoteKey &rkey, Completion *c) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        static constexpr ucp_atomic_op_t kOps[] = {UCP_ATOMIC_OP_CSWAP, UCP_ATOMIC_OP_SWAP, UCP_ATOMIC_OP_ADD,
                                                   UCP_ATOMIC_OP_XOR,   UCP_ATOMIC_OP_OR,   UCP_ATOMIC_OP_AND};
        ucp_request_param_t p = completion_param(c);
        p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        p.datatype = ucp_dt_make_contig(width);
        p.reply_buffer = result;  // little endian: the low `width` bytes
        return outcome(
            ucp_atomic_op_nbx(ep, kOps[static_cast<int>(op)], operand, 1, raddr, static_cast<UcxKey &>(rkey).rkey, &p),
            "atomic", rank);
    }

    int send(int rank, const void *data, size_t len) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        auto *copy = new uint8_t[len];
        std::memcpy(copy, data, len);
        ucs_status_ptr_t sp = send_message(ep, copy, len, free_send_buffer, copy);
        if (sp == nullptr || UCS_PTR_IS_ERR(sp)) delete[] copy;
        return outcome(sp, "send", rank);
    }

    int send_owned(int rank, Blob &&m) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        auto *owned = new Blob(std::move(m));
        ucs_status_ptr_t sp = send_message(ep, owned->data(), owned->size(), free_owned_message, owned);
        if (sp == nullptr || UCS_PTR_IS_ERR(sp)) delete owned;
        return outcome(sp, "send", rank);
    }

    int send_from(int rank, const void *head, size_t head_n, const void *body, size_t body_n,
                  Completion *released) override {
        ucp_ep_h ep = endpoint(rank);
        if (!ep) return -1;
        const auto *h = static_cast<const uint8_t *>(head);
        auto *s = new SentFrom{Blob(h, h + head_n), released};
        // The head as the active message's header, the body as its data:
        // UCX sends the body from where it is (an I/O vector went by
        // UCX's packing, three times slower on the two-host bed).
        ucp_request_param_t p{};
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
        p.cb.send = on_sent_from;
        p.user_data = s;
        p.flags = UCP_AM_SEND_FLAG_EAGER;
        ucs_status_ptr_t sp = ucp_am_send_nbx(ep, kAmId, s->head.data(), head_n, body, body_n, &p);
        if (sp == nullptr || UCS_PTR_IS_ERR(sp)) delete s;
        return outcome(sp, "send", rank);
    }

    void flush_now() override { flush_asked_ = true; }

    unsigned progress() override {
        const unsigned flushed = flush_puts();
        return flushed + ucp_worker_progress(worker_);
    }
    int event_fd() override { return efd_; }
    bool arm() override { return ucp_worker_arm(worker_) == UCS_OK; }

    void shutdown(double timeout_s) override {
        // Every message we sent is awaited by its receiver before it leaves
        // the final barrier, so only our own sends need to drain: flush the
        // worker (bounded), then close endpoints without a remote handshake
        // (peers may be gone already).
        ucp_request_param_t p{};
        ucs_status_ptr_t sp = ucp_worker_flush_nbx(worker_, &p);
        if (sp && !UCS_PTR_IS_ERR(sp)) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
            while (ucp_request_check_status(sp) == UCS_INPROGRESS && std::chrono::steady_clock::now() < deadline)
                ucp_worker_progress(worker_);
            if (ucp_request_check_status(sp) == UCS_INPROGRESS) ucp_request_cancel(worker_, sp);
            ucp_request_free(sp);
        }
        close_endpoints();
    }

  private:
    // One flush per peer for the puts issued since the last: each put's
    // completion is called when the flush completes (remote completion).
    struct FlushBatch {
        std::vector<Completion *> puts;
        UcxTransport *self;
        int rank;
    };
    static void finish_batch(FlushBatch *b, int status) {
        for (Completion *c : b->puts) c->fn(c, status);
        delete b;
    }
    static void on_flush_done(void *request, ucs_status_t status, void *user_data) {
        ucp_request_free(request);
        auto *b = static_cast<FlushBatch *>(user_data);
        b->self->flushing_[b->rank] = 0;
        finish_batch(b, status == UCS_OK ? 0 : -1);
    }
    // Flushes are batched (see the top): a collective's sender checks the
    // completion of its small rounds' puts rounds later, and a flush, with
    // its answer, is a message each way, as many as the round's own. A
    // peer's puts wait while its last flush is in flight.
    static constexpr unsigned kPutsPerFlush = 64;
    static constexpr auto kFlushAfter = std::chrono::microseconds(200);
    unsigned flush_puts() {
        if (to_flush_.empty()) return 0;
        if (!flush_asked_ && waiting_puts_ < kPutsPerFlush &&
            std::chrono::steady_clock::now() - oldest_put_ < kFlushAfter)
            return 0;
        unsigned n = 0;
        size_t keep = 0;
        for (const int rank : to_flush_) {
            if (flushing_[rank]) {
                to_flush_[keep++] = rank;
                continue;
            }
            ++n;
            auto *b = new FlushBatch{std::move(unflushed_[rank]), this, rank};
            unflushed_[rank].clear();
            ucp_request_param_t p{};
            p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
            p.cb.send = on_flush_done;
            p.user_data = b;
            const ucs_status_ptr_t sp = ucp_ep_flush_nbx(eps_[rank], &p);
            if (sp == nullptr || UCS_PTR_IS_ERR(sp))
                finish_batch(b, outcome(sp, "flush", rank) == kDone ? 0 : -1);
            else
                flushing_[rank] = 1;
        }
        to_flush_.resize(keep);
        // Those left wait for their peer's flush in flight; still due.
        waiting_puts_ = 0;
        for (const int rank : to_flush_) waiting_puts_ += static_cast<unsigned>(unflushed_[rank].size());
        flush_asked_ = flush_asked_ && waiting_puts_ > 0;
        return n;
    }

    ucp_ep_h endpoint(int rank) {
        if (eps_[rank]) return eps_[rank];
        if (static_cast<size_t>(rank) >= addresses_.size()) {
            report("ucx", "rank", "no address known for rank %d", rank);
            return nullptr;
        }
        ucp_ep_params_t ep{};
        ep.field_mask =
            UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep.address = reinterpret_cast<const ucp_address_t *>(addresses_[rank].data());
        // On one node not UCP_ERR_HANDLING_MODE_PEER: UCX 1.13's shared-
        // memory transports cannot detect a dead peer, so PEER mode moves
        // on-node traffic to TCP loopback (measured: 8x less bandwidth, 25x
        // the latency); a dead rank there is caught by the launcher and by
        // ACP_TIMEOUT. To another node the network transport can watch the
        // connection: a dead peer or a dropped link is an error at once.
        ep.err_mode = off_node(rank) ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
        ep.err_handler.cb = &UcxTransport::on_ep_error;
        ep.err_handler.arg = &ep_ctx_[rank];
        ucs_status_t st = ucp_ep_create(worker_, &ep, &eps_[rank]);
        if (st != UCS_OK) {
            report("ucx", "endpoint", "cannot connect to rank %d: %s", rank, ucs_status_string(st));
            eps_[rank] = nullptr;
        }
        return eps_[rank];
    }

    // `len` bytes at `data` as an eager active message; `done(request,
    // status, owner)` runs once UCX is done with them, unless the send
    // completes (nullptr) or fails at once: then `owner` is the caller's.
    static ucs_status_ptr_t send_message(ucp_ep_h ep, const void *data, size_t len, ucp_send_nbx_callback_t done,
                                         void *owner) {
        ucp_request_param_t p{};
        p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
        p.cb.send = done;
        p.user_data = owner;
        p.flags = UCP_AM_SEND_FLAG_EAGER;
        return ucp_am_send_nbx(ep, kAmId, nullptr, 0, data, len, &p);
    }

    static ucs_status_t on_message(void *arg, const void *header, size_t header_length, void *data, size_t length,
                                   const ucp_am_recv_param_t *param) {
        auto *self = static_cast<UcxTransport *>(arg);
        if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
            report("ucx", "message", "unexpected rendezvous message of %zu bytes dropped", length);
            return UCS_OK;
        }
        self->deliver_message(header, header_length, data, length);
        return UCS_OK;
    }

    static void on_ep_error(void *arg, ucp_ep_h, ucs_status_t status) {
        auto *ec = static_cast<EpContext *>(arg);
        ec->self->peer_failed(ec->rank, ucs_status_string(status));
    }

    void close_endpoints() {
        std::vector<ucs_status_ptr_t> closing;
        for (auto &ep : eps_)
            if (ep) {
                ucp_request_param_t p{};
                p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
                p.flags = UCP_EP_CLOSE_FLAG_FORCE;
                ucs_status_ptr_t sp = ucp_ep_close_nbx(ep, &p);
                if (sp && !UCS_PTR_IS_ERR(sp)) closing.push_back(sp);
                ep = nullptr;
            }
        for (auto sp : closing) {  // force close completes locally, without the peer
            while (ucp_request_check_status(sp) == UCS_INPROGRESS) ucp_worker_progress(worker_);
            ucp_request_free(sp);
        }
    }

    void teardown() {
        if (worker_) close_endpoints();
        if (worker_) ucp_worker_destroy(worker_);
        if (ctx_) ucp_cleanup(ctx_);
        worker_ = nullptr;
        ctx_ = nullptr;
    }

    int rank_;
    int procs_;
    ucp_context_h ctx_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    int efd_ = -1;
    size_t piece_ = kUserPiece;  // message_piece: kPiece where acpx sized the TCP receive segments
    std::vector<ucp_ep_h> eps_;
    std::vector<std::vector<Completion *>> unflushed_;  // per rank: puts issued, their flush not yet
    std::vector<int> to_flush_;                         // the ranks with such puts
    std::vector<uint8_t> flushing_;                     // per rank: a flush in flight
    unsigned waiting_puts_ = 0;                         // in unflushed_
    std::chrono::steady_clock::time_point oldest_put_;  // when the first of those was issued
    bool flush_asked_ = false;                          // flush_now() since the last flush
    std::vector<EpContext> ep_ctx_;
    std::vector<Blob> addresses_;
};

}  // namespace

std::unique_ptr<Transport> make_ucx_transport(int rank, int procs) {
    auto t = std::make_unique<UcxTransport>(rank, procs);
    if (!t->init()) return nullptr;
    return t;
}

}  // namespace acpx::basic
