// Runtime::wait_locked: the one way the application thread waits.
// It makes progress itself (lowest latency), yields the core after a short
// spin (ranks may outnumber cores), then naps, and never waits past
// ACP_TIMEOUT: then it ends the job naming what it waited for.
#pragma once

#include <sched.h>
#include <time.h>

#include <chrono>

#include "errors.hpp"

namespace acpx::basic {

template <class Done, class What>
void Runtime::wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done,
                          What what) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration<double>(cfg.timeout_s);
    unsigned idle = 0;
    while (!done()) {
        if (progress_locked() != 0) {
            idle = 0;
            continue;
        }
        if (done()) return;
        ++idle;
        if (idle > 32) {
            lk.unlock();
            if (idle < 2000) {
                sched_yield();
            } else {
                const timespec nap{0, 50 * 1000};
                nanosleep(&nap, nullptr);
            }
            lk.lock();
        }
        if ((idle & 63) == 0 && clock::now() > deadline)
            fatal("%s: waited %.0f s (ACP_TIMEOUT) for %s", fn, cfg.timeout_s, what().c_str());
    }
}

}  // namespace acpx::basic
