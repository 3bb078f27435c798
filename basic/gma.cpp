// The GMA queue: handles grow by one per GMA; a GMA ordered after handle h
// starts once every GMA <= h is done. `completed` is that done prefix.
// Completions arrive from transport callbacks, which only mark the GMA;
// advance() then retires the done prefix and starts what it unblocked, so
// no transport call is made from inside a transport callback.
#include <cstring>

#include "errors.hpp"
#include "protocol.hpp"
#include "runtime.hpp"

namespace acpx::basic {
namespace {

void gma_done(Completion *c, int status) {
    auto *g = reinterpret_cast<Gma *>(c);
    g->state = GmaState::kDone;
    g->failed = status != 0;
    if (g->kind == GmaKind::kAtomic && !g->failed) std::memcpy(g->local, &g->result, g->width);
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
    gmas.push_back(std::move(g));  // deque: addresses of queued GMAs stay valid
    Gma &ref = gmas.back();
    if (order <= completed)
        start(ref);
    else
        waiting.emplace(order, ref.handle);
    advance();
    return ref.handle;
}

void Runtime::start(Gma &g) {
    g.state = GmaState::kInFlight;
    int rc = -1;
    RemoteKey *key = nullptr;
    switch (g.kind) {
        case GmaKind::kLocal:
            if (g.size) std::memmove(g.local, g.local2, g.size);
            rc = kDone;
            break;
        case GmaKind::kPut:
            if ((key = key_of(g.peer, *g.remote)))
                rc = tp->put(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            break;
        case GmaKind::kGet:
            if ((key = key_of(g.peer, *g.remote)))
                rc = tp->get(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            break;
        case GmaKind::kAtomic:
            if ((key = key_of(g.peer, *g.remote)))
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
        send(static_cast<int>(it->issuer),
             proto::pack(proto::CopyDone{proto::Type::kCopyDone, it->status, it->handle}));
        it = exec_ops.erase(it);
    }
}

}  // namespace acpx::basic
