#include "fault_injection.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "api_common.hpp"
#include "errors.hpp"
#include "runtime.hpp"

namespace acpx::basic {

namespace {
// What an issuer would know of registration `r` had it looked before an
// unregistration: a generation the target never had.
std::shared_ptr<RemoteReg> stale_copy(const RemoteReg &r) {
    auto s = std::make_shared<RemoteReg>();
    s->base = r.base;
    s->size = r.size;
    s->gen = r.gen + 1000;
    return s;
}
}  // namespace

// Reads `spec` (fault_injection.hpp) for rank `rank` into the
// countdowns (items for other ranks are skipped); false, reported, if
// malformed.
bool parse_faults(const char *spec, int rank, Faults *f, const char *fn) {
    std::string all(spec);
    size_t pos = 0;
    while (pos <= all.size()) {
        const size_t end = std::min(all.find(',', pos), all.size());
        const std::string item = all.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        const size_t colon = item.find(':');
        const std::string what = item.substr(0, colon);
        char *rest = nullptr;
        const char *num = colon == std::string::npos ? "" : item.c_str() + colon + 1;
        const unsigned long long n = std::strtoull(num, &rest, 10);
        long rank_only = -1;
        if (rest != num && *rest == '@') rank_only = std::strtol(rest + 1, &rest, 10);
        uint64_t *countdown = what == "start"    ? &f->start_in
                              : what == "data"   ? &f->data_in
                              : what == "exec"   ? &f->exec_in
                              : what == "landed" ? &f->landed_in
                              : what == "sent"   ? &f->sent_in
                              : what == "piece"  ? &f->piece_in
                                                 : nullptr;
        if (!countdown || rest == num || *rest != '\0' || n == 0)
            return report(
                fn, "spec",
                "'%s' is not start:N, data:N, exec:N, landed:N, sent:N or piece:N, with N >= 1 and an optional @RANK",
                item.c_str());
        if (rank_only >= 0 && rank_only != rank) continue;
        *countdown = n;
    }
    return true;
}

}  // namespace acpx::basic

extern "C" int acpx_test_fail(const char *spec) try {
    using namespace acpx::basic;
    Runtime *rt = api::need("acpx_test_fail");
    if (!rt) return -1;
    if (!spec) return report("acpx_test_fail", "spec", "is NULL"), -1;
    auto lk = rt->lock_api();
    return parse_faults(spec, rt->rank, &rt->faults, "acpx_test_fail") ? 0 : -1;
} catch (...) {
    return acpx::basic::report_exception("acpx_test_fail"), -1;
}

extern "C" acp_handle_t acpx_test_copy_unchecked(acp_ga_t dst, acp_ga_t src, size_t size) try {
    using namespace acpx::basic;
    constexpr const char *fn = "acpx_test_copy_unchecked";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    api::Target s;
    if (!api::resolve(*rt, lk, src, size, fn, "src", false, &s)) return ACP_HANDLE_NULL;
    if (s.local) return report(fn, "src", "must be another rank's memory"), ACP_HANDLE_NULL;
    Gma g;
    g.fn = fn;
    g.kind = GmaKind::kDelegated;
    g.peer = static_cast<int>(s.p.rank);
    g.dst = dst;
    g.src = src;
    g.size = size;
    return rt->issue(std::move(g), ACP_HANDLE_NULL);
} catch (...) {
    return acpx::basic::report_exception("acpx_test_copy_unchecked"), ACP_HANDLE_NULL;
}

extern "C" acp_handle_t acpx_test_signal_put_stale(acp_ga_t dst, const void *data, size_t n) try {
    using namespace acpx::basic;
    constexpr const char *fn = "acpx_test_signal_put_stale";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    api::Target d;
    if (!api::resolve(*rt, lk, dst, n, fn, "dst", false, &d)) return ACP_HANDLE_NULL;
    if (d.local || n < 8) return report(fn, "dst", "must be another rank's memory, at least 8 bytes"), ACP_HANDLE_NULL;
    Gma g;
    g.fn = fn;
    g.kind = GmaKind::kSignal;
    g.peer = static_cast<int>(d.p.rank);
    g.dst = dst;
    g.size = n;
    g.signal = 8;
    g.remote = stale_copy(*d.reg);
    Runtime::set_signal_payload(g, {data, n}, {nullptr, 0});
    return rt->issue(std::move(g), ACP_HANDLE_NULL);
} catch (...) {
    return acpx::basic::report_exception("acpx_test_signal_put_stale"), ACP_HANDLE_NULL;
}

extern "C" acp_handle_t acpx_test_put_stale(acp_ga_t dst, const void *src, size_t n) try {
    using namespace acpx::basic;
    constexpr const char *fn = "acpx_test_put_stale";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_HANDLE_NULL;
    auto lk = rt->lock_api();
    api::Target d;
    if (!api::resolve(*rt, lk, dst, n, fn, "dst", false, &d)) return ACP_HANDLE_NULL;
    Gma g;
    g.fn = fn;
    g.kind = GmaKind::kPut;
    g.peer = static_cast<int>(d.p.rank);
    g.dst = dst;
    g.size = n;
    g.local = const_cast<char *>(static_cast<const char *>(src));
    g.raddr = d.raddr;
    if (d.local || !rt->put_by_message(g))
        return report(fn, "dst", "must be another node's memory, a put small enough to go as a message"),
               ACP_HANDLE_NULL;
    g.remote = stale_copy(*d.reg);
    return rt->issue(std::move(g), ACP_HANDLE_NULL);
} catch (...) {
    return acpx::basic::report_exception("acpx_test_put_stale"), ACP_HANDLE_NULL;
}

extern "C" size_t acpx_test_sources_held(void) {
    acpx::basic::Runtime *rt = acpx::basic::runtime();
    if (!rt) return 0;
    auto lk = rt->lock_api();
    return rt->sources_held;
}
