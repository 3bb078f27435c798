// The GMA queue: handles grow by one per GMA; a GMA ordered after handle h
// starts once every GMA <= h is done. `completed` is that done prefix.
// Completions arrive from transport callbacks, which only mark the GMA;
// advance() then retires the done prefix and starts what it unblocked, so
// no transport call is made from inside a transport callback.
#include <algorithm>
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
    g->failed = g->failed || status != 0 || g->fail_landing;  // (failed already: behind a fence, fail_fenced_after)
    if (g->fail_landing && !status) g->why = "fault injected at completion for a test (ACPX_TEST_FAIL landed)";
    if (g->failed && !g->why && g->why_text.empty()) g->why = "the transport reported an error";
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
        const uint32_t old = apply_cpu_atomic<uint32_t>(
            g.aop, static_cast<uint32_t *>(p), static_cast<uint32_t>(g.operand), static_cast<uint32_t>(g.result));
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
        case GmaKind::kSignal: return "signal put";
    }
    return "?";
}

// "put of 8 bytes from rank 0 to rank 1": what a failure message names.
std::string what_moved(const Gma &g, int me) {
    const auto r = [](uint64_t ga_or_rank) { return "rank " + std::to_string(ga_or_rank); };
    const std::string bytes = std::to_string(g.kind == GmaKind::kAtomic ? g.width : g.size) + " bytes";
    switch (g.kind) {
        case GmaKind::kLocal: return "local copy of " + bytes + " on " + r(me);
        case GmaKind::kPut: return "put of " + bytes + " from " + r(me) + " to " + r(g.peer);
        case GmaKind::kGet: return "get of " + bytes + " from " + r(g.peer) + " to " + r(me);
        case GmaKind::kDelegated:
            return "copy of " + bytes + " from " + r(ga::decode(g.src).rank) + " to " + r(ga::decode(g.dst).rank) +
                   " (executed by " + r(g.peer) + ")";
        case GmaKind::kAtomic: return "atomic on " + bytes + " at " + r(g.peer) + " for " + r(me);
        case GmaKind::kSignal: return "signal put of " + bytes + " from " + r(me) + " to " + r(g.peer);
    }
    return "?";
}

// Why a GMA that could not start failed.
const char *why_not_started(const Gma &g, bool no_key) {
    if (no_key) return "the peer's memory key could not be used";
    switch (g.kind) {
        case GmaKind::kDelegated: return "the command could not be sent to the source's rank";
        case GmaKind::kPut:
        case GmaKind::kGet:
        case GmaKind::kSignal: return "the copy could not be started (the line above says why)";
        default: return "the transport refused it";
    }
}

}  // namespace

bool Runtime::failed(acp_handle_t h) const { return std::binary_search(failures.begin(), failures.end(), h); }

acp_handle_t Runtime::first_failure(acp_handle_t from, acp_handle_t to) const {
    const auto it = std::lower_bound(failures.begin(), failures.end(), from);
    return it != failures.end() && *it <= to ? *it : 0;
}

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
    g.order = order;
    const acp_handle_t h = g.handle;
    gmas.push_back(std::move(g));  // deque: addresses of queued GMAs stay valid
    if (order <= completed) {
        start(gmas.back());
    } else if (fence_instead(gmas.back(), order)) {
        gmas.back().fenced = true;
        start(gmas.back());
    } else {
        waiting.emplace(order, h);
        // It waits for the completion of signal puts, perhaps, which
        // their targets acknowledge in batches: ask now, as a waiter would.
        ask_signal_acks(order);
    }
    advance();  // may retire the new GMA already: use h, not the element
    return h;
}

// May g start now, though a GMA it is ordered after is still in flight?
// Yes when g and every one of those is a small put to one peer through the
// transport, each of those already copied out (kPendingSourceFree), and
// the transport fences: the peer then sees g after them, as if g had
// waited for their completion, without the round trip (over a network, a
// small round's data and the stamp ordered after it go back to back).
// Small and copied out: sent on the one lane small puts take, in order.
// A large put may go by another protocol or lane, which UCX 1.13's fence
// does not order: through its shared memory, a stamp behind a 1 MiB put
// is seen before the put's bytes. Should one of them fail, the
// connection to that peer has, and g is failed with it (fail_fenced_after).
// Puts by message (put_by_message) are numbered per peer as they are
// sent and stored in that order, whether their sources are free yet or
// not: no fence needed behind them, and none would order an RMA put after
// them, so both sides of the test go the same way.
bool Runtime::fence_instead(const Gma &g, acp_handle_t order) {
    constexpr acp_handle_t kLookAtMost = 64;  // beyond that, the wait is the cheaper test
    if (g.kind != GmaKind::kPut || on_node.reaches(g.peer) || order - completed > kLookAtMost) return false;
    // Into a segment mapped here (an on-node peer that refuses Cross-Memory
    // Attach still lets its acpx segments be mapped), g is a store, seen at
    // once: no fence orders it after the transport's puts.
    if (g.remote && on_node.mapped(g.remote->seg, g.raddr)) return false;
    const bool by_message = put_by_message(g);
    if (!by_message && g.size > kSmallPut) return false;
    for (acp_handle_t h = completed + 1; h <= order; ++h) {
        const Gma *e = find_gma(h);
        if (!e || e->state == GmaState::kWaiting || e->failed) return false;
        if (e->state == GmaState::kDone) continue;
        // (A put by message is numbered when it is sent, whether its
        // source is free yet or not: the stamp after it comes after it.)
        if (e->kind != GmaKind::kPut || (!e->source_free && !by_message) || e->peer != g.peer ||
            e->by_message != by_message || (!by_message && e->size > kSmallPut))
            return false;
    }
    return by_message || tp->fence();
}

bool Runtime::put_by_message(const Gma &g) const {
    return g.kind == GmaKind::kPut && g.size <= tp->message_put_max() && g.peer != rank &&
           node_ids[static_cast<size_t>(g.peer)] != node_ids[static_cast<size_t>(rank)];
}

// GMA h failed: a GMA ordered after it but issued behind a fence before
// that was known (fence_instead) fails too, as acp_copy promises, whether
// or not its bytes landed: a flag must not say that data arrived that did
// not. (Its own followers follow when it retires.)
void Runtime::fail_fenced_after(acp_handle_t h) {
    for (Gma &g : gmas)
        if (g.fenced && g.order >= h && !g.failed) {
            g.failed = true;
            g.why_text = "ordered after GMA " + std::to_string(h) +
                         ", which failed after this one had been issued behind it (transport fence)";
        }
}

void Runtime::start(Gma &g) {
    g.state = GmaState::kInFlight;
    // What it was ordered after failed: its bytes (or the flag it sets)
    // would say that something arrived that did not. It is not executed.
    if (g.order > 0 && failed(g.order)) {
        g.why_text = "not executed: ordered after GMA " + std::to_string(g.order) + ", which failed";
        return gma_done(&g.comp, -1);
    }
    if (faults.fails_start(g.kind != GmaKind::kAtomic && g.size > 8)) {
        g.why = "fault injected for a test (ACPX_TEST_FAIL)";
        return gma_done(&g.comp, -1);
    }
    int rc = -1;
    RemoteKey *key = nullptr;
    bool no_key = false;
    switch (g.kind) {
        case GmaKind::kLocal:
            if (g.size) copy_bytes(g.local, g.local2, g.size);
            rc = kDone;
            break;
        case GmaKind::kPut:
            if ((rc = on_node.put(g.peer, g.remote->seg, g.raddr, g.local, g.size)) != OnNode::kFallback) break;
            if (put_by_message(g))
                rc = start_signal_put(g);
            else if ((key = key_of(g.peer, *g.remote)))
                rc = tp->put(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            else
                no_key = true;
            if (rc >= kPending && faults.landed_in && --faults.landed_in == 0) g.fail_landing = true;
            break;
        case GmaKind::kGet:
            if ((rc = on_node.get(g.peer, g.remote->seg, g.local, g.raddr, g.size)) != OnNode::kFallback) break;
            if ((key = key_of(g.peer, *g.remote)))
                rc = tp->get(g.peer, g.local, g.size, g.raddr, *key, &g.comp);
            else
                no_key = true;
            break;
        case GmaKind::kAtomic:
            if (char *at =
                    g.peer == rank ? reinterpret_cast<char *>(g.raddr) : on_node.mapped(g.remote->seg, g.raddr)) {
                local_atomic(g, at);
                rc = kDone;
            } else if ((key = key_of(g.peer, *g.remote))) {
                rc = tp->atomic(g.peer, g.aop, g.width, &g.operand, &g.result, g.raddr, *key, &g.comp);
            } else {
                no_key = true;
            }
            break;
        case GmaKind::kDelegated: {
            const proto::CopyCmd cmd{proto::Type::kCopyCmd,
                                     static_cast<uint32_t>(rank),
                                     g.handle,
                                     g.dst,
                                     g.src,
                                     g.size,
                                     g.dst_remote ? g.dst_remote->gen : 0};
            rc = send(g.peer, proto::pack(cmd)) ? kPending : -1;
            break;
        }
        case GmaKind::kSignal:
            rc = start_signal_put(g);
            if (rc >= kPending && faults.landed_in && --faults.landed_in == 0) g.fail_landing = true;
            break;
    }
    if (rc == kPendingSourceFree) g.source_free = true;
    if (rc == kDone) gma_done(&g.comp, 0);
    if (rc < 0) {
        if (!g.why) g.why = why_not_started(g, no_key);
        gma_done(&g.comp, -1);
    }
}

void Runtime::wait_completed(std::unique_lock<std::mutex> &lk, const char *fn, acp_handle_t last) {
    wait_locked(
        lk, fn, [&] { return completed >= last; }, [&] { return describe_gma(gmas.front()); },
        [&] { return completed; }, [&] { return awaited_peer(); });
}

void Runtime::advance() {
    for (;;) {
        while (!gmas.empty() && gmas.front().state == GmaState::kDone) {
            const Gma &f = gmas.front();
            if (f.failed) {
                report(f.fn, ("GMA " + std::to_string(f.handle)).c_str(),
                       "%s failed: %s; its destination bytes are undefined", what_moved(f, rank).c_str(),
                       f.why ? f.why : f.why_text.c_str());
                failures.push_back(f.handle);
                fail_fenced_after(f.handle);
            }
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
        reply_copy_done(it->issuer, it->handle, it->status,
                        "rank " + std::to_string(rank) + ": the transport failed to write to the destination");
        it = exec_ops.erase(it);
    }
}

}  // namespace acpx::basic
