// C API: infrastructure (init, finalize, abort, sync, rank, procs).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "api_common.hpp"

using namespace acpx::basic;

namespace acpx::basic {
bool parse_faults(const char *spec, int rank, Faults *f, const char *fn);  // fault_injection.cpp
}

extern "C" int acp_init(int *, char ***) try {
    if (runtime()) return report("acp_init", "state", "acpx is already initialized in this process"), -1;
    Config cfg;
    if (!cfg.load()) return -1;
    // Tests only (fault_injection.hpp): checked before anything starts.
    const char *faults = std::getenv("ACPX_TEST_FAIL");
    Faults unused;
    if (faults && *faults && !parse_faults(faults, -1, &unused, "acp_init")) return -1;
    Runtime *rt = Runtime::create(cfg);
    if (!rt) return -1;
    if (faults && *faults) parse_faults(faults, rt->rank, &rt->faults, "acp_init");
    set_runtime(rt);
    return 0;
} catch (...) {
    return acpx::basic::report_exception("acp_init"), -1;
}

extern "C" int acp_finalize(void) try {
    Runtime *rt = api::need("acp_finalize");
    if (!rt) return -1;
    const bool ok = rt->finalize();
    set_runtime(nullptr);
    delete rt;
    return ok ? 0 : -1;
} catch (...) {
    return acpx::basic::report_exception("acp_finalize"), -1;
}

extern "C" void acp_abort(const char *str) {
    Runtime *rt = runtime();
    if (rt)
        std::fprintf(stderr, "acpx: rank %d: abort: %s\n", rt->rank, str ? str : "");
    else
        std::fprintf(stderr, "acpx: abort: %s\n", str ? str : "");
    std::fflush(nullptr);
    if (rt && rt->boot) rt->boot->abort(str ? str : "acp_abort");
    _exit(1);
}

extern "C" int acp_sync(void) try {
    Runtime *rt = api::need("acp_sync");
    if (!rt) return -1;
    auto lk = rt->lock_api();
    rt->wait_completed(lk, "acp_sync", rt->last_issued);
    return rt->barrier(lk, "acp_sync") ? 0 : -1;
} catch (...) {
    return acpx::basic::report_exception("acp_sync"), -1;
}

extern "C" int acp_rank(void) {
    Runtime *rt = api::need("acp_rank");
    return rt ? rt->rank : -1;
}

extern "C" int acp_procs(void) {
    Runtime *rt = api::need("acp_procs");
    return rt ? rt->procs : -1;
}
