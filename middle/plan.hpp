// A member's plan for one handle: the command lists bound to the members'
// GAs, reduced to what this member needs. Built by a pure function from
// the parameters and the table of every member's GAs, so the memory a
// handle holds at 10^6 members is computed by the same code in one
// process (test/middle/plan_memory_test.cpp), without launching anything.
//
// Control block of every member (acpx-allocated shared memory, registered;
// on-node peers map it, so signals into it are plain 8-byte stores).
// Slots come in rings of `depth` (by round, seq % depth), so a sender may
// fill round s + depth - 1 while the receiver still reads round s:
//   [0]              stamp pair: this member's current round, written to
//                    others: the round with its size, the round with its
//                    offset (ctl::stamp_of)
//   [16]             failed stamp pair (ctl::kFailedSize), the source of
//                    the failed stamps this member sends (round.cpp)
//   [32]             buffered, a member that receives, for a round too
//                    large for its inline slots: a stamp (the round with
//                    its length), the address in its process where block
//                    0 of the round goes (its array), and how far apart
//                    blocks are there (an allgather's; 0): an on-node
//                    sender writes them there by Cross-Memory Attach, not
//                    into its buffer (round.cpp, put_in_place)
//   [56]             this member's write into a receiver's array in
//                    progress: the receiver's rank with the round (a
//                    stamp), 0 when none; a receiver whose round ends
//                    without its data waits until no sender's word names
//                    it (withdraw_place)
//   [64]             arrive[n_in][depth]: a sender's stamp pair once block
//                    b is here, each followed by its inline slot of
//                    inline_bytes: a round that small travels there (plain
//                    stores, no system call, and eagerly: see round.cpp)
//                    and the receiver copies it into place
//                    (Layout::arrive_stride)
//   [small_base()]   small[n_in][small_depth]: a second ring, of slots of
//                    small_inline bytes, that a tree bcast whose own
//                    slots are large (so few) has for its small rounds
//                    (plan.cpp, small_ring_for); none elsewhere
//   [fwd(0, 0)]      fwd[n_in][fwd_depth] (8 bytes: a size stamp): root
//                    mode, copies reading block b from this member are
//                    complete (it may reuse its array); none in
//                    delegated mode (Layout::fwd_ring)
//   [ready()]        ready[n_ready]: receivers' "I called send" bytes
// n_in is the number of blocks (slots_of): np_group for allgather, 1 for
// a bcast tree, more for the multi-block bcasts (pipeline, scatter_ring).
// depth is 2 but for a bcast tree's small rounds (ring_depth_for): its
// root may run that many rounds minus one ahead of its slowest member.
// A round goes through the small ring if it has one and the round fits
// its slot (Layout::in_small), else through the first; each ring's slot
// is reused depth (small_depth) rounds later, whatever rounds went
// through the other ring in between.
#pragma once

#include <acp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "collectives/command_list.hpp"
#include "collectives/stored_list.hpp"
#include "params.hpp"

namespace acpx::middle {

struct MemberAddr {
    acp_ga_t data = ACP_GA_NULL;  // byte 0 of the member's array or buffer
    acp_ga_t ctl = ACP_GA_NULL;   // byte 0 of its control block
};

namespace ctl {
// A stamp: bit 63 set, the round (seq) in bits 40-62, a 40-bit value in
// bits 0-39. A sender's signal is a pair, its round with its size and
// with its offset, so a receiver compares both with its own: members
// that disagree learn it. Each carries the round, so the receiver needs
// both stamps of this round, in whatever order a transport lands the 16
// bytes. A direct round's offset and size fit 40 bits (a registration is
// 2^34 bytes); a buffered round's size is at most kMaxSize.
inline constexpr uint64_t kValueBits = 40, kValueMask = (uint64_t{1} << kValueBits) - 1;
inline constexpr uint64_t kSeqMask = (uint64_t{1} << 23) - 1;
// A size stamp whose value is all ones says: this round's block (or this
// forwarder's copies) failed on the way here, or the sender disagrees
// with the member it passed through. It is written instead of the real
// stamp, so the receiver ends the round with an error at once and passes
// the same stamp on to the members it forwards the block to.
inline constexpr uint64_t kFailedSize = kValueMask;
inline constexpr uint64_t kMaxSize = kFailedSize - 1;

constexpr uint64_t stamp_of(uint64_t seq, uint64_t value) {
    return uint64_t{1} << 63 | (seq & kSeqMask) << kValueBits | (value & kValueMask);
}
constexpr bool stamp_is(uint64_t stamp, uint64_t seq) {
    return (stamp >> 63) && ((stamp >> kValueBits) & kSeqMask) == (seq & kSeqMask);
}
constexpr uint64_t value_of(uint64_t stamp) { return stamp & kValueMask; }

inline constexpr size_t kStamp = 0, kOffsetStamp = 8, kFailedStamp = 16, kPlaceStamp = 32, kPlaceAddr = 40,
                        kPlaceStride = 48, kWriting = 56, kSlots = 64;
// In an arrive slot's offset stamp (the value; offsets are < 2^34): the
// block's bytes were written into the receiver's array, not its buffer.
inline constexpr uint64_t kInPlace = uint64_t{1} << 39;
// ... the block's bytes are in a chunk of the sender's eager pool, whose GA
// and the pool's size are the slot's first 16 inline bytes (kChunkGa,
// kPoolBytes from the stamps; eager_pool.hpp).
inline constexpr uint64_t kPooled = uint64_t{1} << 38;
inline constexpr size_t kChunkGa = 16, kPoolBytes = 24;
// ... the block's bytes are held by this process's transport layer, the
// reference to them the slot's first 8 inline bytes (kHeldRef), stored
// there by the sender's held put (basic::layer::put_held): a round to a
// member whose slots the sender does not map (another node; on one node,
// ACP_CMA=0 with an eager pool).
inline constexpr uint64_t kHeld = uint64_t{1} << 37;
inline constexpr size_t kHeldRef = 16, kHeldHead = 24;  // kHeldHead: stamps and the reference
// ... the block's bytes are still in the sender's array, on this node: the
// receiver reads them from there (one Cross-Memory-Attach read; through
// the transport from the GA at kPullGa where CMA is refused), then adds
// one (and kPullFailure if the read failed) to the sender's count of reads
// of that block this round: the word at kPullCount in the sender's own
// slot of the block and round, which the sender zeroed before it
// published. A sender whose round ended without every read (timed out)
// sets kPullWithdrawn there: a receiver whose add finds it fails its round
// (the bytes it read may be the application's next ones). A receiver that
// has read the block clears kPulled from its own stamp. A direct handle's
// delegated rounds above the inline slots (round.cpp, publish_pull).
inline constexpr uint64_t kPulled = uint64_t{1} << 36;
// ... and the sender's array lies in memory its node's processes map
// (acp_malloc memory: basic::layer::shared_with_node): the receiver copies
// it out of its mapping with memcpy (basic::layer::read_direct given the
// GA), not by a Cross-Memory-Attach read, which pins every page: at 2
// ranks a 1 MiB round takes ~38 us so, ~139 us by CMA
// (doc/measurements/2026-12-07-pulls-from-mapped-arrays.md).
inline constexpr uint64_t kPullMapped = uint64_t{1} << 35;
inline constexpr size_t kPullAddr = 16, kPullGa = 24, kPullCount = 32;  // slots are >= 64 bytes where used
inline constexpr uint64_t kPullFailure = uint64_t{1} << 32, kPullWithdrawn = uint64_t{1} << 63;
// ... and its sender, which has nothing else to do this round (a bcast's
// root), writes the block's tail into the receiver's array while the
// receiver reads the head: two cores copy, each half
// (round.cpp, split_point). kPullSplit: the head's length (0: no split;
// kSplitRead set once the receiver read it); kPullWritten: the sender's
// word on the tail, stamp_of(seq, kTailWritten or kTailFailed).
inline constexpr size_t kPullSplit = 40, kPullWritten = 48;
inline constexpr uint64_t kSplitRead = uint64_t{1} << 63, kTailWritten = 1, kTailFailed = 2;
// A buffered bcast's receiver may read its head too: the root's array is
// the application's, not registered, so there is no way but CMA, and the
// receiver says, in its published place's stride (a bcast's is 0), that
// CMA has worked towards its senders (basic::layer::proven_direct).
inline constexpr uint64_t kPlaceReads = uint64_t{1} << 63;
inline constexpr size_t kStampBytes = 16;  // a stamp pair; an arrive slot's inline bytes follow it
inline constexpr size_t kFwdBytes = 8;     // a forwards' notice: a size stamp

// Offsets in a control block; every member of a handle has the same.
struct Layout {
    Layout() = default;
    Layout(uint32_t blocks, size_t inline_bytes, uint32_t ring_depth, size_t small_inline = 0,
           uint32_t small_ring_depth = 0)
        : n_in(blocks),
          eager(static_cast<uint32_t>(inline_bytes)),
          inl(inline_bytes),
          depth(ring_depth),
          eager_depth(ring_depth),
          small_inl(small_inline),
          small_depth(small_ring_depth),
          stride_(stride_for(inline_bytes)),
          small_stride_(stride_for(small_inline)) {}
    uint32_t n_in = 1;  // blocks
    // Rounds of a block up to `eager` bytes go before the receiver called
    // send (up to eager_depth - 1 rounds ahead): through its inline slots
    // (eager == inl), or, rounds over inl, to a receiver whose slots the
    // sender maps through the sender's eager pool (a pooled handle's,
    // Params::pooled), the slot holding the chunk's GA and the pool's
    // size (eager_pool.hpp), and to one whose slots it does not map (a
    // delegated handle across nodes) as a held put, the slot holding the
    // reference to the body the receiver holds. (Each in the padding after
    // a 32-bit field: a handle grows by nothing.)
    uint32_t eager = 0;
    size_t inl = 0;  // bytes of an inline slot (inline_bytes_for)
    // Depths are powers of two (ring_depth_for, small_ring_for), so a
    // round's slot is seq & (depth - 1): a division costs a tenth of a
    // small round, and a round finds its slots several times.
    uint32_t depth = 2;        // slots a block, used round after round
    uint32_t eager_depth = 2;  // see eager
    size_t small_inl = 0;      // bytes of a small ring's slot (0: no small ring)
    uint32_t small_depth = 0;  // its slots a block
    // Whether the fwd notices have a ring: only root mode's executor
    // writes them (512 bytes of a handle whose ring is 64 deep).
    bool fwd_ring = true;

    // From one round's arrive stamps of a block to the next: the stamp
    // pair and the inline slot behind it, so a small round's bytes and
    // stamps are mostly one cache line, one line to move between cores,
    // not two. A slot of up to 48 bytes takes exactly one line with its
    // stamps, one of up to 112 two (the rings start at a line, kSlots):
    // no line holds two rounds, so the receiver reading round n and the
    // sender writing round n + 1 do not take a line from each other.
    // Larger slots are a multiple of 16 (a pair never straddles a line;
    // every stamp is an aligned 8-byte store whatever ACP_COL_INLINE is):
    // in whole lines, 1 KiB rounds run slower. Figures:
    // doc/measurements/2026-12-05-one-node-inline-cap.md.
    static size_t stride_for(size_t inl) {
        if (inl == 0) return kStampBytes;  // the pair alone
        if (inl <= 112) return inl <= 48 ? 64 : 128;
        return kStampBytes + (inl + 15) / 16 * 16;
    }
    size_t arrive_stride() const { return stride_; }
    size_t small_stride() const { return small_stride_; }
    // Does a round of `bytes` go through the senders' eager pools, or held puts?
    bool pools(size_t bytes) const { return bytes > inl && bytes <= eager; }
    // Does a round of `bytes` go through the small ring? Rounds of 0 bytes
    // (no inline bytes) take the first.
    bool in_small(size_t bytes) const { return small_inl > 0 && bytes > 0 && bytes <= small_inl; }
    // The depth of the ring a round of `bytes` takes.
    uint32_t depth_for(size_t bytes) const { return in_small(bytes) ? small_depth : depth; }
    // Signal slot `slot` (arrive: block; fwd: n_in + block) of round seq,
    // a round of `bytes`.
    size_t signal(uint32_t slot, uint64_t seq, size_t bytes) const {
        return slot < n_in ? arrive(slot, seq, bytes) : fwd(slot - n_in, seq);
    }
    // The arrive stamp pair of block `block` of round seq, a round of
    // `bytes` (its ring: in_small); its inline slot follows.
    size_t arrive(uint32_t block, uint64_t seq, size_t bytes) const {
        return in_small(bytes)
                   ? small_base() + small_stride() * (size_t{small_depth} * block + (seq & (small_depth - 1)))
                   : kSlots + arrive_stride() * (size_t{depth} * block + (seq & (depth - 1)));
    }
    size_t inline_at(uint32_t block, uint64_t seq, size_t bytes) const {
        return arrive(block, seq, bytes) + kStampBytes;
    }
    // Where the other ring has that pair: a sender whose size is not this
    // member's may have written there (round.cpp: it is reported, not
    // waited for). The same place without a small ring.
    size_t arrive_other(uint32_t block, uint64_t seq, size_t bytes) const {
        if (small_inl == 0) return arrive(block, seq, bytes);
        return in_small(bytes) ? arrive(block, seq, 0) : arrive(block, seq, small_inl);
    }
    // Bytes a block's rings span from its first arrive slot: with one
    // block the small ring follows the first directly (with several there
    // is none).
    size_t rings_bytes() const { return arrive_stride() * depth + (n_in == 1 ? small_stride() * small_depth : 0); }
    size_t small_base() const { return kSlots + arrive_stride() * depth * n_in; }
    // Forwards' notices come in rings as deep as the deepest arrive ring:
    // the executor runs as many rounds ahead of a forwarder.
    uint32_t fwd_depth() const { return fwd_ring ? std::max(depth, small_depth) : 0; }
    size_t fwd(uint32_t block, uint64_t seq) const {
        const uint32_t d = fwd_depth();
        return small_base() + small_stride() * small_depth * n_in +
               (d ? kFwdBytes * (size_t{d} * block + (seq & (d - 1))) : 0);
    }
    size_t ready() const { return fwd(0, 0) + kFwdBytes * fwd_depth() * n_in; }

  private:
    size_t stride_ = kStampBytes, small_stride_ = kStampBytes;  // stride_for(inl), (small_inl): found once
};
}  // namespace ctl

// Delegated mode: an entry whose source this member holds.
struct OutEntry {
    uint32_t block = 0;
    uint32_t ready = 0;  // the ready byte its receiver writes here (one per receiver)
    int32_t dst_rank = -1;
    bool wait = false;  // true: forward once block arrived here; false: this member is the origin
    acp_ga_t dst_data = ACP_GA_NULL;
    acp_ga_t dst_arrive = ACP_GA_NULL;  // its arrive stamp pair for the block, round 0; its inline slot follows
};
static_assert(sizeof(OutEntry) == 32, "delegated memory per entry (middle/README.md)");

struct Plan {
    uint32_t members = 0, me = 0;
    uint32_t n_ready = 0;  // ready bytes
    // The control block's layout (layout_of): its blocks (arrive and fwd
    // slots, n_in), inline slot size, ring depths. Build sets it; the
    // rounds' polls read it by reference.
    ctl::Layout lay;
    // What this member waits for each round: slots of its control block,
    // and the rank expected to write each (named on a timeout).
    std::vector<uint32_t> wait_slots;
    std::vector<int32_t> wait_from;
    // Where it writes its ready byte when it calls send; delegated, or
    // buffered in root mode, also that byte's place in its executor's
    // control block (a block at any offset of an arena: the GA's offset
    // does not give it; a direct root-mode allgather would keep 4 B a member).
    std::vector<acp_ga_t> ready_targets;
    std::vector<uint32_t> ready_within;

    // Root mode, executing lists (bcast: the root, every block; allgather:
    // every member, its own block): lists[i] moves block `block` + i; and
    // every member's GAs, compactly (rank from the data GA, control block
    // as a tag).
    bool executes_list = false;
    uint32_t block = 0;
    std::vector<collectives::StoredList> lists;  // k-nomial trees (binomial): their formula
    std::vector<acp_ga_t> data_ga;
    std::vector<uint16_t> ctl_tag;
    // Where in its arena each member's control block lies (a block of
    // one: basic::layer::alloc_block). Members that created the same
    // handles in the same order have it at the same offset: the most
    // common one is kept once (ctl_at_most), the others as (member,
    // offset) pairs sorted by member (ctl_at_else).
    uint64_t ctl_at_most = 0;
    std::vector<std::pair<uint32_t, uint64_t>> ctl_at_else;
    acp_ga_t ctl_ga(uint32_t member, size_t off) const;

    // Delegated mode.
    std::vector<OutEntry> out;

    // A placed allgather (ACP_COL_PLACE): list block b is group member
    // data_blocks[b]'s block, whose place in every array and buffer is
    // data_blocks[b]. Empty: the lists' blocks are the group's (b).
    std::vector<uint32_t> data_blocks;
    uint32_t data_block(uint32_t b) const { return data_blocks.empty() ? b : data_blocks[b]; }

    const ctl::Layout &layout() const { return lay; }
    size_t ctl_bytes() const { return layout().ready() + n_ready; }
    // Heap bytes this plan holds (capacity, not size), plus the object.
    size_t bytes() const;
};

// Member `me`'s plan in the two steps of create: its control block holds
// its ready bytes, so their number is needed before the members' GAs
// are exchanged, and the plan after. Both come from the member's entries
// and ready bytes, found once here. Found for each step, a binomial
// bcast's root over 2^20 members took 40 ms, now 30; a Bruck allgather's
// member over 2^16, 18 ms, now 10.
// group[i]: member i's rank; it must outlive the builder. me: this
// member's index. A turned allgather (collectives::allgather_turn) finds
// this member's entries in its few base lists; walk_every_list: in every
// block's list instead, O(P^2) -- the reference the tests hold that to.
// nodes[i]: an id of member i's node, for a hierarchical handle (p.hier;
// equal ids, one node: choose.hpp's nodes_of(group).map); else unused.
// Without them (tools that build plans with no runtime) a hierarchical
// handle's plan is over one node: the flat tree's.
class PlanBuilder {
  public:
    PlanBuilder(const Params &p, uint32_t me, const std::vector<int> &group, std::vector<uint32_t> nodes = {},
                bool walk_every_list = false);
    ~PlanBuilder();
    PlanBuilder(const PlanBuilder &) = delete;
    PlanBuilder &operator=(const PlanBuilder &) = delete;

    // The number of ready bytes this member holds (Plan::n_ready).
    uint32_t ready_count() const;
    // table[i]: member i's GAs. Only the neighbours' entries (and this
    // member's own) are read: the others may be left empty.
    Plan build(const std::vector<MemberAddr> &table) const;
    // The members (list indices, sorted) whose GAs build() reads: those
    // this member sends to or hears from (delegated); in root mode the
    // executors of its blocks, and every member for an executor. The
    // relation is symmetric (i is j's neighbour when j is i's), so create
    // exchanges GAs between neighbours only.
    std::vector<uint32_t> neighbours() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// PlanBuilder(p, me, group, nodes, walk_every_list).build(table), in one step.
Plan build_plan(const Params &p, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table,
                bool walk_every_list = false, std::vector<uint32_t> nodes = {});

// The bytes member `me` of a direct handle of 64 KiB over ranks
// 0..members-1 across nodes (full inline slots) would hold (plan + control block),
// computed in this process without a job: the figures acpx-bench memory
// tabulates for group sizes no test launches.
size_t modelled_bytes(Kind kind, Exec exec, uint8_t algo, uint32_t members, uint32_t me);

// Blocks of a round (control block slots): np_group for allgather, the
// algorithm's for bcast (collectives::bcast_blocks).
uint32_t slots_of(const Params &p);

// Bytes per block a round may carry through the control blocks (eagerly,
// with plain stores): a group on one node with a core per rank
// kOnNodeInlineMax (8 KiB); one across nodes or on a node whose ranks
// outnumber its cores, bcast kDefaultInlineMax (64 KiB), allgather 1 MiB /
// np_group up to 16 KiB, as every member holds two slots per block (none
// over 4,096 members, where that would be under 256 B: slots of 256 B
// would take 512 MB a member at 10^6). A bcast's slot is at most the
// handle's size rounded up to 64 B. None for the multi-block bcasts,
// which are for rounds far larger than that. p.inline_max
// (ACP_COL_INLINE; 0: no inline slots), unless kInlineAuto, sets the cap
// in place of the node rule, up to the kind's.
uint32_t inline_bytes_for(const Params &p);
// The cap alone, for tools without a handle; full_caps: the group spans
// nodes or its node is crowded (Params::across_nodes || crowded).
uint32_t inline_bytes_for(Kind kind, uint32_t members, uint32_t slots, bool full_caps, uint32_t inline_max);

// ACP_COL_POOL unset (kPoolLarge): does a delegated handle (an allgather
// on one node; create_col) send its rounds over 48 bytes through the
// eager pool (across nodes: to members of other nodes as held puts)?
// A bcast whose members are each alone on their nodes: every round over
// 48 bytes (held puts only; 64 B-1 KiB rounds take 1.01-1.08x as long as
// through its 1 KiB slots, and a handle holds 5.2 KB, not 39:
// doc/measurements/2026-12-07-pooled-bcasts-across-nodes.md). Else where it is larger
// than its inline slots (its rounds of its size are read out of the
// sender's array either way), and, ACP_COL_INLINE unset, where it is
// larger than kBcastPoolAbove (a bcast) or kAllgatherPoolAbove (an
// allgather on a node with a core per rank): rounds of those sizes take
// as long or less through the pool (2 ranks: a bcast's 8 KiB 0.65-0.92x,
// an allgather's 2-8 KiB 0.81-1.04x; on a crowded node, where a bcast's
// slots go to 64 KiB, its 8-64 KiB 0.91-0.99x), for handles of 1.4-3.5
// KB instead of 16-137. A bcast's 2-4 KiB rounds take 1.0-1.18x and an
// allgather's 8-16 KiB on a crowded node 1.1x: those keep their slots
// (doc/measurements/2026-12-07-rings-of-small-handles.md).
inline constexpr uint64_t kBcastPoolAbove = 4096, kAllgatherPoolAbove = 1024;
bool pools_by_default(const Params &p);

// Slots per block: a bcast with inline slots gets as many as fit in 32
// KiB (a power of two from 2 to 64: 64 for slots up to 512 B, 16 for 2
// KiB, 2 for 16 KiB; 32 for slots of one or two lines on one node with a
// core per rank, kLineRingDepth), so its root runs up to depth - 1 small rounds ahead
// of a member that is slow to call send (ready bytes count rounds mod
// 256: depth must stay under 128), at most p.ring_max (ACP_COL_RING_DEPTH).
// A group across nodes gets at least kRingDepthAcrossNodes, as many as
// fit in kRingBytesAcrossNodes (2 KiB-32 KiB handles: 16 for 4 KiB and
// 8 KiB, 8 for 16 KiB, 4 for 32 KiB): a sender may deliver a round only
// depth - 1 rounds ahead of its receiver's last ready byte, which crosses
// the network, so a shallow ring paces rounds by round trips
// (doc/measurements/2026-12-04-two-hosts-rings-mpich.md); no handle holds
// more than a 64 KiB one's two slots.
// Otherwise 2: an allgather member cannot end a round before every member
// started it, and larger rounds wait for their receivers anyway.
inline constexpr uint32_t kRingBytes = 32768, kRingBytesAcrossNodes = 131072, kRingDepthAcrossNodes = 16;
// On one node with a core per rank, slots of one or two cache lines with
// their stamps (inline up to kLineRingInline bytes) come kLineRingDepth a
// block, not 64: a handle of up to 48 bytes holds 2 KiB of ring (3.4 KB
// in all, not 5.7), one of up to 112 bytes 4 KiB (not 8), and their
// rounds take 1.00-1.04x as long as with 64 slots; 16 slots cost
// 1.08-1.12x. On a node whose ranks outnumber its cores 32 cost 1.25x
// (a root that runs fewer rounds ahead waits for a member's core sooner):
// 64 stay there (doc/measurements/2026-12-07-rings-of-small-handles.md).
inline constexpr uint32_t kLineRingInline = 112, kLineRingDepth = 32;
uint32_t ring_depth_for(const Params &p, uint32_t inline_bytes);

// A tree bcast whose ring is shallow (its slots are large) gets a second
// ring for its small rounds: slots of kSmallRingInline bytes, one line
// with their stamps, as many as a handle of 48 bytes has (kLineRingDepth
// on one node with a core per rank, 2 KiB; else kSmallRingDepth, 4 KiB; at most
// p.ring_max; none where that is not deeper): so a handle over a 1 MiB array runs its
// 8-byte rounds as far ahead as a handle of 8 bytes, and as fast
// (doc/measurements/2026-12-04-small-rounds-on-large-handles.md), not two
// at a time.
inline constexpr uint32_t kSmallRingDepth = 64, kSmallRingInline = 48;
// How far ahead a pooled round of `bytes` goes (Params::pooled): as far
// as a ring of slots of its size would let it (ring_depth_for: within
// kRingBytes, across nodes kRingBytesAcrossNodes, as those rings have),
// within the handle's ring (Layout::eager_depth): a 64 KiB
// handle's 64-byte rounds go 31 rounds ahead, not 3 as its 8 KiB rounds
// do (doc/measurements/2026-12-07-rings-of-small-handles.md); what a
// handle has in the pool stays within that budget. (A bcast whose members
// are alone on their nodes puts nothing there: its held rounds go as far
// as its ring, round.cpp find_ring.)
uint32_t pooled_depth(const ctl::Layout &l, size_t bytes, bool across_nodes = false);
// A pooled bcast tree's ring (Params::pooled): 32 slots of one line, 2 KiB
// a block whatever the handle's size. 16 cost its 8-64 B rounds 1.1-1.2x
// on a far pair of cores (the root waits for its members sooner); 32 are
// as fast as 64 (doc/measurements/2026-12-07-eager-pool-warm-lines.md).
// Across nodes kSmallRingDepth, as a small handle's there (a ready byte
// crosses the network: 32 cost 8-32 B rounds up to 1.1x at 2 ranks and
// 1.2-1.5x at 4 on the two-host bed,
// doc/measurements/2026-12-07-pooled-bcasts-across-nodes.md); an alone
// bcast's held rounds still go at most 31 ahead (Layout::eager_depth).
inline constexpr uint32_t kPooledRingDepth = 32;
// A delegated handle whose group spans nodes sends rounds over its inline
// slots eagerly to members whose slots it does not map, as held puts
// (Layout::eager), up to the transport's held_put_max (Params::held_kib:
// UCX 64 KiB, libfabric 32 KiB), at most this (the largest signal put:
// basic/signal_put.cpp): an allgather's blocks of 16-64 KiB no longer wait
// for their receiver's ready byte a round, which crosses the network.
inline constexpr uint32_t kHeldEagerMax = 65536;
// With ACP_COL_POOL=0 (else it pools: pools_by_default), a bcast whose
// members are each alone on their nodes (Params::alone)
// has slots for rounds of up to 1 KiB (32 deep: its root runs
// up to 31 rounds ahead, held puts too): on the two-host bed its 2-64 KiB
// rounds as held puts took 0.65-0.96 and, over libfabric, 0.79-0.95 of
// what they took through slots of up to 64 KiB (2-16 deep), and a 64 KiB
// handle holds 39 KB, not 137
// (doc/measurements/2026-12-06-held-puts.md).
inline constexpr uint32_t kHeldInlineAcrossNodes = 1024;
void small_ring_for(const Params &p, uint32_t inline_bytes, uint32_t depth, uint32_t *small_inline,
                    uint32_t *small_depth);

// The control block layout of every member of a handle with these
// parameters (slots_of, inline_bytes_for, ring_depth_for, small_ring_for):
// what create allocates and the plan addresses.
ctl::Layout layout_of(const Params &p);

// The root's index in group (bcast), else 0.
uint32_t root_index_of(const Params &p, const std::vector<int> &group);

}  // namespace acpx::middle
