// C API: copies, atomics, completion.
#include <sched.h>

#include "api_common.hpp"

using namespace acpx::basic;

extern "C" acp_handle_t acp_copy(acp_ga_t dst, acp_ga_t src, size_t size, acp_handle_t order) try {
    constexpr const char *fn = "acp_copy";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    api::Target d, s;
    acp_handle_t after = 0;
    if (!api::resolve(*rt, lk, dst, size, fn, "dst", false, &d) ||
        !api::resolve(*rt, lk, src, size, fn, "src", false, &s) || !api::resolve_order(*rt, order, fn, &after))
        return ACP_HANDLE_NULL;
    Gma g;
    g.dst = dst;
    g.src = src;
    g.size = size;
    if (size == 0 || (d.local && s.local)) {
        g.kind = GmaKind::kLocal;
        g.local = d.addr;
        g.local2 = s.addr;
    } else if (s.local) {  // local -> remote
        g.kind = GmaKind::kPut;
        g.peer = static_cast<int>(d.p.rank);
        g.local = s.addr;
        g.raddr = d.raddr;
        g.remote = d.reg;
    } else if (d.local) {  // remote -> local
        g.kind = GmaKind::kGet;
        g.peer = static_cast<int>(s.p.rank);
        g.local = d.addr;
        g.raddr = s.raddr;
        g.remote = s.reg;
    } else {  // remote -> remote: the source's agent writes to dst directly
        g.kind = GmaKind::kDelegated;
        g.peer = static_cast<int>(s.p.rank);
        g.dst_remote = d.reg;
    }
    return rt->issue(std::move(g), after);
} catch (...) {
    return acpx::basic::report_exception("acp_copy"), ACP_HANDLE_NULL;
}

namespace {

acp_handle_t atomic(const char *fn, acp_ga_t dst, acp_ga_t src, AtomicOp op, uint8_t width, uint64_t operand,
                    uint64_t compare, acp_handle_t order) try {
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    api::Target d, s;
    acp_handle_t after = 0;
    if (!api::resolve(*rt, lk, dst, width, fn, "dst", false, &d)) return ACP_HANDLE_NULL;
    if (!d.local)
        return report(fn, "dst", "must be this process's memory (rank %u owns it)", d.p.rank), ACP_HANDLE_NULL;
    if (!api::resolve(*rt, lk, src, width, fn, "src", true, &s) || !api::resolve_order(*rt, order, fn, &after))
        return ACP_HANDLE_NULL;
    if (reinterpret_cast<uintptr_t>(d.addr) % width)
        return report(fn, "dst", "address %p is not aligned to %u bytes", static_cast<void *>(d.addr), width),
               ACP_HANDLE_NULL;
    if (s.raddr % width)
        return report(fn, "src", "address 0x%llx at rank %u is not aligned to %u bytes",
                      static_cast<unsigned long long>(s.raddr), s.p.rank, width),
               ACP_HANDLE_NULL;
    Gma g;
    g.fn = fn;
    g.kind = GmaKind::kAtomic;
    g.aop = op;
    g.width = width;
    g.dst = dst;
    g.src = src;
    g.peer = static_cast<int>(s.p.rank);
    g.local = d.addr;
    g.raddr = s.raddr;
    g.remote = s.reg;
    // cas: compare with `operand`, swap in `result`, which then receives the old value.
    g.operand = op == AtomicOp::kCas ? compare : operand;
    g.result = op == AtomicOp::kCas ? operand : 0;
    return rt->issue(std::move(g), after);
} catch (...) {
    return acpx::basic::report_exception(fn), ACP_HANDLE_NULL;
}

}  // namespace

#define ACPX_ATOMIC(name, op, type)                                                            \
    extern "C" acp_handle_t name(acp_ga_t dst, acp_ga_t src, type value, acp_handle_t order) { \
        return atomic(#name, dst, src, AtomicOp::op, sizeof(type), value, 0, order);           \
    }
ACPX_ATOMIC(acp_swap4, kSwap, uint32_t)
ACPX_ATOMIC(acp_swap8, kSwap, uint64_t)
ACPX_ATOMIC(acp_add4, kAdd, uint32_t)
ACPX_ATOMIC(acp_add8, kAdd, uint64_t)
ACPX_ATOMIC(acp_xor4, kXor, uint32_t)
ACPX_ATOMIC(acp_xor8, kXor, uint64_t)
ACPX_ATOMIC(acp_or4, kOr, uint32_t)
ACPX_ATOMIC(acp_or8, kOr, uint64_t)
ACPX_ATOMIC(acp_and4, kAnd, uint32_t)
ACPX_ATOMIC(acp_and8, kAnd, uint64_t)
#undef ACPX_ATOMIC

extern "C" acp_handle_t acp_cas4(acp_ga_t dst, acp_ga_t src, uint32_t oldval, uint32_t newval, acp_handle_t order) {
    return atomic("acp_cas4", dst, src, AtomicOp::kCas, 4, newval, oldval, order);
}

extern "C" acp_handle_t acp_cas8(acp_ga_t dst, acp_ga_t src, uint64_t oldval, uint64_t newval, acp_handle_t order) {
    return atomic("acp_cas8", dst, src, AtomicOp::kCas, 8, newval, oldval, order);
}

namespace {
// Resolves a handle given to acp_complete/acp_inquire; false if invalid.
bool target_handle(Runtime &rt, acp_handle_t h, const char *fn, acp_handle_t *out) {
    if (h == ACP_HANDLE_ALL) {
        *out = rt.last_issued;
        return true;
    }
    if (h < 0 || h > rt.last_issued)
        return report(fn, "handle", "%lld was not issued by this process (last: %lld)", static_cast<long long>(h),
                      static_cast<long long>(rt.last_issued));
    *out = h;
    return true;
}
}  // namespace

extern "C" void acp_complete(acp_handle_t handle) try {
    Runtime *rt = api::need("acp_complete");
    if (!rt) return;
    auto lk = rt->lock_api();
    acp_handle_t h = 0;
    if (!target_handle(*rt, handle, "acp_complete", &h)) return;
    rt->wait_completed(lk, "acp_complete", h);
} catch (...) {
    acpx::basic::report_exception("acp_complete");
}

extern "C" int acp_inquire(acp_handle_t handle) try {
    Runtime *rt = api::need("acp_inquire");
    if (!rt) return -1;
    auto lk = rt->lock_api();
    acp_handle_t h = 0;
    if (!target_handle(*rt, handle, "acp_inquire", &h)) return -1;
    // Progress even when h is complete: a loop of acp_inquire is how a
    // program polls its own memory for a peer's put, and that put may be a
    // message only this process's progress stores. The caller polls, so
    // the agent stays off the lock meanwhile (as in wait_locked).
    if (rt->completed < h) rt->hurry(Runtime::kPollAsksAfterNs);
    const unsigned progressed = rt->progress_locked();
    rt->note_app_polled();
    const int state = rt->completion(h);
    // An empty poll on a node with more ranks than CPUs gives the core
    // away (ACP_IDLE): the peer this loop waits for may need it.
    if (progressed == 0 && rt->yield_at_once) {
        lk.unlock();
        sched_yield();
    }
    return state;
} catch (...) {
    return acpx::basic::report_exception("acp_inquire"), -1;
}

extern "C" acp_handle_t acp_query_failed(acp_handle_t first, acp_handle_t last) try {
    constexpr const char *fn = "acp_query_failed";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    acp_handle_t to = 0;
    if (!target_handle(*rt, last, fn, &to)) return ACP_HANDLE_NULL;
    if (first < 0 || first > to)
        return report(fn, "first", "%lld is not a handle in [0, last = %lld]", static_cast<long long>(first),
                      static_cast<long long>(to)),
               ACP_HANDLE_NULL;
    rt->progress_locked();
    return rt->first_failure(first, to);
} catch (...) {
    return acpx::basic::report_exception("acp_query_failed"), ACP_HANDLE_NULL;
}
