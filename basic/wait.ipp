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
// (life() changed), it ends the job naming what it waited for. A sign of
// life is also the answer of the rank it waits for (peer()) to a probe,
// sent when nothing has moved for half of ACP_TIMEOUT: that rank is alive,
// busy with something else (copying into this rank for longer than the
// timeout, computing before its acp_sync), and the wait goes on. A rank
// that died, hangs in the kernel or is stopped does not answer.
#pragma once

#include <sched.h>

#include <chrono>

#include "errors.hpp"

namespace acpx::basic {

template <class Done, class What, class Life, class Peer>
void Runtime::wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done, What what, Life life,
                          Peer peer) {
    using clock = std::chrono::steady_clock;
    constexpr unsigned kSpin = 2000, kYield = 200;
    // Traffic that is not what we wait for (other peers' messages keep
    // progress busy) must not postpone the deadline: the clock is read on
    // every pass that found nothing to do and on every 64th busy one, and
    // only life() moving on (what we wait for progressed), or the awaited
    // rank answering a probe, moves it.
    constexpr unsigned kBusyPassesPerClockRead = 64;
    const auto limit = std::chrono::duration<double>(cfg.timeout_s);
    auto deadline = clock::now() + limit;
    auto seen = life();
    int probed = -1;            // the rank probed since the deadline last moved; -1: none
    bool probe_due = true;      // no probe tried since the deadline last moved
    uint64_t answers_then = 0;  // the probed rank's answers when probed
    unsigned idle = 0, busy = 0;
    hurry();
    struct Waiting {  // counted while it waits (completion_waiters)
        unsigned &n;
        explicit Waiting(unsigned &count) : n(count) { ++n; }
        ~Waiting() { --n; }
    } waiting_here(completion_waiters);
    while (!done()) {
        // While this thread polls, it makes all the progress the agent
        // would: the agent stays off the lock and the core (agent.cpp), as
        // for a collective's wait (layer::progress). Two threads of each
        // rank taking turns at the lock made an 8 B put and its
        // completion between two hosts cost twice the messages' time.
        note_app_polled();
        if (progress_locked() != 0) {
            idle = 0;
            if (++busy % kBusyPassesPerClockRead != 0) continue;
        } else {
            if (done()) return;
            ++idle;
        }
        const auto now = clock::now();
        if (const auto l = life(); l != seen || (probed >= 0 && liveness.answers[probed] != answers_then)) {
            // What we wait for moved on, or the rank it waits for answered:
            // it is alive and will get to it.
            seen = l;
            deadline = now + limit;
            probed = -1;
            probe_due = true;
        } else {
            if (probe_due && now > deadline - limit / 2) {
                probe_due = false;
                if (const int p = peer(); p >= 0 && p < procs && p != rank && probe(p)) {
                    probed = p;
                    answers_then = liveness.answers[p];
                }
            }
            if (now > deadline)
                fatal("%s: waited %.0f s (ACP_TIMEOUT) for %s%s", fn, cfg.timeout_s, what().c_str(),
                      probed >= 0 ? ("; rank " + std::to_string(probed) + " did not answer a liveness probe").c_str()
                                  : "");
        }
        if (idle < kSpin) continue;
        if (idle < kSpin + kYield || Agent::on_agent_thread) {  // nobody else would wake the agent
            lk.unlock();
            sched_yield();
            lk.lock();
            continue;
        }
        agent.app_polled_ns.store(0, std::memory_order_relaxed);  // blocks: the agent goes on at once
        wake_agent();
        ++agent.app_blocked;
        agent.progressed.wait_for(lk, std::chrono::milliseconds(100));
        --agent.app_blocked;
    }
}

}  // namespace acpx::basic
