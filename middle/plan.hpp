// A member's plan for one handle: the command lists bound to the members'
// GAs, reduced to what this member needs. Built by a pure function from
// the parameters and the table of every member's GAs, so the memory a
// handle holds at 10^6 members is computed by the same code in one
// process (test/middle/plan_memory_test.cpp), without launching anything.
//
// Control block of every member (acpx-allocated shared memory, registered;
// on-node peers map it, so signals into it are single 8-byte stores).
// Slots come in pairs, by round parity, so a sender may fill round s+1
// while the receiver still reads round s:
//   [0]              stamp: this member's current round, written to others
//   [8]              ready source byte (the round's low 8 bits)
//   [16]             arrive[n_in][2]: a sender's stamp once block b is here
//   [16 + 16 n_in]   fwd[n_in][2]: root mode, copies reading block b from
//                    this member are complete (it may reuse its array)
//   [16 + 32 n_in]   inline[n_in][2]: inline_bytes; a round that small
//                    travels here (plain stores, no system call, and eagerly:
//                    see round.cpp) and the receiver copies it into place
//   [ready(n_in)]    ready[n_ready]: receivers' "I called send" bytes
// n_in is the number of blocks (slots_of): np_group for allgather, 1 for
// a bcast tree, more for the multi-block bcasts (pipeline, scatter_ring).
#pragma once

#include <acp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectives/command_list.hpp"
#include "params.hpp"

namespace acpx::middle {

struct MemberAddr {
    acp_ga_t data = ACP_GA_NULL;  // byte 0 of the member's array or buffer
    acp_ga_t ctl = ACP_GA_NULL;   // byte 0 of its control block
};

namespace ctl {
inline constexpr size_t kStamp = 0, kReadySrc = 8, kSlots = 16;
// Signal slot `slot` (arrive: block; fwd: n_in + block) of a parity.
inline size_t signal(uint32_t slot, uint64_t parity) { return kSlots + 8 * (2 * size_t{slot} + (parity & 1)); }
inline size_t arrive(uint32_t block, uint64_t parity) { return signal(block, parity); }
inline size_t fwd(uint32_t n_in, uint32_t block, uint64_t parity) { return signal(n_in + block, parity); }
// inl: the handle's inline slot size (inline_bytes_for).
inline size_t inline_at(uint32_t n_in, size_t inl, uint32_t block, uint64_t parity) {
    return kSlots + 32 * size_t{n_in} + inl * (2 * size_t{block} + (parity & 1));
}
inline size_t ready(uint32_t n_in, size_t inl) { return kSlots + (32 + 2 * inl) * size_t{n_in}; }
}  // namespace ctl

// Delegated mode: an entry whose source this member holds.
struct OutEntry {
    uint32_t block = 0;
    uint32_t ready = 0;  // the ready byte its receiver writes here (one per receiver)
    int32_t dst_rank = -1;
    bool wait = false;  // true: forward once block arrived here; false: this member is the origin
    acp_ga_t dst_data = ACP_GA_NULL;
    acp_ga_t dst_arrive = ACP_GA_NULL;  // its arrive slot for the block, parity 0
    acp_ga_t dst_inline = ACP_GA_NULL;  // its inline slot for the block, parity 0
};
static_assert(sizeof(OutEntry) == 40, "delegated memory per entry (middle/README.md)");

struct Plan {
    uint32_t members = 0, me = 0;
    uint32_t n_in = 1;     // arrive (and fwd) slots
    uint32_t n_ready = 0;  // ready bytes
    uint32_t inline_bytes = 0;  // per inline slot (inline_bytes_for)
    // What this member waits for each round: slots of its control block,
    // and the rank expected to write each (named on a timeout).
    std::vector<uint32_t> wait_slots;
    std::vector<int32_t> wait_from;
    // Where it writes its ready byte when it calls send.
    std::vector<acp_ga_t> ready_targets;

    // Root mode, executing lists (bcast: the root, every block; allgather:
    // every member, its own block): lists[i] moves block `block` + i; and
    // every member's GAs, compactly (rank from the data GA, control block
    // as a tag).
    bool executes_list = false;
    uint32_t block = 0;
    std::vector<collectives::CommandList> lists;
    std::vector<acp_ga_t> data_ga;
    std::vector<uint16_t> ctl_tag;

    // Delegated mode.
    std::vector<OutEntry> out;

    size_t ctl_bytes() const { return ctl::ready(n_in, inline_bytes) + n_ready; }
    // Heap bytes this plan holds (capacity, not size), plus the object.
    size_t bytes() const;
};

// table[i]: member i's GAs; group[i]: its rank. me: this member's index.
// A turned allgather (collectives::allgather_turn) finds this member's
// entries in its few base lists; walk_every_list: in every block's list
// instead, O(P^2) -- the reference the tests hold that to.
Plan build_plan(const Params &p, uint32_t me, const std::vector<int> &group,
                const std::vector<MemberAddr> &table, bool walk_every_list = false);

// The bytes member `me` of a direct handle over ranks 0..members-1 would
// hold (plan + control block), computed in this process without a job:
// the figures acpx-bench memory tabulates for group sizes no test launches.
size_t modelled_bytes(Kind kind, Exec exec, uint8_t algo, uint32_t members, uint32_t me);

// Blocks of a round (control block slots): np_group for allgather, the
// algorithm's for bcast (collectives::bcast_blocks).
uint32_t slots_of(const Params &p);

// Bytes per block a round may carry through the control blocks (eagerly,
// with plain stores): bcast 16 KiB; allgather 1 MiB / np_group up to 16
// KiB, as every member holds two slots per block (none over 4,096
// members, where that would be under 256 B: slots of 256 B would take
// 512 MB a member at 10^6). None for
// the multi-block bcasts, which are for rounds far larger than that. At
// most p.inline_max (ACP_COL_INLINE; 0: no inline slots).
uint32_t inline_bytes_for(const Params &p);
uint32_t inline_bytes_for(Kind kind, uint32_t members, uint32_t slots);  // the same, for tools without a handle

// The number of ready bytes member `me` holds (known before the GAs are).
uint32_t ready_count(const Params &p, uint32_t me, uint32_t root_index);
// The root's index in group (bcast), else 0.
uint32_t root_index_of(const Params &p, const std::vector<int> &group);

}  // namespace acpx::middle
