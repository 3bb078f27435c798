// Creating a handle: argument checks, the collective exchange of every
// member's GAs (which also detects members whose arguments disagree), and
// the member's plan.
#pragma once

#include <sched.h>

#include <chrono>
#include <thread>

#include "col.hpp"

namespace acpx::middle {

// Checks the group of a create: np_group >= 1, group not NULL, ranks in
// range and distinct, the caller in it. Reports under fn. On success *me
// is the caller's index.
bool check_group(const char *fn, int np_group, const int *group, uint32_t *me);
// Root >= 0 (bcast): the root is in the group. Reports under fn.
bool check_root(const char *fn, int root, int np_group, const int *group);

// Reads ACP_COL_EXEC and the algorithm variable of p.kind into p.
// False, reported under fn, on a value that is not one of the choices.
bool read_choices(const char *fn, Params *p);

// Runs the collective part of a create: the algorithm (the coordinator's
// choice, choose.hpp), then the exchange. array/array_bytes: direct, the
// user's array; buffered: nullptr, and the buffer is allocated here.
// Returns the new handle (owned by st; its p holds the algorithm), or
// nullptr with every member returning failure, the message naming what
// went wrong. own_error: "arg: reason" when this member's own arguments
// are bad (already reported): it takes part all the same, so that every
// member fails this create with that message and counts it, and the
// next create on the group matches up. *predicted_s: the model's time for
// a round (0 if forced).
Col *create_col(const char *fn, State &st, Params p, uint32_t me, const int *group, void *array, size_t array_bytes,
                const std::string &own_error, double *predicted_s);

// Releases what a handle owns (its registrations and memory).
void release(Col &c);
// Keeps a handle's block (its control block or buffer) from the next
// creates until acp_finalize (a peer may still write into it:
// alloc_block) and takes it from the handle.
void quarantine(State &st, basic::layer::SharedMemory &m);

// A hash of a list of ranks, in their order (Params::group_hash; a
// create's set, sorted; a one-call group's cache).
uint64_t group_hash(const int *group, size_t n);

// Files every middle-layer message that arrived: a create's under its
// create, a channel's in the channel table, a segmented buffer's in its,
// a one-call group's GaveUp in the one-call caches.
void collect_mail(State &st);

// Polls until done() or ACP_TIMEOUT (false); takes the messages and moves
// every handle meanwhile, yielding the core, then sleeping between polls.
template <class Done>
bool poll_until(State &st, Done done) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(basic::layer::timeout_seconds());
    for (unsigned spins = 0;; ++spins) {
        collect_mail(st);
        if (done()) return true;
        progress_all(st);
        if (Clock::now() > deadline) return false;
        if (spins > 200)
            std::this_thread::sleep_for(std::chrono::microseconds(spins > 5000 ? 200 : 10));
        else
            sched_yield();
    }
}

}  // namespace acpx::middle
