// C API: registration and GA queries.
#include "api_common.hpp"

using namespace acpx::basic;

namespace acpx::basic::api {

bool resolve(Runtime &rt, std::unique_lock<std::mutex> &lk, acp_ga_t g, size_t size, const char *fn, const char *arg,
             bool want_key, Target *out) {
    if (g == ACP_GA_NULL) return report(fn, arg, "is ACP_GA_NULL");
    out->p = ga::decode(g);
    const ga::Parts &p = out->p;
    if (p.rank >= static_cast<uint32_t>(rt.procs))
        return report(fn, arg, "GA 0x%llx names rank %u, but the job has %d processes",
                      static_cast<unsigned long long>(g), p.rank, rt.procs);
    uint64_t reg_size = 0;
    out->local = p.rank == static_cast<uint32_t>(rt.rank);
    if (out->local && !want_key) {
        LocalReg *r = rt.local_reg(p.tag);
        if (!r)
            return report(fn, arg, "GA 0x%llx names tag %u of this rank, which is not registered",
                          static_cast<unsigned long long>(g), p.tag);
        reg_size = r->size;
        out->addr = r->base + p.offset;
    } else {
        out->reg = rt.lookup(lk, p.rank, p.tag, fn, arg);
        if (!out->reg) return false;
        reg_size = out->reg->size;
        out->raddr = out->reg->base + p.offset;
        if (out->local) out->addr = reinterpret_cast<char *>(out->raddr);
    }
    if (!ga::fits(p.offset, size, reg_size))
        return report(fn, arg,
                      "GA 0x%llx + %zu bytes passes the end of its registration "
                      "(offset %llu of %llu bytes, rank %u tag %u)",
                      static_cast<unsigned long long>(g), size, static_cast<unsigned long long>(p.offset),
                      static_cast<unsigned long long>(reg_size), p.rank, p.tag);
    return true;
}

bool resolve_order(Runtime &rt, acp_handle_t order, const char *fn, acp_handle_t *out) {
    if (order == ACP_HANDLE_ALL || order == ACP_HANDLE_CONT) {
        *out = rt.last_issued;
        return true;
    }
    if (order < 0 || order > rt.last_issued)
        return report(fn, "order", "handle %lld was not issued by this process (last: %lld)",
                      static_cast<long long>(order), static_cast<long long>(rt.last_issued));
    *out = order;
    return true;
}

}  // namespace acpx::basic::api

extern "C" acp_ga_t acp_query_starter_ga(int rank) try {
    Runtime *rt = api::need("acp_query_starter_ga");
    if (!rt) return ACP_GA_NULL;
    if (rank < 0 || rank >= rt->procs)
        return report("acp_query_starter_ga", "rank", "%d is not in [0, %d)", rank, rt->procs), ACP_GA_NULL;
    return ga::encode(static_cast<uint32_t>(rank), ga::kStarterTag, 0);
} catch (...) {
    return acpx::basic::report_exception("acp_query_starter_ga"), ACP_GA_NULL;
}

extern "C" acp_atkey_t acp_register_memory(void *addr, size_t size, int color) try {
    Runtime *rt = api::need("acp_register_memory");
    if (!rt) return ACP_ATKEY_NULL;
    if (!addr) return report("acp_register_memory", "addr", "is NULL"), ACP_ATKEY_NULL;
    if (size == 0 || size > ga::kMaxRegistration)
        return report("acp_register_memory", "size", "%zu is not in [1, 16 GiB]", size), ACP_ATKEY_NULL;
    if (color < 0 || color >= acp_colors())
        return report("acp_register_memory", "color", "%d is not in [0, %d)", color, acp_colors()), ACP_ATKEY_NULL;
    auto lk = rt->lock_api();
    return rt->register_memory(addr, size, color);
} catch (...) {
    return acpx::basic::report_exception("acp_register_memory"), ACP_ATKEY_NULL;
}

extern "C" int acp_unregister_memory(acp_atkey_t atkey) try {
    Runtime *rt = api::need("acp_unregister_memory");
    if (!rt) return -1;
    auto lk = rt->lock_api();
    return rt->unregister_memory(lk, atkey);
} catch (...) {
    return acpx::basic::report_exception("acp_unregister_memory"), -1;
}

extern "C" acp_ga_t acp_query_ga(acp_atkey_t atkey, void *addr) try {
    Runtime *rt = api::need("acp_query_ga");
    if (!rt) return ACP_GA_NULL;
    auto lk = rt->lock_api();
    const uint32_t tag = static_cast<uint32_t>(atkey & (ga::kMaxTags - 1));
    LocalReg *r = rt->local_reg(tag);
    if (atkey == ACP_ATKEY_NULL || !r || r->gen != atkey >> ga::kTagBits)
        return report("acp_query_ga", "atkey", "0x%llx is not a live registration key",
                      static_cast<unsigned long long>(atkey)),
               ACP_GA_NULL;
    auto *p = static_cast<char *>(addr);
    if (p < r->base || p >= r->base + r->size)
        return report("acp_query_ga", "addr", "%p is outside the registration [%p, +%zu)", addr,
                      static_cast<void *>(r->base), r->size),
               ACP_GA_NULL;
    return ga::encode(static_cast<uint32_t>(rt->rank), tag, static_cast<uint64_t>(p - r->base));
} catch (...) {
    return acpx::basic::report_exception("acp_query_ga"), ACP_GA_NULL;
}

extern "C" void *acp_query_address(acp_ga_t g) try {
    Runtime *rt = api::need("acp_query_address");
    if (!rt) return nullptr;
    if (g == ACP_GA_NULL) return report("acp_query_address", "ga", "is ACP_GA_NULL"), nullptr;
    auto lk = rt->lock_api();
    const ga::Parts p = ga::decode(g);
    if (p.rank != static_cast<uint32_t>(rt->rank)) return nullptr;  // another rank's: no address
    LocalReg *r = rt->local_reg(p.tag);
    if (!r || p.offset >= r->size)
        return report("acp_query_address", "ga", "0x%llx is not a registered byte of this rank",
                      static_cast<unsigned long long>(g)),
               nullptr;
    return r->base + p.offset;
} catch (...) {
    return acpx::basic::report_exception("acp_query_address"), nullptr;
}

extern "C" int acp_query_rank(acp_ga_t g) try {
    Runtime *rt = api::need("acp_query_rank");
    if (!rt) return -1;
    if (g == ACP_GA_NULL) return report("acp_query_rank", "ga", "is ACP_GA_NULL"), -1;
    const ga::Parts p = ga::decode(g);
    if (p.rank >= static_cast<uint32_t>(rt->procs))
        return report("acp_query_rank", "ga", "names rank %u, but the job has %d processes", p.rank, rt->procs), -1;
    return static_cast<int>(p.rank);
} catch (...) {
    return acpx::basic::report_exception("acp_query_rank"), -1;
}

extern "C" int acp_query_color(acp_ga_t g) try {
    Runtime *rt = api::need("acp_query_color");
    if (!rt) return -1;
    auto lk = rt->lock_api();
    api::Target t;
    if (!api::resolve(*rt, lk, g, 0, "acp_query_color", "ga", true, &t)) return -1;
    return t.reg->color;
} catch (...) {
    return acpx::basic::report_exception("acp_query_color"), -1;
}

extern "C" int acp_colors(void) { return 1; }
