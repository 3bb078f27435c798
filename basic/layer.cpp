// The basic layer's interface to the layers above it (layer.hpp).
#include "layer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "api_common.hpp"
#include "protocol.hpp"

namespace acpx::basic::layer {

bool verbose() {
    Runtime *rt = runtime();
    return rt && rt->cfg.verbose;
}

bool send(int to, const void *data, size_t n, const char *fn) {
    Runtime *rt = api::need(fn);
    if (!rt) return false;
    auto lk = rt->lock_api();
    Blob m(1 + n);
    m[0] = static_cast<uint8_t>(proto::Type::kLayer);
    if (n) std::memcpy(m.data() + 1, data, n);
    if (to == rt->rank) {
        rt->mail.file_for_layer(std::move(m));
        return true;
    }
    if (!rt->send(to, m)) return report(fn, "rank", "cannot reach rank %d", to);
    return true;
}

std::vector<Bytes> take_messages() {
    std::vector<Bytes> out;
    Runtime *rt = runtime();
    if (!rt) return out;
    auto lk = rt->lock_api();
    rt->progress_locked();
    while (!rt->mail.for_layer.empty()) {
        Blob &m = rt->mail.for_layer.front();
        out.emplace_back(m.begin() + 1, m.end());
        rt->mail.for_layer.pop_front();
    }
    rt->mail.layer_waiting.store(false, std::memory_order_relaxed);
    return out;
}

bool mail_waiting() {
    Runtime *rt = runtime();
    return rt && rt->mail.layer_waiting.load(std::memory_order_acquire);
}

void progress() {
    if (Runtime *rt = runtime()) {
        auto lk = rt->lock_api();
        rt->progress_locked();
        rt->note_app_polled();
    }
}

bool alloc_shared(size_t size, const char *fn, SharedMemory *out) {
    Runtime *rt = api::need(fn);
    if (!rt) return false;
    SharedSegment seg = create_shared_segment(size ? size : 1, "acpx-col");
    if (!seg.base)
        return report(fn, "memory", "cannot allocate %zu bytes of shared memory: %s", size, std::strerror(errno));
    auto lk = rt->lock_api();
    const acp_atkey_t key = rt->register_segment(seg);
    if (key == ACP_ATKEY_NULL) return false;
    out->base = seg.base;
    out->size = seg.size;
    out->key = key;
    out->ga = ga::encode(static_cast<uint32_t>(rt->rank), static_cast<uint32_t>(key & (ga::kMaxTags - 1)), 0);
    return true;
}

bool alloc_block(size_t size, const char *fn, SharedMemory *out, BlockContents contents) {
    Runtime *rt = api::need(fn);
    if (!rt) return false;
    auto lk = rt->lock_api();
    std::string why;
    const acp_ga_t g =
        rt->arena_alloc(rt->blocks, size ? size : 1, rt->node_share(), &why, contents == BlockContents::kZeroed);
    if (g == ACP_GA_NULL) return report(fn, "memory", "cannot allocate a block of %zu bytes: %s", size, why.c_str());
    const ga::Parts p = ga::decode(g);
    out->base = rt->local_reg(p.tag)->base + p.offset;
    out->size = Heap::rounded(size ? size : 1);
    out->key = ACP_ATKEY_NULL;
    out->ga = g;
    return true;
}

void free_shared(SharedMemory &m) {
    if (m.block()) {
        if (Runtime *rt = runtime()) {
            auto lk = rt->lock_api();
            const ga::Parts p = ga::decode(m.ga);
            // Bodies held for heads in it that nobody released (a broken
            // round's): they would otherwise stay until acp_finalize.
            std::erase_if(rt->held, [&](const auto &b) {
                return b.second->tag == p.tag && b.second->at >= p.offset && b.second->at < p.offset + m.size;
            });
            rt->arena_free(rt->blocks, p.tag, p.offset);
        }
    } else if (m.key != ACP_ATKEY_NULL) {
        acp_unregister_memory(m.key);  // unmaps the segment too
    }
    m = SharedMemory{};
}

size_t block_arena_bytes() {
    Runtime *rt = runtime();
    if (!rt) return 0;
    auto lk = rt->lock_api();
    return rt->blocks.heap.bytes_total();
}

Mapped mapped(acp_ga_t ga, size_t size) {
    Mapped out;
    Runtime *rt = runtime();
    if (!rt || ga == ACP_GA_NULL) return out;
    auto lk = rt->lock_api();
    api::Target t;
    if (!api::resolve(*rt, lk, ga, size, "acpx (mapping a peer's memory)", "ga", false, &t)) return out;
    if (t.local) {
        out.ptr = t.addr;
    } else if (char *at = rt->on_node.mapped(t.reg->seg, t.raddr)) {
        out.ptr = at;
        out.keep = t.reg;
    }
    return out;
}

bool shared_with_node(acp_ga_t ga) {
    Runtime *rt = runtime();
    if (!rt || ga == ACP_GA_NULL) return false;
    auto lk = rt->lock_api();
    const ga::Parts p = ga::decode(ga);
    if (p.rank != static_cast<uint32_t>(rt->rank)) return false;
    if (p.tag == ga::kStarterTag) return rt->starter_seg.fd >= 0;
    const LocalReg &r = rt->regs.local[p.tag];
    return r.live && r.seg.fd >= 0;
}

namespace {
// A copy of n bytes to rank that this process issues: does a test's
// start:N or data:N make it fail (reported as its failure)? Counted as the
// GMAs' copies are (gma.cpp). The caller holds the runtime lock.
bool fails_injected(Runtime &rt, int rank, size_t n, const char *fn) {
    if (!rt.faults.fails_start(n > 8)) return false;
    report(fn, "addr", "rank %d: %zu bytes to rank %d: fault injected for a test (ACPX_TEST_FAIL)", rt.rank, n, rank);
    return true;
}
}  // namespace

int write_direct(int rank, uint64_t addr, const void *src, size_t n, const char *fn) {
    Runtime *rt = api::need(fn);
    if (!rt) return -1;
    auto lk = rt->lock_api();
    if (rank == rt->rank || !rt->on_node.reaches(rank)) return kNoDirectWrite;
    // Counted as the GMAs' copies are (gma.cpp), so a test's start:N or
    // data:N fails this copy as it would one that went through the transport.
    if (fails_injected(*rt, rank, n, fn)) return -1;
    const int rc = rt->on_node.write_direct(rank, addr, src, n);
    return rc == OnNode::kFallback ? kNoDirectWrite : rc;
}

int read_direct(int rank, void *dst, uint64_t addr, size_t n, const char *fn, acp_ga_t ga) {
    Runtime *rt = api::need(fn);
    if (!rt) return -1;
    auto lk = rt->lock_api();
    if (rank == rt->rank || !rt->on_node.reaches(rank)) return kNoDirectWrite;
    // Carried out for the rank whose bytes these are: exec:N, as a
    // delegated copy this process executes for its issuer (messages.cpp).
    if (rt->faults.fails_exec())
        return report(fn, "addr", "rank %d: %zu bytes from rank %d: fault injected for a test (ACPX_TEST_FAIL)",
                      rt->rank, n, rank),
               -1;
    if (ga != ACP_GA_NULL) {
        // The owner's registration of the bytes: if it is gone, so are
        // the bytes at addr (the read fails, reported).
        api::Target t;
        if (!api::resolve(*rt, lk, ga, n, fn, "ga", false, &t)) return -1;
        if (const char *at = t.reg ? rt->on_node.mapped(t.reg->seg, t.raddr) : nullptr) {
            std::memcpy(dst, at, n);
            return 0;
        }
    }
    const int rc = rt->on_node.read_direct(rank, dst, addr, n);
    return rc == OnNode::kFallback ? kNoDirectWrite : rc;
}

bool reaches_direct(int rank) {
    Runtime *rt = runtime();
    if (!rt) return false;
    auto lk = rt->lock_api();
    return rank != rt->rank && rt->on_node.reaches(rank);
}

bool proven_direct(int rank, acp_ga_t ga) {
    Runtime *rt = runtime();
    if (!rt) return false;
    auto lk = rt->lock_api();
    if (rank == rt->rank || !rt->on_node.reaches(rank)) return false;
    if (rt->on_node.direct_worked(rank)) return true;
    api::Target t;
    if (!api::resolve(*rt, lk, ga, 1, "acp_wait_col", "ga", false, &t)) return false;
    char byte = 0;
    return rt->on_node.read_direct(rank, &byte, t.raddr, 1) == 0;
}

bool injected_fault(int rank, size_t n, const char *fn) {
    Runtime *rt = runtime();
    if (!rt) return false;
    auto lk = rt->lock_api();
    return fails_injected(*rt, rank, n, fn);
}

acp_handle_t put_signal(acp_ga_t dst, const void *data, size_t n, size_t signal, acp_handle_t order, const char *fn) {
    return put_signal(dst, data, n, nullptr, 0, signal, order, fn);
}

acp_handle_t put_signal(acp_ga_t dst, const void *head, size_t head_n, const void *body, size_t body_n, size_t signal,
                        acp_handle_t order, const char *fn) {
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    return rt->put_signal(lk, dst, {head, head_n}, {body, body_n}, signal, 0, order, fn);
}

acp_handle_t put_held(acp_ga_t dst, const void *head, size_t head_n, const void *body, size_t body_n, size_t signal,
                      acp_handle_t order, const char *fn) {
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    return rt->put_signal(lk, dst, {head, head_n}, {body, body_n}, signal, head_n, order, fn);
}

size_t held_put_max() {
    Runtime *rt = runtime();
    return rt ? std::min<size_t>(rt->tp->held_put_max(), 65536) : 0;
}

const char *held_bytes(uint64_t ref, size_t len) {
    Runtime *rt = runtime();
    if (!rt || !ref) return nullptr;
    // Looked up, not taken on trust: the word the reference is read from
    // lies in registered memory, which a peer's put may have overwritten.
    auto lk = rt->lock_api();
    const auto it = rt->held.find(ref);
    if (it == rt->held.end() || it->second->m.size() - it->second->body_at < len) return nullptr;
    return reinterpret_cast<const char *>(it->second->m.data() + it->second->body_at);
}

void release_held(uint64_t ref) {
    if (Runtime *rt = runtime(); rt && ref) {
        auto lk = rt->lock_api();
        rt->held.erase(ref);
    }
}

bool sources_free(acp_handle_t first, acp_handle_t last) {
    Runtime *rt = runtime();
    if (!rt) return false;
    auto lk = rt->lock_api();
    if (rt->first_failure(first, last) != 0) return false;
    for (acp_handle_t h = std::max(first, rt->completed + 1); h <= last; ++h) {
        const Gma *g = rt->find_gma(h);
        if (!g || g->failed || (g->state != GmaState::kDone && !g->source_free)) return false;
    }
    return true;
}

int completion(acp_handle_t h) {
    Runtime *rt = runtime();
    if (!rt) return -1;
    auto lk = rt->lock_api();
    return rt->completion(h);
}

int poll(acp_handle_t h) {
    Runtime *rt = runtime();
    if (!rt) return -1;
    auto lk = rt->lock_api();
    if (rt->completed < h) {
        rt->hurry();
        rt->progress_locked();
    }
    return rt->completion(h);
}

double timeout_seconds() {
    Runtime *rt = runtime();
    return rt ? rt->cfg.timeout_s : 60.0;
}

bool yield_at_once() {
    Runtime *rt = runtime();
    return rt && rt->yield_at_once;
}

bool node_crowded() {
    Runtime *rt = runtime();
    return rt && rt->node_crowded;
}

unsigned node_cpus() {
    Runtime *rt = runtime();
    return rt ? rt->node_cpus : 0;
}

uint64_t node_id(int rank) {
    Runtime *rt = runtime();
    if (!rt || rank < 0 || static_cast<size_t>(rank) >= rt->node_ids.size()) return 0;
    return rt->node_ids[static_cast<size_t>(rank)];
}

LayerState *state() {
    Runtime *rt = runtime();
    return rt ? rt->upper.get() : nullptr;
}

void set_state(std::unique_ptr<LayerState> s) {
    if (Runtime *rt = runtime()) rt->upper = std::move(s);
}

void set_agent_work(unsigned (*work)()) {
    if (Runtime *rt = runtime()) {
        rt->agent.upper_work.store(work, std::memory_order_release);
        rt->wake_agent();  // it may sleep for 500 ms without a reason to look
    }
}

void wake_agent() {
    if (Runtime *rt = runtime()) rt->wake_agent();
}

bool agent_runs_rounds() {
    Runtime *rt = runtime();
    return rt && rt->cfg.agent_rounds;
}

}  // namespace acpx::basic::layer
