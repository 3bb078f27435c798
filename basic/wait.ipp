// Runtime::wait_locked: the one way the application thread waits.
// 1. spin: make progress itself (lowest latency for fast completions),
//    even where this node's ranks outnumber its CPUs: a copy through
//    the transport completes by this thread's progress calls, and
//    yielding each empty one made an 8 B put through UCX (ACP_CMA=0, 3
//    ranks on the 2-core VM) take 33 us instead of 1.2 (ACP_IDLE applies
//    to the collectives' waits, whose peers' stores need the core);
// 2. yield the core between progress calls;
// 3. block on `progressed`, which the agent signals whenever it made
//    progress, so a rank that waits long (a barrier, a slow peer) costs
//    nothing. No wake-up is lost: both sides hold `mu`.
// Past ACP_TIMEOUT it ends the job naming what it waited for.
#pragma once

#include <sched.h>

#include <chrono>

#include "errors.hpp"

namespace acpx::basic {

template <class Done, class What>
void Runtime::wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done,
                          What what) {
    using clock = std::chrono::steady_clock;
    constexpr unsigned kSpin = 2000, kYield = 200;
    const auto deadline = clock::now() + std::chrono::duration<double>(cfg.timeout_s);
    unsigned idle = 0;
    while (!done()) {
        if (progress_locked() != 0) {
            idle = 0;
            continue;
        }
        if (done()) return;
        ++idle;
        if (idle < kSpin) continue;
        if (idle < kSpin + kYield) {
            lk.unlock();
            sched_yield();
            lk.lock();
            continue;
        }
        ++app_blocked;
        progressed.wait_for(lk, std::chrono::milliseconds(100));
        --app_blocked;
        if (clock::now() > deadline)
            fatal("%s: waited %.0f s (ACP_TIMEOUT) for %s", fn, cfg.timeout_s, what().c_str());
    }
}

}  // namespace acpx::basic
