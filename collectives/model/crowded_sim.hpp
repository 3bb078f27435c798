// Rounds of a collective on one node whose members outnumber its cores,
// simulated event by event. There a round's time is not a sum of steps:
// it is set by which member holds each core when its data lands. The
// engine's members poll, and yield the core when nothing moves
// (acp_wait_col), so a member sharing a core sees its data only once the
// members ahead of it have yielded; one alone on its core sees it at once.
//
// The simulation follows the engine (middle/round.cpp, delegated mode):
//   - member m runs on core m mod cores (acprun --bind-to core); with
//     out_of_phase each core but the first starts on its second member
//     (the cores out of phase: the 2-core VM's rounds measure so);
//   - a member starts round k by signalling that it is ready; an entry
//     goes once its receiver is ready (inline rounds: once the receiver
//     started round k-1) and, if it forwards, once its sender has seen
//     the data arrive; its copy lands after copy_s, and cold_s more if
//     its receiver forwards that data from another core: it writes lines
//     that core then reads (crowd_costs.hpp, forward_s); it holds the
//     sender's core all that time, or for busy_s only (a plain store:
//     the rest is the data and its signal on their way);
//   - copies from different cores into the same receiver at once run
//     `converge` times slower each while they overlap (one more such
//     copy: converge - 1 more), as cores sharing the time: under
//     Cross-Memory Attach two writers into one process's array contend
//     in its kernel page tables (on the 2-core VM two 512 KiB copies into
//     adjacent halves of one array took 42-59 us each, alone 31; 2 MiB
//     apart, 31);
//   - copies from different cores into different receivers run
//     `concurrent` times slower each while they overlap (a factor a
//     calibration solves, crowd_costs.hpp);
//   - a member's round ends when it has seen all its data, made all its
//     copies and (inline) all its receivers started the round; it then
//     starts the next round, as a benchmark loop of send + wait does;
//   - a member with nothing to do yields: if its core holds others, the
//     next one runs after switch_s; alone, it waits for the next event.
// The result is the steady time of a round: rounds 2-5 of 8.
#pragma once

#include <cstdint>
#include <vector>

namespace acpx::collectives::model {

struct SimEntry {
    uint32_t src, dst;
    int32_t dep;    // the entry that delivered src's data (index in the input), -1: the root's own
    double copy_s;  // from the copy's start till its data is there
    double cold_s = 0;  // more, if an entry that forwards this one's data runs on another core
    double converge = 1;  // how many times slower while another core copies into the same receiver (>= 1)
    // How long the copy holds its sender's core, where less than copy_s
    // (< 0: copy_s and cold_s, the whole copy). An inline round's copy is
    // a memcpy into the receiver's mapped slot: its core goes on while
    // the lines and the arrival stamp travel, and while the receiver
    // takes its turn to see them. Ignored with converge > 1 or concurrent
    // != 1 (those are process_vm_writev copies, which hold the core
    // throughout).
    double busy_s = -1;
    // How many times slower while another core copies into another
    // receiver (> 0; 1: not at all; under 1: faster, as a factor solved
    // against a calibration may say). Only copies from two cores overlap:
    // a copy holds its sender's core.
    double concurrent = 1;
};

struct SimInput {
    uint32_t members = 0;
    unsigned cores = 1;
    bool eager = false;    // inline round: data may go once the receiver started the previous round
    // Each core but the first starting on its second member
    // (simulate_rounds); false: the cores in phase, each on its first.
    bool out_of_phase = false;
    double switch_s = 0;   // from one member to the next on a core
    std::vector<SimEntry> entries;  // each member issues its own in this order
};

// One event of a traced round (trace_round).
struct SimEvent {
    double t = 0;  // seconds since the round's first event
    uint32_t core = 0, member = 0;
    int32_t entry = -1;  // a copy its member starts: the entry (index in the input); -1: the member's round ends
    double lands = 0;    // a copy: when its data is there (same clock)
};

// Seconds per round, steady state, the mean over switch times 0.65-1.35x
// switch_s; +inf if the
// entries cannot complete: a member or dependency out of range, a
// dependency that delivers to another member than the entry's sender, a
// negative copy or cold time, a converge factor below 1, a concurrent
// factor not above 0, a busy time that is not a number.
double simulate_rounds(const SimInput &in);

// What one steady round (the first of those simulate_rounds times) of a
// run at switch_s itself does, in time order: each copy as its sender
// starts it, and each member's round end. simulate_rounds averages runs
// at 0.65-1.35x switch_s, so this is one of the turns the cores can take
// (starting as out_of_phase says).
// Empty where simulate_rounds is +inf or 0.
std::vector<SimEvent> trace_round(const SimInput &in);

}  // namespace acpx::collectives::model
