// The GMA queue: handles grow by one per GMA; a GMA ordered after handle h
// starts once every GMA <= h is done. `completed` is that done prefix.
// Completions arrive from transport callbacks, which only mark the GMA;
// advance() then retires the done prefix and starts what it unblocked, so
// no transport call is made from inside a transport callback.
#include <atomic>
#include <cstring>

#include "copy_bytes.hpp"
#include "errors.hpp"
#include "protocol.hpp"
#include "runtime.hpp"
#include "transport/cpu_atomic.hpp"

namespace acpx::basic {
namespace {

void gma_done(Completion *c, int status) {
    auto *g = reinterpret_cast<Gma *>(c);
    g->state = GmaState::kDone;
    g->failed = status != 0;
    if (g->kind == GmaKind::kAtomic && !g->failed) std::memcpy(g->local, &g->result, g->width);
}

// An atomic on this process's own memory, or on a peer's segment mapped
// here, with CPU atomics. Own memory is not reached through
// UCX's self endpoint: UCX 1.13's self transport silently drops fetching
// OR/AND/XOR (tested: the op returns success and leaves memory unchanged).
// CPU atomics are atomic with respect to peers' atomics over shared memory
// (CPU atomics on the mapped page) and UCX's emulated ones (run by this
// process's CPU); a NIC doing device atomics would need the UCX path.
void local_atomic(Gma &g, char *where) {
    void *p = where;
    if (g.width == 4) {
        const uint32_t old = apply_cpu_atomic<uint32_t>(g.aop, static_cast<uint32_t *>(p),
                                                    static_cast<uint32_t>(g.operand),
                                                    static_cast<uint32_t>(g.result));
        g.result = old;
    } else {
        g.result = apply_cpu_atomic<uint64_t>(g.aop, static_cast<uint64_t *>(p), g.operand, g.result);
    }
}

const char *kind_name(GmaKind k) {
    switch (k) {
        case GmaKind::kLocal: return "local copy";
        case GmaKind::kPut: return "put";
        case GmaKind::kGet: return "get";
        case GmaKind::kDelegated: return "copy delegated to the source's rank";
        case GmaKind::kAtomic: return "atomic";
    }
    return "?";
}

}  // namespace

static_assert(offsetof(Gma, comp) == 0, "gma_done casts Completion* to Gma*");
static_assert(offsetof(ExecOp, comp) == 0, "exec callbacks cast Completion* to ExecOp*");

Gma *Runtime::find_gma(acp_handle_t h) {
    if (gmas.empty()) return nullptr;
    const acp_handle_t first = gmas.front().handle;
    if (h < first || h >= first + static_cast<acp_handle_t>(gmas.size())) return nullptr;
    return &gmas[static_cast<size_t>(h - first)];
}

std::string Runtime::describe_gma(const Gma &g) const {
    std::string s = "GMA " + std::to_string(g.handle) + " (" + kind_name(g.kind) + " of " +
                    std::to_string(g.size ? g.size : g.width) + " bytes";
    if (g.peer >= 0) s += ", rank " + std::to_string(g.peer) + " not heard from";
    if (g.state == GmaState::kWaiting) s += ", not started: ordered after an earlier GMA";
    return s + ")";
}

acp_handle_t Runtime::issue(Gma &&g, acp_handle_t order) {
    g.rt = this;
    g.handle = ++last_issued;
    g.comp.fn = gma_done;
    g.state = GmaState::kWaiting;
    const acp_handle_t h = g.handle;
    gmas.push_back(std::move(g));  // deque: addresses of queued GMAs stay valid
    if (order <= completed)
        start(gmas.back());
    else
        waiting.emplace(order, h);
    advance();  // may retire the new GMA already: use h, not the element
    return h;
}

void Runtime::start(Gma &g) {
    g.state = GmaState::kInFlight;
    int rc = -1;
    RemoteKey *key = nullptr;
    // A peer's segment mapped here: plain loads and stores, done at once.
    char *mapped = g.remote ? mapped_of(*g.remote) : nullptr;
    char *at = mapped ? mapped + (g.raddr - g.remote->base) : nullptr;
    switch (g.kind) {
        case GmaKind::kLocal:
            if (g.size) copy_bytes(g.local, g.local2, g.size);
            rc = kDone;
            break;
        case GmaKind::kPut:
            if (at) {
                copy_bytes(at, g.local, g.size);
                std::atomic_thread_fence(std::memory_order_release);
                rc = kDone;
                break;
            }
            if (cma.reaches(g.peer) &&
                (rc = cma.write(g.peer, g.raddr, g.local, g.size)) != CmaChannel::kFallback)
                break;
            if ((key = key_of(g.peer, *g.remote)))
                rc = tp->put(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            break;
        case GmaKind::kGet:
            if (at) {
                std::atomic_thread_fence(std::memory_order_acquire);
                copy_bytes(g.local, at, g.size);
                rc = kDone;
                break;
            }
            if (cma.reaches(g.peer) &&
                (rc = cma.read(g.peer, g.local, g.raddr, g.size)) != CmaChannel::kFallback)
                break;
            if ((key = key_of(g.peer, *g.remote)))
                rc = tp->get(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            break;
        case GmaKind::kAtomic:
            if (g.peer == rank || at) {
                local_atomic(g, at ? at : reinterpret_cast<char *>(g.raddr));
                rc = kDone;
            } else if ((key = key_of(g.peer, *g.remote)))
                rc = tp->atomic(g.peer, g.aop, g.width, &g.operand, &g.result, g.raddr, *key,
                                &g.comp);
            break;
        case GmaKind::kDelegated: {
            const RemoteReg &d = *g.dst_remote;
            proto::CopyCmd cmd{proto::Type::kCopyCmd, static_cast<uint32_t>(rank), g.handle,
                               g.dst, g.src, g.size, d.base, d.size, d.gen};
            const bool same_rank = ga::decode(g.dst).rank == static_cast<uint32_t>(g.peer);
            rc = send(g.peer, proto::pack(cmd, same_rank ? nullptr : &d.rkey_blob)) ? kPending
                                                                                      : -1;
            break;
        }
    }
    if (rc == kDone) gma_done(&g.comp, 0);
    if (rc < 0) gma_done(&g.comp, -1);
}

void Runtime::advance() {
    for (;;) {
        while (!gmas.empty() && gmas.front().state == GmaState::kDone) {
            const Gma &f = gmas.front();
            if (f.failed)
                report("acp_complete", ("GMA " + std::to_string(f.handle)).c_str(),
                       "%s failed; its destination bytes are undefined",
                       describe_gma(f).c_str());
            completed = f.handle;
            gmas.pop_front();
        }
        bool started = false;
        while (!waiting.empty() && waiting.top().first <= completed) {
            const acp_handle_t h = waiting.top().second;
            waiting.pop();
            if (Gma *g = find_gma(h)) {
                start(*g);
                started = true;
            }
        }
        if (!started) return;
    }
}

void Runtime::finish_exec_ops() {
    exec_finished = 0;
    for (auto it = exec_ops.begin(); it != exec_ops.end();) {
        if (!it->done) {
            ++it;
            continue;
        }
        reply_copy_done(it->issuer, it->handle, it->status);
        it = exec_ops.erase(it);
    }
}

}  // namespace acpx::basic
