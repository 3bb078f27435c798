// Helpers shared by the C API entry points: the "initialized?" check and
// GA resolution with the argument checks every GMA needs.
#pragma once

#include "acp.h"
#include "errors.hpp"
#include "runtime.hpp"

namespace acpx::basic::api {

// The runtime, or nullptr after reporting that fn was called outside
// acp_init .. acp_finalize.
inline Runtime *need(const char *fn) {
    clear_last_error();  // an exception carries this call's message, not an older one
    Runtime *rt = runtime();
    if (!rt) report_uninitialized(fn);
    return rt;
}

// A GA checked for a GMA of `size` bytes.
struct Target {
    ga::Parts p{};
    bool local = false;
    char *addr = nullptr;  // when local
    RemoteRegPtr reg;      // when remote, or when a key is needed
    uint64_t raddr = 0;    // address at the owner
};

// Checks g (not null, known rank, registered tag, [offset, +size) inside
// the registration) and resolves it. want_key: also resolve a key for a
// local GA (atomics go through the transport even on local memory).
bool resolve(Runtime &rt, std::unique_lock<std::mutex> &lk, acp_ga_t g, size_t size, const char *fn, const char *arg,
             bool want_key, Target *out);

// Turns `order` into a handle (ALL/CONT: the last issued); false, reported,
// if it names a GMA not yet issued.
bool resolve_order(Runtime &rt, acp_handle_t order, const char *fn, acp_handle_t *out);

}  // namespace acpx::basic::api
