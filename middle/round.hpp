// Running rounds of a handle: start, progress, finish, time out.
#pragma once

#include "col.hpp"

namespace acpx::middle {

// Starts user round c.round+1 with the arguments already stored in c
// (offset/size, in/out). False, reported under fn, if a GMA cannot be issued.
bool start_round(Col &c, const char *fn);

// Moves c forward without waiting; true if anything moved.
bool advance(Col &c);
// Retires the handle's trailing segments (Col::trail) whose GMAs are
// complete; true if any retired. The first failure among them is
// described in *lost (if it is empty).
bool retire_trail(Col &c, std::string *lost);

// True once round r is finished here (or r is older).
inline bool round_done(const Col &c, uint64_t r) { return c.done_round >= r; }

// The current segment is unfinished longer than ACP_TIMEOUT after a wait
// first found it so (timed from then; the clock is read every
// kPollsPerClockRead calls).
inline constexpr uint32_t kPollsPerClockRead = 64;
bool overdue(Col &c);

// What the current segment still waits for, naming ranks.
std::string pending(const Col &c);

// The members on this node this one writes into that have not started
// its last round yet ("rank 3, rank 5"; "" when none): small rounds run
// ahead of them, so acp_free_col waits for them before the control block
// goes (those on other nodes: unsettled_ready).
std::string lagging(const Col &c);

// The receivers on other nodes that have not said they started this
// member's last round (their ready bytes come one in a few small rounds,
// the last at their acp_free_col: say_ready): offsets of their ready bytes
// in the control block. acp_free_col parks the block until they have.
std::vector<size_t> unsettled_ready(const Col &c);
// This member's ready byte for its last segment to every executor on
// another node it was not sent to (at acp_free_col; not waited for). False,
// reported under fn, if one cannot be issued.
bool say_ready(Col &c, const char *fn);
// Releases the parked control blocks whose receivers have all caught up.
void release_parked(State &st);

// A GMA of the current segment: the first and the last are remembered
// (failures are looked for between them). Returns h.
acp_handle_t track(Col &c, acp_handle_t h);
// Retires the trail (retire_trail); a copy found lost there fails the
// current round (note_error). True if any retired.
bool retire_trail_into_round(Col &c);

// The first error of the current round on this member; acp_wait_col
// returns -1 with it.
void note_error(Col &c, const std::string &what);

// Gives up the current round: the handle can only be freed afterwards.
void break_handle(Col &c, const std::string &why);

// A member that leaves (broken, freed) gives every pool chunk named in its
// slots back to its senders (eager_pool.hpp), read or not, and frees the
// bodies of held puts they name (basic::layer::release_held).
void give_back_every_chunk(Col &c);

// Yields the core while nothing moves: after kSpinPolls idle polls
// (~13 us), or at once where the node's ranks outnumber its CPUs
// (ACP_IDLE); after kYieldPolls yields more (~10 ms) sleeps between polls.
// A rank with a core of its own spins through a round of up to ~10 us: on
// the 2-core VM a sched_yield between polls costs a 16-64 KiB round ~0.3
// us of its 1.4-3.7 (the wake-up comes inside the system call). Spinning
// longer gains nothing and costs ranks that share cores unbeknown to them
// (the two-host bed: 2 + 2 ranks on 2 cores, each host seeing 2 CPUs)
// (doc/measurements/2026-12-05-spin-before-yield.md).
inline constexpr unsigned kSpinPolls = 512, kYieldPolls = 4096;
void pause_if_idle(unsigned idle);

}  // namespace acpx::middle
