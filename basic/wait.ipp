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
// Past ACP_TIMEOUT since the last sign of life of what it waits for
// (life() changed), it ends the job naming what it waited for.
#pragma once

#include <sched.h>

#include <chrono>

#include "errors.hpp"

namespace acpx::basic {

template <class Done, class What, class Life>
void Runtime::wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done, What what, Life life) {
    using clock = std::chrono::steady_clock;
    constexpr unsigned kSpin = 2000, kYield = 200;
    // Traffic that is not what we wait for (other peers' messages keep
    // progress busy) must not postpone the deadline: the clock is read on
    // every pass that found nothing to do and on every 64th busy one, and
    // only life() moving on (what we wait for progressed) moves it.
    constexpr unsigned kBusyPassesPerClockRead = 64;
    const auto limit = std::chrono::duration<double>(cfg.timeout_s);
    auto deadline = clock::now() + limit;
    auto seen = life();
    unsigned idle = 0, busy = 0;
    while (!done()) {
        if (progress_locked() != 0) {
            idle = 0;
            if (++busy % kBusyPassesPerClockRead != 0) continue;
        } else {
            if (done()) return;
            ++idle;
        }
        const auto now = clock::now();
        if (const auto l = life(); l != seen) {
            seen = l;
            deadline = now + limit;
        } else if (now > deadline) {
            fatal("%s: waited %.0f s (ACP_TIMEOUT) for %s", fn, cfg.timeout_s, what().c_str());
        }
        if (idle < kSpin) continue;
        if (idle < kSpin + kYield) {
            lk.unlock();
            sched_yield();
            lk.lock();
            continue;
        }
        ++agent.app_blocked;
        agent.progressed.wait_for(lk, std::chrono::milliseconds(100));
        --agent.app_blocked;
    }
}

}  // namespace acpx::basic
