// The round engine. Every internal round ("segment") of a member:
//   begin:   stamps := (seq, size), (seq, offset); buffered: copy its data
//            in; write its ready byte to every executor that writes into it.
//   execute: root mode, the executor issues its whole list once every
//            receiver is ready, each entry ordered after the entry that
//            delivered its source, then the notifications; delegated, each
//            entry goes as soon as its receiver is ready and its source
//            bytes arrived here.
//   finish:  every awaited slot holds this seq and this member's GMAs are
//            complete; buffered: copy the data out; next segment or done.
//            A slot whose size or offset is not this member's ends the
//            round with -1 here; a forwarder passes a failed stamp on in
//            place of such a block, so no member below it takes its bytes.
// Round safety: nothing is written into a member before its ready byte
// for this seq, which it writes only at send / after its previous segment;
// but for small rounds into its inline slots, whose ring (plan.hpp) lets
// a sender run up to depth - 1 rounds ahead. A sender's round so ends
// before its receivers started it: acp_free_col waits for them.
// Delegated small rounds and ready bytes to on-node members are plain
// stores into their mapped control blocks (Col::Direct): a GMA costs
// ~0.1 us of locking and bookkeeping, as much as the rest of the round.
// To members whose blocks are not mapped here (other nodes), a small
// round's stamps and bytes, and ready bytes (of small rounds, one in a
// few: ready_due), are signal puts (layer::put_signal): one network
// message each, the stamps stored last.
// A buffered handle's larger rounds go to on-node members straight into
// their arrays (put_in_place): one Cross-Memory-Attach copy, as a direct
// handle's, where the buffers cost a copy in at the sender and one out at
// every receiver, in series. The buffers carry what goes through
// registered memory (other nodes, root mode, CMA refused). A bcast root
// with one receiver on its node splits a large block, direct or
// buffered: the receiver reads the head while the root writes the tail
// (split_point), so both cores copy.
#include "round.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "basic/copy_bytes.hpp"
#include "basic/errors.hpp"
#include "basic/ga.hpp"
#include "collectives/algorithms.hpp"
#include "shared_words.hpp"

namespace acpx::middle {
void withdraw_place(Col &c);  // below, beside break_handle
namespace {

using ctl::kFailedSize;
using ctl::stamp_is;
using ctl::stamp_of;
using ctl::value_of;

// A stamp pair by plain stores (plan.hpp): the offset stamp first, so a
// receiver that sees the size stamp finds the pair whole at once.
void store_pair(void *at, uint64_t size_stamp, uint64_t offset_stamp) {
    store_release(static_cast<char *>(at) + 8, offset_stamp);
    store_release(at, size_stamp);
}
uint8_t load8(const uint8_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

bool buffered(const Col &c) { return c.p.storage == Storage::kBuffered; }

// This segment's bytes per member (bcast: the whole round's).
size_t seg_len(const Col &c) {
    if (!buffered(c)) return c.size;
    const size_t pos = size_t{c.seg} * c.p.size;
    return std::min<size_t>(c.p.size, c.size - std::min(c.size, pos));
}

// Where block `block` of this segment lies in the array (direct) or
// buffer (buffered), and its length: an allgather's blocks are the
// members' arrays side by side, in the group's order (a placed handle's
// list block at its member's place: Plan::data_block); a bcast's are
// ranges of one (plan.hpp).
collectives::ByteRange block_range(const Col &c, uint32_t block) {
    const size_t base = buffered(c) ? 0 : c.offset;
    if (c.p.kind == Kind::kAllgather) return {base + size_t{c.plan.data_block(block)} * c.p.size, seg_len(c)};
    const auto r = collectives::block_range(seg_len(c), c.plan.lay.n_in, block);
    return {base + r.offset, r.length};
}

acp_ga_t ctl_ga(const Col &c, size_t off) { return c.mem.ctl.ga + off; }

// The source of a failed stamp pair of this round, written when needed:
// no GMA of an earlier segment still reads it (a segment ends when all
// of its GMAs are complete).
acp_ga_t failed_pair(Col &c) {
    store_pair(c.ctl_base() + ctl::kFailedStamp, stamp_of(c.seq, kFailedSize), stamp_of(c.seq, 0));
    return ctl_ga(c, ctl::kFailedStamp);
}

// Small segments travel in the receivers' inline slots (plan.hpp).
bool is_inline(const Col &c) {
    const size_t len = seg_len(c);
    return len > 0 && len <= c.plan.lay.inl;
}
// A pooled handle's segments above its inline slots, up to its eager cap,
// travel through the senders' eager pools (eager_pool.hpp).
bool is_pooled(const Col &c) { return c.plan.lay.pools(seg_len(c)); }
// Either way a segment goes before its receiver called send.
bool is_eager(const Col &c) { return is_inline(c) || is_pooled(c); }

// Segment markers (Col::Segment::out_issued, seen). An out entry's
// marker also says whether its block waits to be read by its receiver
// (publish_pull): its top bit (kPullMark), the rest the segment's.
constexpr uint32_t kPullMark = uint32_t{1} << 31;
uint32_t mark(const Col &c) { return static_cast<uint32_t>(c.seq) & ~kPullMark; }
bool issued(const Col &c, size_t j) { return (c.cur.out_issued[j] & ~kPullMark) == mark(c); }
void set_issued(Col &c, size_t j) {
    c.cur.out_issued[j] = mark(c);
    ++c.cur.issued_count;
}
bool seen(const Col &c, size_t i) { return c.cur.seen[i] == mark(c); }
bool awaits_read(const Col &c, size_t j) { return c.cur.out_issued[j] == (mark(c) | kPullMark); }

// Where this member's bytes of `block` are here: its array or buffer.
char *local_data(const Col &c) { return buffered(c) ? static_cast<char *>(c.mem.buffer.base) : c.mem.array; }

// Where the segment starts in a buffered round's arrays.
size_t seg_pos(const Col &c) { return size_t{c.seg} * c.p.size; }

// Buffered: does this member send `block` from its own array (the bcast's
// root, an allgather member its own block)?
bool origin_of(const Col &c, uint32_t block) {
    return c.p.kind == Kind::kBcast ? c.rank == c.p.root : block == c.plan.me;
}

// Buffered: where the bytes of range r of `block` (block_range: in the
// buffer's layout) are, or go, in this member's arrays: the array it sends
// from if it is the block's origin, else the one it receives into (an
// allgather's recvbuf holds member m's block at m x size).
const char *array_at(const Col &c, uint32_t block, const collectives::ByteRange &r) {
    if (c.p.kind == Kind::kBcast) return (origin_of(c, block) ? c.in : c.out) + seg_pos(c) + r.offset;
    const size_t place = c.plan.data_block(block);
    const size_t within = r.offset - place * c.p.size;
    if (origin_of(c, block)) return c.in + seg_pos(c) + within;
    return c.out + place * c.size + seg_pos(c) + within;
}

// "block B" in messages: the group's number for it (Plan::data_block).
std::string block_name(const Col &c, uint32_t block) { return "block " + std::to_string(c.plan.data_block(block)); }

// "a, b, c": sorted, each once.
std::string listed(std::vector<std::string> what) {
    std::sort(what.begin(), what.end());
    what.erase(std::unique(what.begin(), what.end()), what.end());
    std::string out;
    for (const auto &w : what) out += (out.empty() ? "" : ", ") + w;
    return out;
}

// What it signals if it is a signal.
void notice(Col &c, acp_handle_t h, acp_ga_t slot, uint32_t block, uint32_t bytes) {
    c.cur.notices.push_back({h, slot, static_cast<int32_t>(basic::ga::decode(slot).rank), block, bytes});
}

bool fail_gma(Col &c, const char *fn, const char *what) {
    break_handle(c, std::string("could not issue ") + what);
    return basic::report(fn, "handle", "handle %llu round %llu: could not issue %s",
                         static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.round), what);
}

// Where this handle's slots are in every member's control block.
const ctl::Layout &at(const Col &c) { return c.plan.layout(); }

// The depth of the ring this segment's stamps and inline bytes take
// (plan.hpp: a tree bcast's small rounds may have a ring of their own).
uint32_t ring_depth(const Col &c) { return c.cur.depth; }

// From a block's first arrive slot (OutEntry::dst_arrive,
// Col::Direct::arrive) to this segment's stamp pair, at every member.
size_t ring_offset(const Col &c) { return c.cur.turn; }

// Block `block`'s arrive stamp pair of this segment, in every member's
// control block.
size_t arrive_at(const Col &c, uint32_t block) { return at(c).arrive(block, 0, 0) + ring_offset(c); }

// Sets the segment's ring (Col::Segment::depth, eager_depth, turn).
void find_ring(Col &c) {
    const ctl::Layout &l = at(c);
    const size_t len = seg_len(c);
    c.cur.depth = l.depth_for(len);
    // A bcast whose members are alone on their nodes sends nothing through
    // the pool: its held puts go as far ahead as its ring (as unpooled).
    c.cur.eager_depth = c.p.pooled && !c.p.alone ? pooled_depth(l, len, c.p.across_nodes) : l.eager_depth;
    c.cur.turn = l.arrive(0, c.seq, len) - l.arrive(0, 0, 0);
}

// Where this segment's stamps of signal slot `slot` are in this member's
// control block: an arrive slot in the ring its size picks or, if a
// sender that disagrees on the size wrote into the other ring, there (so
// the round ends naming the sizes, not at ACP_TIMEOUT); a fwd slot.
size_t signal_at(const Col &c, uint32_t slot) {
    const ctl::Layout &l = at(c);
    if (slot >= c.plan.lay.n_in) return l.fwd(slot - c.plan.lay.n_in, c.seq);
    const size_t mine = arrive_at(c, slot);
    if (l.small_inl == 0 || stamp_is(load_acquire(c.ctl_base() + mine), c.seq)) return mine;
    const size_t other = l.arrive_other(slot, c.seq, seg_len(c));
    return stamp_is(load_acquire(c.ctl_base() + other), c.seq) ? other : mine;
}

// The value of an arrive slot's offset stamp (at s + 8): the sender's
// offset, and how the bytes came (ctl::kInPlace, kPooled, kHeld).
uint64_t offset_value(const uint8_t *s) { return value_of(load_acquire(s + 8)); }
// The sender's offset alone.
uint64_t sent_offset(const uint8_t *s) {
    return offset_value(s) & ~(ctl::kInPlace | ctl::kPooled | ctl::kHeld | ctl::kPulled | ctl::kPullMapped);
}

// A buffered member's block that arrived (its stamps are here): were its
// bytes written into this member's array (put_in_place), not its buffer?
bool in_place_at(const Col &c, size_t where) { return offset_value(c.ctl_base() + where) & ctl::kInPlace; }
bool arrived_in_place(const Col &c, uint32_t block) { return in_place_at(c, signal_at(c, block)); }

// A block that arrived (its stamps at `where`) through its sender's pool:
// the chunk, mapped here, or nullptr where it is not (fetch).
bool pooled_at(const Col &c, size_t where) { return offset_value(c.ctl_base() + where) & ctl::kPooled; }
// The chunk's GA in its sender's pool.
acp_ga_t chunk_ga(const Col &c, size_t where) { return load_acquire(c.ctl_base() + where + ctl::kChunkGa); }
const char *chunk_at(const Col &c, size_t where, size_t len) {
    const uint8_t *s = c.ctl_base() + where;
    return State::get().pool.peer_chunk(load_acquire(s + ctl::kChunkGa), load_acquire(s + ctl::kPoolBytes), len);
}

// A pooled block's bytes out of its sender's chunk. Its first lines are
// asked for at once before the copy: the chunk lies away from the slot
// just polled, so no hardware prefetcher has them coming, and lines asked
// for together arrive together (1 KiB rounds on a far pair of cores: 0.53
// us, not 0.61; doc/measurements/2026-12-07-rings-of-small-handles.md).
void copy_out_of_chunk(char *to, const char *chunk, size_t len) {
    for (size_t o = 0; o < std::min(len, kChunkPrefetch); o += 64) __builtin_prefetch(chunk + o);
    basic::copy_bytes(to, chunk, len);
}

// A block that arrived (its stamps at `where`) as a held put: its bytes,
// which this process holds until give_back_chunks.
bool held_at(const Col &c, size_t where) { return offset_value(c.ctl_base() + where) & ctl::kHeld; }
// The held bytes whose reference the slot at `where` holds; nullptr where
// there are none of `len` bytes (basic::layer::held_bytes).
const char *held_body(const Col &c, size_t where, size_t len) {
    return basic::layer::held_bytes(load_acquire(c.ctl_base() + where + ctl::kHeldRef), len);
}

// A block that arrived (its stamps at `where`) to be read out of its
// sender's array, not yet read here (publish_pull).
bool pulled_at(const Col &c, size_t where) { return offset_value(c.ctl_base() + where) & ctl::kPulled; }
// Done with it here (read, or not this member's round): its stamp unmarked.
void unmark_pulled(Col &c, size_t where) {
    uint8_t *s = c.ctl_base() + where;
    store_release(s + 8, stamp_of(c.seq, sent_offset(s) | (offset_value(s) & ctl::kInPlace)));
}

// Where this member's bytes of `block` (range r of the segment) are for
// it to send them: buffered, from its array where it is the block's origin
// or the block arrived in place, else from its buffer; direct, its array.
const char *bytes_here(const Col &c, uint32_t block, const collectives::ByteRange &r) {
    if (buffered(c) && (origin_of(c, block) || arrived_in_place(c, block))) return array_at(c, block, r);
    return local_data(c) + r.offset;
}

// Buffered, before a GMA reads `block` (range r) from this member's
// buffer (to another node, root mode, CMA refused): its bytes go there if
// they are elsewhere (bytes_here). An origin stages all it sends once a
// segment (a bcast's root the whole segment, an allgather member its block).
void stage_block(Col &c, uint32_t block, const collectives::ByteRange &r) {
    if (!buffered(c) || r.length == 0) return;
    if (origin_of(c, block)) {
        if (c.cur.staged) return;
        c.cur.staged = true;
        const size_t at = c.p.kind == Kind::kBcast ? 0 : size_t{c.plan.data_block(c.plan.me)} * c.p.size;
        basic::copy_bytes(local_data(c) + at, c.in + seg_pos(c), seg_len(c));
    } else if (arrived_in_place(c, block)) {
        basic::copy_bytes(local_data(c) + r.offset, array_at(c, block, r), r.length);
    }
}

// The sizes from which a bcast root splits a pulled block (split_point).
constexpr size_t kSplitMin = 16 * 1024, kSplitMinMapped = 64 * 1024, kSplitMinBuffered = 64 * 1024;

// A buffered bcast's receiver at a round its root may split: may it read
// the head out of the root's array? Only where CMA has worked (the root's
// array is not registered: no other way), asked of each on-node sender.
bool reads_heads(const Col &c) {
    if (!buffered(c) || !c.pull || c.p.kind != Kind::kBcast || c.p.exec != Exec::kDelegated ||
        seg_len(c) < kSplitMinBuffered)
        return false;
    for (size_t i = 0; i < c.plan.ready_targets.size(); ++i) {
        const acp_ga_t t = c.plan.ready_targets[i];
        if (c.direct.ready[i] && !basic::layer::proven_direct(static_cast<int>(basic::ga::decode(t).rank), t))
            return false;
    }
    return true;
}

// A buffered member, at a segment too large for its inline slots: where
// block 0's bytes go in its array, how far apart the blocks are (an
// allgather's; 0 for a bcast), and the segment's length, for on-node
// senders to write there (put_in_place); a buffered bcast's receiver
// sets kPlaceReads in the stride where it may read a split block's head
// (reads_heads). A direct bcast's receiver (receives_tails): where its
// round's byte 0 goes in its array, for a root that writes the tails of
// the blocks it splits (split_point). The address first, then the stamp,
// before its ready bytes: a sender that finds it ready finds all.
void publish_place(Col &c) {
    uint8_t *ctl = c.ctl_base();
    const uint64_t stride = c.p.kind != Kind::kBcast ? c.size : reads_heads(c) ? ctl::kPlaceReads : 0;
    const char *place = buffered(c) ? c.out + seg_pos(c) : c.mem.array + c.offset;
    store_release(ctl + ctl::kPlaceAddr, reinterpret_cast<uintptr_t>(place));
    store_release(ctl + ctl::kPlaceStride, stride);
    store_release(ctl + ctl::kPlaceStamp, stamp_of(c.seq, seg_len(c)));
}

// A direct bcast's delegated receiver at a round its root may split
// (ctl::kPullSplit): it publishes its place.
bool receives_tails(const Col &c) {
    return !buffered(c) && c.pull && c.p.kind == Kind::kBcast && c.p.exec == Exec::kDelegated && c.rank != c.p.root &&
           !is_eager(c);
}

bool on_other_node(const Col &c, int64_t rank) {
    return basic::layer::node_id(static_cast<int>(rank)) != basic::layer::node_id(c.rank);
}

// A delegated allgather's small segments need no ready bytes: a member
// writes a receiver's inline slots of segment seq only once its own
// segment seq - 1 ended, which took the receiver's block of seq - 1, sent
// when the receiver began seq - 1, done with seq - 2: the last user of
// those slots (depth 2). Waiting for the byte anyway would cost a round
// trip a round between nodes.
bool ready_implied(const Col &c) { return c.p.kind == Kind::kAllgather && c.p.exec == Exec::kDelegated && is_eager(c); }

// Is this segment's ready byte sent to executors on other nodes? Not for
// every small segment: the executor needs this member to have started
// seq - depth + 1 only (receiver_ready; a pooled or held round's depth
// is its own, Segment::eager_depth), so one in every depth / 4 keeps
// it up to 3/4 of its ring ahead, and a bcast's small rounds across nodes
// cost one network message each, not two. A larger segment's executor
// waits for its exact byte: always. The last one goes at acp_free_col
// (say_ready); the executor's freed control block waits, parked, for it
// (State::parked_ctls).
bool ready_due(const Col &c) {
    // How far ahead the executor may go: the ring, or a pooled round's own depth.
    const uint32_t ahead = is_inline(c) ? ring_depth(c) : c.cur.eager_depth;
    const uint32_t every = std::max<uint32_t>(1, ahead / 4);
    return !is_eager(c) || (!ready_implied(c) && (c.seq & (every - 1)) == 0);
}

bool begin_segment(Col &c, const char *fn) {
    ++c.seq;
    c.cur.reset();
    find_ring(c);
    uint8_t *ctl = c.ctl_base();
    store_pair(ctl + ctl::kStamp, stamp_of(c.seq, c.size), stamp_of(c.seq, c.offset));
    if (receives_tails(c)) publish_place(c);
    if (buffered(c)) {
        const bool receives = c.p.kind == Kind::kAllgather || !origin_of(c, 0);
        if (receives && !is_inline(c)) publish_place(c);  // a pooled round with no room in the pool goes there too
        // An allgather's own block, straight to recvbuf (in place: there).
        if (char *own = c.out + size_t{c.plan.data_block(c.plan.me)} * c.size;
            c.p.kind == Kind::kAllgather && c.seg == 0 && c.size && own != c.in)
            basic::copy_bytes(own, c.in, c.size);
    }
    const bool due = ready_due(c);
    if (due) c.last_due_seq = c.seq;
    const auto seq = static_cast<uint8_t>(c.seq);
    for (size_t i = 0; i < c.plan.ready_targets.size(); ++i) {
        if (uint8_t *at_peer = c.direct.ready[i]) {
            __atomic_store_n(at_peer, seq, __ATOMIC_RELEASE);
            continue;
        }
        const acp_ga_t target = c.plan.ready_targets[i];
        if (!due && on_other_node(c, basic::ga::decode(target).rank)) continue;
        // One message (signal put) that the executor's progress stores.
        const acp_handle_t h = basic::layer::put_signal(target, &seq, 1, 1, ACP_HANDLE_NULL, fn);
        if (h == ACP_HANDLE_NULL) return fail_gma(c, fn, "a ready signal");
        track(c, h);
        c.cur.notices.push_back(
            {h, ACP_GA_NULL, static_cast<int32_t>(basic::ga::decode(c.plan.ready_targets[i]).rank), 0, 1});
    }
    return true;
}

// May this segment be written into a receiver whose ready byte is `r`?
// Into its array or buffer only once it called send for this round (r ==
// seq). Into its inline slots already once it started round seq - depth +
// 1: it is done with round seq - depth, the last user of these slots.
// That is what makes small rounds eager. A pooled round writes only the
// slot (its bytes go to the sender's pool): as far ahead as a ring of
// slots of its own size would have let it (pooled_depth), a held put
// as the handle's ring (Layout::eager_depth); find_ring says which.
bool receiver_ready(const Col &c, uint8_t r) {
    if (ready_implied(c)) return true;
    const auto behind = static_cast<uint8_t>(static_cast<uint8_t>(c.seq) - r);
    return behind == 0 || (is_inline(c) && behind < ring_depth(c)) || (is_pooled(c) && behind < c.cur.eager_depth);
}

// Has a receiver whose ready byte is `r` started round `seq`, this
// member's last? It may be one ahead already, never more: the next needs
// this member's data.
bool started(uint8_t r, uint64_t seq) {
    const auto want = static_cast<uint8_t>(seq);
    return r == want || r == static_cast<uint8_t>(want + 1);
}

const uint8_t *ready_bytes(const Col &c) { return c.ctl_base() + at(c).ready(); }

// Is a receiver ready, by its ready byte, `known` the value last read?
// The receiver writes that byte every round and this member reads it from
// another core: a cache miss each time, most of a small round's time on
// the root (2 ranks, 8 B: 0.17 us a round). A value read earlier that
// says ready still does: the byte only moves on, and not past this
// round while this member's data for it has not gone (the receiver waits
// for it). So it is read again only when the last value read no longer
// does: once in depth - 1 rounds for small rounds. Every round asks
// until the answer is yes, so `known` is never more than depth behind.
bool known_ready(const Col &c, uint8_t &known, const uint8_t *byte) {
    if (receiver_ready(c, known)) return true;
    known = load8(byte);
    return receiver_ready(c, known);
}

// Has the receiver of out entry j called send for this segment? (A pooled
// round that found no room in the pool goes into its array or buffer.)
bool exact_ready(Col &c, size_t j) {
    c.ready_known[j] = load8(ready_bytes(c) + c.plan.out[j].ready);
    return c.ready_known[j] == static_cast<uint8_t>(c.seq);
}

// Delegated: may out entry j go, by its receiver's ready byte?
bool out_ready(Col &c, size_t j, const uint8_t *ready) {
    return known_ready(c, c.ready_known[j], ready + c.plan.out[j].ready);
}

// Root mode: are all receivers of the executor's list ready? Each read
// as out_ready does: one that was ready for this round (inline: depth - 1
// rounds ahead) still is.
bool all_ready(Col &c) {
    const uint8_t *ready = ready_bytes(c);
    for (uint32_t m = 0; m < c.plan.members; ++m)
        if (m != c.plan.me && !known_ready(c, c.member_known[m], ready + m)) return false;
    return true;
}

// Root mode: the whole list of every block it executes, each entry
// ordered after the one that delivered its source; then a notification to
// every receiver (after its entry) and to every source (after all
// entries: its array is free). Handles of one process are consecutive, so
// entry e of a list is its first handle + e.
bool issue_list(Col &c) {
    const Plan &pl = c.plan;
    const bool small = is_inline(c);
    if (buffered(c)) stage_block(c, pl.block, block_range(c, pl.block));  // its copies read its buffer
    acp_handle_t first = ACP_HANDLE_NULL;                                 // of the list being issued
    for (size_t i = 0; i < pl.lists.size(); ++i) {
        const uint32_t block = pl.block + static_cast<uint32_t>(i);
        const auto r = block_range(c, block);
        const size_t slot = arrive_at(c, block) + ctl::kStampBytes;
        for (uint32_t e = 0; e < pl.lists[i].size(); ++e) {
            const collectives::Command cmd = pl.lists[i][e];
            const acp_handle_t order = cmd.dep == collectives::kNoDep ? ACP_HANDLE_NULL : first + cmd.dep;
            // Inline: into the receiver's slot; a forwarder's bytes are in its slot.
            const acp_ga_t dst = small ? pl.ctl_ga(cmd.dst, slot) : pl.data_ga[cmd.dst] + r.offset;
            const acp_ga_t src =
                small && cmd.dep != collectives::kNoDep ? pl.ctl_ga(cmd.src, slot) : pl.data_ga[cmd.src] + r.offset;
            const acp_handle_t h = acp_copy(dst, src, r.length, order);
            if (h == ACP_HANDLE_NULL) return fail_gma(c, "acp_wait_col", "a data copy");
            if (e == 0) first = h;
            track(c, h);
        }
    }
    const acp_handle_t all_data = c.cur.last;
    const acp_ga_t stamp = ctl_ga(c, ctl::kStamp);
    // The data copies of all lists were consecutive handles: entry e of
    // list i is the first one + the entries before list i + e.
    acp_handle_t entry = all_data + 1;
    for (const auto &l : pl.lists) entry -= l.size();
    for (size_t i = 0; i < pl.lists.size(); ++i) {
        const uint32_t block = pl.block + static_cast<uint32_t>(i);
        for (uint32_t e = 0; e < pl.lists[i].size(); ++e) {
            const collectives::Command cmd = pl.lists[i][e];
            const acp_ga_t arrive = pl.ctl_ga(cmd.dst, arrive_at(c, block));
            acp_handle_t h = acp_copy(arrive, stamp, ctl::kStampBytes, entry++);
            if (h != ACP_HANDLE_NULL) notice(c, h, arrive, block, ctl::kStampBytes);
            if (h != ACP_HANDLE_NULL && cmd.src != pl.me) {
                const acp_ga_t fwd = pl.ctl_ga(cmd.src, at(c).fwd(block, c.seq));
                h = acp_copy(fwd, stamp, ctl::kFwdBytes, all_data);
                if (h != ACP_HANDLE_NULL) notice(c, h, fwd, block, ctl::kFwdBytes);
            }
            if (h == ACP_HANDLE_NULL) return fail_gma(c, "acp_wait_col", "a notification");
            track(c, h);
        }
    }
    c.cur.issued = true;
    return true;
}

// Have this round's stamps reached signal slot `slot`: both of an arrive
// slot's pair (plan.hpp), a forwards' notice?
// `where`: signal_at(c, slot), when the caller has it.
bool arrived_at(const Col &c, uint32_t slot, size_t where) {
    const uint8_t *s = c.ctl_base() + where;
    return stamp_is(load_acquire(s), c.seq) && (slot >= c.plan.lay.n_in || stamp_is(load_acquire(s + 8), c.seq));
}
bool arrived(const Col &c, uint32_t slot) { return arrived_at(c, slot, signal_at(c, slot)); }

// Is arrive slot `block`, arrived, this member's round: not failed, and
// the sender's size and offset this member's? (A failed size is none's.)
bool sound_at(const Col &c, size_t where) {
    const uint8_t *s = c.ctl_base() + where;
    return value_of(load_acquire(s)) == value_of(c.size) && sent_offset(s) == c.offset;
}

// Why signal slot `slot` (arrived, from rank `from`) is not this member's
// round, as sound() found.
std::string why_unsound(const Col &c, uint32_t slot, int32_t from) {
    const uint8_t *s = c.ctl_base() + signal_at(c, slot);
    const uint64_t size = value_of(load_acquire(s));
    const std::string rank = "rank " + std::to_string(from);
    if (size == kFailedSize)
        return (slot < c.plan.lay.n_in ? block_name(c, slot) + " from " + rank : "the forwards' notice from " + rank) +
               " failed on its way here (a copy failed, or a member it passed disagrees: that rank named why)";
    if (size != value_of(c.size))
        return "members' send sizes disagree: " + rank + " sent " + std::to_string(size) + " bytes, this rank " +
               std::to_string(c.size);
    return "members' send offsets disagree: " + rank + " sent offset " + std::to_string(sent_offset(s)) +
           ", this rank " + std::to_string(c.offset);
}

// A small round's block to a receiver whose slots are not mapped here
// (another node): its stamp pair and inline bytes as one signal put,
// which the receiver stores bytes first, then the offset stamp, then the
// size stamp (store_pair's order). Over a network that is one message,
// where a copy and a stamp ordered after it were four and a round trip.
acp_handle_t put_inline(const Col &c, acp_ga_t stamp, const char *from, size_t len) {
    const uint64_t pair[2] = {load_acquire(c.ctl_base() + ctl::kStamp), load_acquire(c.ctl_base() + ctl::kOffsetStamp)};
    return basic::layer::put_signal(stamp, pair, sizeof pair, from, len, ctl::kStampBytes, ACP_HANDLE_NULL,
                                    "acp_wait_col");
}

// The late-write handshake (put_in_place, split_point): this member names
// the receiver of out entry j in kWriting, fences, and then reads the
// place the receiver published. The place, mapped here, where it is
// published for this segment with this member's length; else nullptr,
// and kWriting is back to 0. The receiver withdraws before it reads
// kWriting (withdraw_place): either this member sees the withdrawal, or
// the receiver sees the write in progress and waits for its end. Whoever
// writes sets kWriting back to 0 when done.
const uint8_t *claim_place(Col &c, size_t j) {
    const OutEntry &o = c.plan.out[j];
    uint8_t *writing = c.ctl_base() + ctl::kWriting;
    __atomic_store_n(reinterpret_cast<uint64_t *>(writing), stamp_of(c.seq, o.dst_rank), __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    const uint8_t *place = reinterpret_cast<const uint8_t *>(c.direct.out[j].arrive) - at(c).arrive(o.block, 0, 0);
    const uint64_t published = load_acquire(place + ctl::kPlaceStamp);
    if (stamp_is(published, c.seq) && value_of(published) == seg_len(c)) return place;
    store_release(writing, 0);
    return nullptr;
}

// A buffered handle's block (range r, from `from`) to a receiver on this
// node that published where its array takes this segment (publish_place):
// written there by one Cross-Memory-Attach copy, then the stamps, marked
// kInPlace, stored into its mapped slot. False: it did not publish this
// segment with this member's length (or withdrew it), or CMA does not
// reach it; the block goes into its buffer by GMA. A failed copy fails the
// round here and sends the receiver a failed stamp, as a failed GMA does.
// The receiver's array is the application's: once its round ended without
// the data (withdraw_place) nothing may write there, hence the handshake
// (claim_place).
bool put_in_place(Col &c, size_t j, const char *from, const collectives::ByteRange &r) {
    const OutEntry &o = c.plan.out[j];
    char *slots = c.direct.out[j].arrive;
    if (!slots) return false;
    const uint8_t *place = claim_place(c, j);
    if (!place) return false;
    struct Done {  // the word goes back to 0 on every way out
        uint8_t *w;
        ~Done() { store_release(w, 0); }
    } done{c.ctl_base() + ctl::kWriting};
    // Block b at base + b x stride; r.offset is in the buffer's layout,
    // where an allgather's block b starts at b x buffersize.
    const size_t there = c.plan.data_block(o.block);  // the block's place in the receiver's recvbuf
    const size_t within = r.offset - (c.p.kind == Kind::kBcast ? 0 : there * c.p.size);
    const uint64_t addr = load_acquire(place + ctl::kPlaceAddr) +
                          there * (load_acquire(place + ctl::kPlaceStride) & ~ctl::kPlaceReads) + within;
    const int rc = basic::layer::write_direct(o.dst_rank, addr, from, r.length, "acp_wait_col");
    if (rc == basic::layer::kNoDirectWrite) return false;
    char *slot = slots + ring_offset(c);
    if (rc == 0) {
        store_pair(slot, load_acquire(c.ctl_base() + ctl::kStamp), stamp_of(c.seq, c.offset | ctl::kInPlace));
    } else {
        note_error(c, "a copy this rank issued failed: " + block_name(c, o.block) + " to rank " +
                          std::to_string(o.dst_rank) + " (into its array)");
        store_pair(slot, stamp_of(c.seq, kFailedSize), stamp_of(c.seq, 0));
    }
    set_issued(c, j);
    return true;
}

// One GMA, waited for here (on one node: microseconds): did it land?
bool copy_now(acp_ga_t dst, acp_ga_t src, size_t n) {
    const acp_handle_t h = acp_copy(dst, src, n, ACP_HANDLE_NULL);
    if (h == ACP_HANDLE_NULL) return false;
    acp_complete(h);
    return acp_inquire(h) == 0;
}

// A block this member takes by GMA from `src` on this node, where it
// cannot map or read it there: a pooled block's chunk in a peer that lets
// none map its memory (while it maps this one's), a kPulled block where
// CMA is refused. Into this member's array or buffer (range r), waited
// for here (on one node: microseconds), then into place (`to`) if that is
// elsewhere. False if it failed.
bool fetch(Col &c, acp_ga_t src, const collectives::ByteRange &r, char *to) {
    if (!copy_now(c.mem.data + r.offset, src, r.length)) return false;
    if (char *landed = local_data(c) + r.offset; landed != to) basic::copy_bytes(to, landed, r.length);
    return true;
}

// This member's count of reads of `block` this segment (ctl::kPullCount):
// in its own slot of the block, where its receivers add.
uint64_t *read_count(const Col &c, uint32_t block) {
    return reinterpret_cast<uint64_t *>(c.ctl_base() + arrive_at(c, block) + ctl::kPullCount);
}

// Where the sender of a kPulled block splits it: the receiver reads the
// head, this member writes the tail into the receiver's array (at `to`
// there) in the meantime, so two cores copy. Only a direct bcast's root
// with one receiver: a member that receives has its own reads to make,
// and a root with several receivers would hold the later ones back while
// it writes. Not below kSplitMin (the tail's system call and the
// receiver's wait for it cost more than half the copy saves). From an
// array its node maps (kPullMapped: the receiver's head is a memcpy) only
// into a receiver's array mapped here too (the tail a memcpy as well: a
// CMA write would take longer than the receiver's whole memcpy), and
// from kSplitMinMapped: below it the memcpy is too short to halve. Not
// where the receiver has not published its place for this round (it
// withdrew: its round ended), by the handshake (claim_place); where it
// splits, kWriting goes back to 0 once the tail is written (write_tail).
struct Tail {
    size_t head = 0;              // 0: no split
    uint64_t to = 0;              // where the tail goes, in the receiver
    basic::layer::Mapped mapped;  // or where it goes here (its array mapped: memcpy)
};
constexpr size_t kPage = 4096;  // a split's head ends on a page: each side pins its own pages
Tail split_point(Col &c, size_t j, const collectives::ByteRange &r) {
    const OutEntry &o = c.plan.out[j];
    if (c.p.kind != Kind::kBcast || c.rank != c.p.root || c.plan.out.size() != 1 || r.length < kSplitMin) return {};
    // A buffered root writes by CMA only (its receiver's array is not
    // registered): where it has worked.
    if (buffered(c) && (r.length < kSplitMinBuffered || !basic::layer::proven_direct(o.dst_rank, o.dst_arrive)))
        return {};
    Tail t;
    t.head = (r.length / 2 + kPage - 1) / kPage * kPage;
    if (c.array_mapped) {
        if (r.length < kSplitMinMapped) return {};
        t.mapped = basic::layer::mapped(o.dst_data + r.offset + t.head, r.length - t.head);
        if (!t.mapped.ptr) return {};
    }
    const uint8_t *place = claim_place(c, j);
    if (!place) return {};
    if (buffered(c) && !(load_acquire(place + ctl::kPlaceStride) & ctl::kPlaceReads)) {
        store_release(c.ctl_base() + ctl::kWriting, 0);
        return {};
    }
    // r: a direct round's range in the array, a buffered one's in the segment.
    t.to = load_acquire(place + ctl::kPlaceAddr) + (buffered(c) ? r.offset : r.offset - c.offset) + t.head;
    return t;
}

// A buffered split's copy (its root's array, its receiver's, neither
// registered) found CMA refused after it had worked: reported; -1.
int cma_lost(const Col &c, int peer) {
    basic::report("acp_wait_col", "handle", "rank %d: Cross-Memory Attach to rank %d no longer works", c.rank, peer);
    return -1;
}

// The tail of a split block (split_point) into the receiver of out entry
// j: a memcpy where its array is mapped here, else one Cross-Memory-Attach
// write (by GMA where CMA turns out to be refused); then its word in the
// receiver's slot, written or failed; then kWriting back to 0.
void write_tail(Col &c, size_t j, char *slot, const char *from, const collectives::ByteRange &r, const Tail &t) {
    const OutEntry &o = c.plan.out[j];
    const size_t n = r.length - t.head;
    int rc = 0;
    if (t.mapped.ptr) {
        if (basic::layer::injected_fault(o.dst_rank, n, "acp_wait_col"))  // counted as write_direct counts
            rc = -1;
        else
            basic::copy_bytes(t.mapped.ptr, from + t.head, n);
    } else {
        rc = basic::layer::write_direct(o.dst_rank, t.to, from + t.head, n, "acp_wait_col");
    }
    if (rc == basic::layer::kNoDirectWrite && buffered(c)) {
        // A buffered root's bytes are in no registered memory, and CMA had
        // worked (split_point): not met in practice; said, not taken by another way.
        rc = cma_lost(c, o.dst_rank);
    } else if (rc == basic::layer::kNoDirectWrite) {
        const uint64_t at = r.offset + t.head;
        rc = copy_now(o.dst_data + at, c.mem.data + at, n) ? 0 : -1;
    }
    if (rc != 0)
        note_error(c, "a copy this rank issued failed: " + block_name(c, o.block) + " to rank " +
                          std::to_string(o.dst_rank) + " (its tail, into its array)");
    store_release(slot + ctl::kPullWritten, stamp_of(c.seq, rc == 0 ? ctl::kTailWritten : ctl::kTailFailed));
    store_release(c.ctl_base() + ctl::kWriting, 0);
}

// A direct handle's block (range r, at `from` in this member's array) to
// the receiver of out entry j on this node, which called send for this
// segment: the address (and GA) go into the receiver's slot, then the
// stamps, marked kPulled; the receiver reads the bytes out of this
// process (one Cross-Memory-Attach read) and counts its read here
// (pulls_answered). Why the receiver: it reads in its own round only, so
// nothing writes into its array after its wait returned (a written block
// could land there after the receiver's round timed out); a sender's
// receivers read at once, where its writes ran one after another; and
// one system call at the receiver replaces two GMAs here (data, then
// stamps). At 2 ranks on the 2-core VM the rounds take as long either
// way (doc/measurements/2026-12-06-receiver-reads-one-node.md). False:
// the receiver's slots are not mapped here, or CMA does not reach it; the
// block goes by GMA. A copy a test fails (basic::layer::injected_fault)
// fails as a write would: the round here, a failed stamp to the receiver.
bool publish_pull(Col &c, size_t j, const char *from, const collectives::ByteRange &r) {
    const OutEntry &o = c.plan.out[j];
    char *slots = c.direct.out[j].arrive;
    // The words behind the stamps need a slot of a line (a buffered
    // handle's may be the stamps alone: ACP_COL_INLINE=0).
    if (!c.pull || !slots || at(c).arrive_stride() < 64 || !basic::layer::reaches_direct(o.dst_rank)) return false;
    char *slot = slots + ring_offset(c);
    const Tail tail = split_point(c, j, r);
    // A buffered root's rounds are read only where split: put_in_place
    // writes the others whole, with the registered buffers behind it.
    if (buffered(c) && !tail.head) return false;
    set_issued(c, j);
    // A split block's tail is the copy a test fails (write_direct counts it).
    if (!tail.head && basic::layer::injected_fault(o.dst_rank, r.length, "acp_wait_col")) {
        note_error(c, "a copy this rank issued failed: " + block_name(c, o.block) + " to rank " +
                          std::to_string(o.dst_rank) + " (to be read from here)");
        store_pair(slot, stamp_of(c.seq, kFailedSize), stamp_of(c.seq, 0));
        return true;
    }
    // The count's last users were the reads of the segment depth before,
    // all counted before it ended here.
    bool first = true;
    for (size_t k = 0; k < c.plan.out.size() && first; ++k)
        first = !(awaits_read(c, k) && c.plan.out[k].block == o.block);
    if (first) store_release(read_count(c, o.block), 0);
    store_release(slot + ctl::kPullSplit, tail.head);
    store_release(slot + ctl::kPullAddr, reinterpret_cast<uintptr_t>(from));
    // A buffered root's array has no GA; its receiver's head lands in
    // place, in its array (kInPlace), as put_in_place's blocks do.
    store_release(slot + ctl::kPullGa,
                  buffered(c) ? ACP_GA_NULL : c.mem.data + static_cast<uint64_t>(from - c.mem.array));
    const uint64_t how = ctl::kPulled | (c.array_mapped ? ctl::kPullMapped : 0) | (buffered(c) ? ctl::kInPlace : 0);
    store_pair(slot, load_acquire(c.ctl_base() + ctl::kStamp), stamp_of(c.seq, c.offset | how));
    c.cur.out_issued[j] |= kPullMark;
    ++c.cur.pulls;
    if (tail.head) write_tail(c, j, slot, from, r, tail);
    return true;
}

// Where the receiver of a kPulled block counts its read: the sender's
// own slot of the block (read_count there), through the sender's control
// block mapped here (nullptr: not mapped) or by its GA.
struct CountAt {
    uint64_t *mapped = nullptr;
    acp_ga_t ga = ACP_GA_NULL;
};
CountAt count_at(const Col &c, int32_t from, uint32_t block) {
    const size_t within = at(c).arrive(block, 0, 0) + ring_offset(c) + ctl::kPullCount;
    for (size_t i = 0; i < c.plan.ready_targets.size(); ++i) {
        if (static_cast<int32_t>(basic::ga::decode(c.plan.ready_targets[i]).rank) != from) continue;
        const acp_ga_t ctl = c.plan.ready_targets[i] - c.plan.ready_within[i];
        uint8_t *base = c.direct.ready[i] ? c.direct.ready[i] - c.plan.ready_within[i] : nullptr;
        return {base ? reinterpret_cast<uint64_t *>(base + within) : nullptr, ctl + within};
    }
    return {};
}

// Adds `n` to a sender's count of reads; the count before, or
// kPullWithdrawn if it could not be added (reported, and so named).
uint64_t count_read(Col &c, const CountAt &to, uint64_t n, uint32_t block) {
    if (to.mapped) return __atomic_fetch_add(to.mapped, n, __ATOMIC_SEQ_CST);
    // Its control block not mapped here: an atomic GMA, the count before
    // into this member's own count word of the block (free: this member
    // does not send this block this segment before it has read it).
    const acp_ga_t before = ctl_ga(c, arrive_at(c, block) + ctl::kPullCount);
    const acp_handle_t h = to.ga == ACP_GA_NULL ? ACP_HANDLE_NULL : acp_add8(before, to.ga, n, ACP_HANDLE_NULL);
    if (h != ACP_HANDLE_NULL) acp_complete(h);
    if (h == ACP_HANDLE_NULL || acp_inquire(h) != 0) return ctl::kPullWithdrawn;
    return load_acquire(c.ctl_base() + arrive_at(c, block) + ctl::kPullCount);
}

// The receiver of a kPulled block (signal slot `block`, its stamps at
// `where`, from rank `from`): reads range r of it (the head where its
// sender splits it) out of the sender's array into `to` (by GMA from the
// sender's registered array where CMA is refused), counts the read at the
// sender, and clears kPulled here once the sender's word says its tail is
// written: false until then. A read that failed, or whose sender withdrew
// it (its round ended first: the bytes may be the application's next
// ones), or a tail that failed, fails the round here and, by a failed
// stamp in the slot, at the members this one forwards the block to. Not
// `sound` (not this member's round, named by the caller): counted, not
// read, passed on as failed.
bool pull_block(Col &c, uint32_t block, size_t where, int32_t from, const collectives::ByteRange &r, char *to,
                bool sound) {
    uint8_t *s = c.ctl_base() + where;
    const uint64_t split = load_acquire(s + ctl::kPullSplit);
    const size_t head = split & ~ctl::kSplitRead;
    std::string why;
    if (!(split & ctl::kSplitRead)) {
        int rc = 0;
        if (sound) {
            // Memory the sender's node maps (kPullMapped): copied out of its mapping here.
            const acp_ga_t mapped = offset_value(s) & ctl::kPullMapped ? load_acquire(s + ctl::kPullGa) : ACP_GA_NULL;
            const size_t n = head ? head : r.length;
            rc = basic::layer::read_direct(from, to, load_acquire(s + ctl::kPullAddr), n, "acp_wait_col", mapped);
            if (const acp_ga_t ga = load_acquire(s + ctl::kPullGa); rc == basic::layer::kNoDirectWrite && ga)
                rc = fetch(c, ga, {r.offset, n}, to) ? 0 : -1;
            else if (rc == basic::layer::kNoDirectWrite)  // a buffered root's array: CMA had worked
                rc = cma_lost(c, from);
        }
        const uint64_t before = count_read(c, count_at(c, from, block), 1 + (rc == 0 ? 0 : ctl::kPullFailure), block);
        if (rc != 0)
            why = " could not be read out of that rank's array (the error above)";
        else if (sound && (before & ctl::kPullWithdrawn))
            why = " was withdrawn by that rank while this rank read it (its round had ended there)";
        // Its tail may be on its way here still: no writer in the array
        // once the round ends (the handshake: withdraw_place).
        if (head && !why.empty()) withdraw_place(c);
        if (head && why.empty()) {
            store_release(s + ctl::kPullSplit, split | ctl::kSplitRead);
            return false;  // at once: the tail is rarely written by now
        }
    } else {
        const uint64_t tail = load_acquire(s + ctl::kPullWritten);
        if (!stamp_is(tail, c.seq)) return false;
        if (sound && value_of(tail) != ctl::kTailWritten)
            why = ": its tail could not be written into this rank's array by that rank (the error is reported there)";
    }
    if (why.empty() || !sound) {
        unmark_pulled(c, where);
        return true;
    }
    note_error(c, block_name(c, block) + " from rank " + std::to_string(from) + why);
    store_pair(s, stamp_of(c.seq, kFailedSize), stamp_of(c.seq, 0));
    return true;
}

// Have the receivers of this segment's kPulled blocks read them all? A
// failed read fails the round here as a failed copy does.
bool pulls_answered(Col &c) {
    for (size_t j = 0; j < c.plan.out.size() && c.cur.pulls; ++j) {
        if (!awaits_read(c, j)) continue;
        const uint32_t block = c.plan.out[j].block;
        uint64_t readers = 0;
        for (size_t k = j; k < c.plan.out.size(); ++k) readers += awaits_read(c, k) && c.plan.out[k].block == block;
        const uint64_t n = __atomic_load_n(read_count(c, block), __ATOMIC_ACQUIRE);
        if ((n & (ctl::kPullFailure - 1)) < readers) return false;
        if (n >= ctl::kPullFailure)
            note_error(c, "a copy this rank issued failed: " + block_name(c, block) +
                              ", read from here by a receiver (it named why)");
        for (size_t k = j; k < c.plan.out.size(); ++k)
            if (awaits_read(c, k) && c.plan.out[k].block == block) c.cur.out_issued[k] = mark(c);
        c.cur.pulls -= static_cast<uint32_t>(readers);
    }
    return c.cur.pulls == 0;
}

// A pooled segment's block (range r, from `from`) to the receiver of out
// entry j on this node, whose slot of this round is mapped at `slot`:
// copied once into a chunk of this process's pool (shared by the block's
// receivers), the chunk's GA and the pool's size into the slot, then the
// stamps marked kPooled. False: no room in the pool.
bool put_pooled(Col &c, size_t j, char *slot, const char *from, const collectives::ByteRange &r) {
    EagerPool &pool = State::get().pool;
    const uint32_t block = c.plan.out[j].block;
    bool fresh = false;
    const size_t off =
        pool.take(r.length, c.id, c.seq, block, reinterpret_cast<const uint64_t *>(slot + ctl::kChunkGa), &fresh);
    if (off == EagerPool::kNone) return false;
    if (fresh) basic::copy_bytes(pool.at(off), from, r.length);
    store_release(slot + ctl::kChunkGa, pool.ga(off));
    store_release(slot + ctl::kPoolBytes, pool.bytes());
    store_pair(slot, load_acquire(c.ctl_base() + ctl::kStamp), stamp_of(c.seq, c.offset | ctl::kPooled));
    set_issued(c, j);
    return true;
}

// A pooled segment's block (range r, from `from`) to the receiver of out
// entry j, whose slots are not mapped here (another node): a held put, one
// message, the body held there and the stamps (marked kHeld) stored last.
acp_handle_t put_held_block(const Col &c, size_t j, const char *from, const collectives::ByteRange &r) {
    const uint64_t head[3] = {load_acquire(c.ctl_base() + ctl::kStamp), stamp_of(c.seq, c.offset | ctl::kHeld),
                              0};  // the receiver stores the reference
    static_assert(sizeof head == ctl::kHeldHead);
    return basic::layer::put_held(c.plan.out[j].dst_arrive + ring_offset(c), head, sizeof head, from, r.length,
                                  ctl::kStampBytes, ACP_HANDLE_NULL, "acp_wait_col");
}

// Delegated: every entry whose receiver is ready and whose bytes are here.
bool issue_ready_entries(Col &c, bool *moved) {
    const uint8_t *ready = ready_bytes(c);
    const bool small = is_inline(c);
    for (size_t j = 0; j < c.plan.out.size(); ++j) {
        if (issued(c, j)) continue;
        const OutEntry &o = c.plan.out[j];
        if (!out_ready(c, j, ready) || (o.wait && !arrived(c, o.block))) continue;
        // A block to be read out of its sender: once this member has read it.
        if (o.wait && !small && pulled_at(c, signal_at(c, o.block))) continue;
        const auto r = block_range(c, o.block);
        // A forwarder's block of a pooled round is in its sender's pool,
        // or held here (or, where that sender found no room, in this
        // member's array or buffer).
        const bool pooled = is_pooled(c);
        const size_t got_at = o.wait ? signal_at(c, o.block) : 0;
        const bool via_chunk = o.wait && pooled && pooled_at(c, got_at);
        const char *chunk = via_chunk ? chunk_at(c, got_at, r.length) : nullptr;  // nullptr: not mapped here
        const bool held_here = o.wait && pooled && held_at(c, got_at);
        const char *held = held_here ? held_body(c, got_at, r.length) : nullptr;
        // A block that failed upstream, came from a member that disagrees
        // with this one, or whose held bytes are not here (check_arrivals
        // says why): a failed stamp, not the bytes.
        const bool pass_failure = o.wait && (!sound_at(c, got_at) || (held_here && !held));
        const size_t turn = ring_offset(c);  // this round's slot in the receiver's rings
        if (const Col::Direct &d = c.direct.out[j]; pass_failure && (small || pooled) && d.arrive) {
            store_pair(d.arrive + turn, stamp_of(c.seq, kFailedSize), stamp_of(c.seq, 0));
            set_issued(c, j);
            *moved = true;
            continue;
        }
        if (pass_failure) {
            const acp_ga_t stamp = o.dst_arrive + turn;
            const acp_handle_t h = acp_copy(stamp, failed_pair(c), ctl::kStampBytes, ACP_HANDLE_NULL);
            if (h == ACP_HANDLE_NULL) return fail_gma(c, "acp_wait_col", "a failure signal");
            track(c, h);
            set_issued(c, j);
            *moved = true;
            continue;
        }
        // A small round's forwarder has the bytes in its own slot of this round.
        const char *from = small && o.wait ? reinterpret_cast<const char *>(c.ctl_base()) + got_at + ctl::kStampBytes
                           : via_chunk     ? chunk
                           : held          ? held
                                           : bytes_here(c, o.block, r);
        if (const Col::Direct &d = c.direct.out[j]; small && d.arrive) {  // on-node: plain stores
            char *slot = d.arrive + turn;                                 // the stamp, then the inline bytes
            basic::copy_bytes(slot + ctl::kStampBytes, from, r.length);
            store_pair(slot, load_acquire(c.ctl_base() + ctl::kStamp), load_acquire(c.ctl_base() + ctl::kOffsetStamp));
            set_issued(c, j);
            *moved = true;
            continue;
        }
        if (const Col::Direct &d = c.direct.out[j];
            pooled && d.arrive && from && put_pooled(c, j, d.arrive + turn, from, r)) {
            *moved = true;
            continue;
        }
        if (pooled && !c.direct.out[j].arrive && (!via_chunk || chunk)) {  // another node's: held there
            const acp_handle_t h = put_held_block(c, j, from, r);
            if (h == ACP_HANDLE_NULL) return fail_gma(c, "acp_wait_col", "a held put");
            track(c, h);
            notice(c, h, o.dst_arrive + turn, o.block, ctl::kStampBytes);
            set_issued(c, j);
            *moved = true;
            continue;
        }
        // No room in the pool (or no mapping): into its array or buffer, once it called send.
        if (pooled && !exact_ready(c, j)) continue;
        if (!small && !pooled && publish_pull(c, j, from, r)) {
            *moved = true;
            continue;
        }
        if (!small && buffered(c) && put_in_place(c, j, from, r)) {
            *moved = true;
            continue;
        }
        const acp_ga_t stamp = o.dst_arrive + turn;  // the inline slot follows it
        acp_handle_t h = ACP_HANDLE_NULL;
        if (small) {  // the stamps and the bytes in one message (signal put), the stamps stored last
            h = put_inline(c, stamp, from, r.length);
        } else {
            // A pooled block: from the sender's chunk, or where this
            // member fetched it when that is not mapped here.
            acp_ga_t src = c.mem.data + r.offset;
            if (via_chunk && chunk)
                src = chunk_ga(c, got_at);
            else if (via_chunk && !fetch(c, chunk_ga(c, got_at), r, local_data(c) + r.offset))
                return fail_gma(c, "acp_wait_col", "a copy out of a sender's eager pool");
            else if (held)  // into registered memory here first: the GMA's source
                basic::copy_bytes(local_data(c) + r.offset, held, r.length);
            else if (!via_chunk)
                stage_block(c, o.block, r);
            h = acp_copy(o.dst_data + r.offset, src, r.length, ACP_HANDLE_NULL);
            if (h != ACP_HANDLE_NULL) h = acp_copy(stamp, ctl_ga(c, ctl::kStamp), ctl::kStampBytes, track(c, h));
        }
        if (h == ACP_HANDLE_NULL) return fail_gma(c, "acp_wait_col", "a forward");
        track(c, h);
        notice(c, h, stamp, o.block, ctl::kStampBytes);
        set_issued(c, j);
        *moved = true;
    }
    return true;
}

// Marks newly arrived slots; records a failed block, or a sender whose
// size or offset differs from this member's.
bool check_arrivals(Col &c) {
    bool all = true;
    for (size_t i = 0; i < c.plan.wait_slots.size(); ++i) {
        if (seen(c, i)) continue;
        const uint32_t slot = c.plan.wait_slots[i];
        const size_t where = signal_at(c, slot);  // found once: with two rings, a look at each
        if (!arrived_at(c, slot, where)) {
            all = false;
            continue;
        }
        const bool block = slot < c.plan.lay.n_in;
        if (block && pulled_at(c, where)) {  // in the sender's array: read it here
            const auto r = block_range(c, slot);
            char *to = buffered(c) ? const_cast<char *>(array_at(c, slot, r)) : local_data(c) + r.offset;
            if (!pull_block(c, slot, where, c.plan.wait_from[i], r, to, sound_at(c, where))) {
                all = false;  // its tail is being written here
                continue;
            }
        }
        c.cur.seen[i] = mark(c);
        if (block ? !sound_at(c, where) : value_of(load_acquire(c.ctl_base() + where)) != value_of(c.size)) {
            note_error(c, why_unsound(c, slot, c.plan.wait_from[i]));
            continue;
        }
        if (!block) continue;
        const auto r = block_range(c, slot);
        // A buffered member's bytes go to its array as each block comes
        // (while later blocks come in), from its slot or its buffer.
        char *to = buffered(c) ? const_cast<char *>(array_at(c, slot, r)) : local_data(c) + r.offset;
        if (is_pooled(c) && held_at(c, where)) {  // held here
            if (const char *body = held_body(c, where, r.length))
                basic::copy_bytes(to, body, r.length);
            else
                note_error(c, block_name(c, slot) + " from rank " + std::to_string(c.plan.wait_from[i]) +
                                  ": its slot names no held bytes of " + std::to_string(r.length) +
                                  " here (overwritten?)");
        } else if (is_pooled(c) && pooled_at(c, where)) {  // in the sender's pool
            if (const char *chunk = chunk_at(c, where, r.length))
                copy_out_of_chunk(to, chunk, r.length);
            else if (!fetch(c, chunk_ga(c, where), r, to))
                note_error(c, block_name(c, slot) + " from rank " + std::to_string(c.plan.wait_from[i]) +
                                  ": the copy out of its eager pool failed");
        } else if (is_inline(c))  // the bytes came in the slot: into place
            basic::copy_bytes(to, c.ctl_base() + where + ctl::kStampBytes, r.length);
        else if (buffered(c) && !in_place_at(c, where))
            basic::copy_bytes(to, local_data(c) + r.offset, r.length);
    }
    return all;
}

// The segment's GMAs are complete and one in its range failed. If it was
// one of this member's signals (a stamp or notification fails when the
// copy it was ordered after did), the round fails here, naming it, and
// each receiver of a failed stamp gets the failed stamp instead, so it
// fails the round at once rather than at ACP_TIMEOUT, and passes it on.
// True when failed stamps are on their way.
bool send_failure_stamps(Col &c) {
    std::vector<std::string> what;
    for (const auto &n : c.cur.notices)
        if (basic::layer::poll(n.gma) < 0)
            what.push_back((n.slot == ACP_GA_NULL ? "its ready signal to rank " + std::to_string(n.to)
                                                  : block_name(c, n.block) + " to rank " + std::to_string(n.to)) +
                           " (GMA " + std::to_string(n.gma) + ")");
    if (what.empty()) return false;  // another handle's or the application's GMA
    note_error(c, "a copy this rank issued failed: " + listed(what));
    c.cur.failing = true;
    const acp_ga_t failed = failed_pair(c);
    bool sent = false;
    for (const auto &n : c.cur.notices) {
        if (n.slot == ACP_GA_NULL || basic::layer::poll(n.gma) >= 0) continue;
        const acp_handle_t h = acp_copy(n.slot, failed, n.bytes, ACP_HANDLE_NULL);
        if (h != ACP_HANDLE_NULL) sent = true, c.cur.last = h;
    }
    return sent;
}

// The segment's pooled blocks are copied out and forwarded: each slot's
// chunk GA is its sender's "consumed" mark (eager_pool.hpp); a held body
// is freed.
void give_back_chunks(Col &c) {
    for (const uint32_t slot : c.plan.wait_slots) {
        if (slot >= c.plan.lay.n_in) continue;
        uint8_t *s = c.ctl_base() + signal_at(c, slot);
        const uint64_t how = offset_value(s);
        if (how & ctl::kHeld) basic::layer::release_held(load_acquire(s + ctl::kHeldRef));
        if (how & (ctl::kHeld | ctl::kPooled)) store_release(s + ctl::kChunkGa, 0);  // kChunkGa == kHeldRef
    }
}

// Which members' slots and ready bytes are mapped here (Col::Direct).
void find_direct(Col &c) {
    c.direct.known = true;
    const Plan &pl = c.plan;
    auto keep = [&](const basic::layer::Mapped &m) {
        if (m.keep) c.direct.mappings.push_back(m.keep);
        return m.ptr;
    };
    c.direct.out.assign(pl.out.size(), {});
    // A buffered handle's larger rounds store their stamps there too (put_in_place).
    for (size_t j = 0; j < pl.out.size() && (pl.lay.inl || buffered(c)); ++j) {
        // The block's ring: each round's stamp and inline slot.
        const size_t ring = pl.layout().rings_bytes();
        c.direct.out[j].arrive = keep(basic::layer::mapped(pl.out[j].dst_arrive, ring));
    }
    const uint64_t here = basic::layer::node_id(c.rank);
    auto away = [&](int64_t rank) { return basic::layer::node_id(static_cast<int>(rank)) != here; };
    for (const OutEntry &o : pl.out) c.direct.off_node |= away(o.dst_rank);
    for (const int32_t r : pl.wait_from) c.direct.off_node |= away(r);
    for (const acp_ga_t g : pl.ready_targets) c.direct.off_node |= away(basic::ga::decode(g).rank);
    for (const acp_ga_t g : pl.data_ga) c.direct.off_node |= away(basic::ga::decode(g).rank);
    c.direct.ready.assign(pl.ready_targets.size(), nullptr);
    for (size_t i = 0; i < pl.ready_targets.size(); ++i)
        c.direct.ready[i] = reinterpret_cast<uint8_t *>(keep(basic::layer::mapped(pl.ready_targets[i], 1)));
    // A member's slots and ready bytes share its mapping: one reference
    // each is enough.
    auto by_mapping = [](const std::shared_ptr<void> &a, const std::shared_ptr<void> &b) { return a.get() < b.get(); };
    std::sort(c.direct.mappings.begin(), c.direct.mappings.end(), by_mapping);
    c.direct.mappings.erase(std::unique(c.direct.mappings.begin(), c.direct.mappings.end()), c.direct.mappings.end());
    c.direct.mappings.shrink_to_fit();
}

// May this segment end here before its GMAs are known to have landed? A
// segment to members on other nodes whose sources (the data, the stamps,
// the ready byte, rewritten by the next segment) are free: copied out
// (small ones), or sent (blocks that go as messages: basic's
// message_put_max, sent from the array itself from 8 KiB up):
// remote completion there is a network round trip, about what the round
// itself costs, and the receivers' next ready bytes (or their stamps)
// follow from it anyway. Failures of such a segment's GMAs end a later
// round of the handle, or its free, with -1 naming that round.
// A GMA of it that failed already is not left behind: the segment
// completes and its receivers get failed stamps, at once.
bool may_trail(const Col &c) {
    return c.direct.off_node && c.trail.size() + 1 < ring_depth(c) &&
           basic::layer::sources_free(c.cur.first, c.cur.last);
}

}  // namespace

acp_handle_t track(Col &c, acp_handle_t h) {
    if (c.cur.first == ACP_HANDLE_NULL) c.cur.first = h;
    c.cur.last = h;
    return h;
}

bool retire_trail_into_round(Col &c) {
    if (c.trail.empty()) return false;
    std::string lost;
    const bool moved = retire_trail(c, &lost);
    if (!lost.empty()) note_error(c, lost);
    return moved;
}

void note_error(Col &c, const std::string &what) {
    if (!c.round_error.empty()) return;
    c.round_error = what;
    c.error_round = c.round;
}

bool retire_trail(Col &c, std::string *lost) {
    bool moved = false;
    while (!c.trail.empty() && basic::layer::completion(c.trail.front().last) != 1) {
        const Col::Trailing t = c.trail.front();
        c.trail.pop_front();
        moved = true;
        if (const acp_handle_t f = acp_query_failed(t.first, t.last); f != ACP_HANDLE_NULL && lost->empty())
            *lost = "round " + std::to_string(t.round) + ", which had ended here, lost a copy: GMA " +
                    std::to_string(f) + " failed (its receiver's round fails or times out)";
    }
    return moved;
}

bool start_round(Col &c, const char *fn) {
    if (c.ar) return allreduce_start(c, fn);
    if (!c.direct.known) find_direct(c);
    ++c.round;
    c.set_active(true);
    c.seg = 0;
    c.nseg = 1;
    if (buffered(c) && c.size > c.p.size) c.nseg = static_cast<uint32_t>((c.size + c.p.size - 1) / c.p.size);
    // Sized here once (their marks need no clearing: Col::Segment).
    if (c.cur.out_issued.size() != c.plan.out.size()) c.cur.out_issued.resize(c.plan.out.size());
    if (c.cur.seen.size() != c.plan.wait_slots.size()) c.cur.seen.resize(c.plan.wait_slots.size());
    // Not ready at any seq: 128 rounds behind (depth <= 64) and not level.
    const auto never = static_cast<uint8_t>(c.seq + 1 + 128);
    if (c.ready_known.size() != c.plan.out.size()) c.ready_known.assign(c.plan.out.size(), never);
    if (c.plan.executes_list && c.member_known.size() != c.plan.members) c.member_known.assign(c.plan.members, never);
    return begin_segment(c, fn);
}

bool advance(Col &c) {
    if (!c.active || !c.broken.empty()) return false;
    if (c.ar) return allreduce_advance(c);
    bool moved = retire_trail_into_round(c);
    if (c.plan.executes_list && !c.cur.issued && all_ready(c)) {
        if (!issue_list(c)) return false;
        moved = true;
    }
    if (!c.plan.out.empty() && !issue_ready_entries(c, &moved)) return false;
    // Reads counted as they come, not once all is sent: a timeout then
    // names the receivers that have not read, not every one.
    if (c.cur.pulls) pulls_answered(c);
    if (!check_arrivals(c)) return moved;
    if (c.plan.executes_list && !c.cur.issued) return moved;
    if (c.cur.issued_count < c.plan.out.size() || c.cur.pulls) return moved;
    if (c.cur.last != ACP_HANDLE_NULL) {
        if (may_trail(c) && basic::layer::completion(c.cur.last) == 1) {
            c.trail.push_back({c.cur.first, c.cur.last, c.round});
            c.cur.first = c.cur.last = ACP_HANDLE_NULL;  // this segment's failures are the trail's now
        } else if (basic::layer::poll(c.cur.last) == 1) {
            return moved;
        }
    }
    if (!c.cur.failing && c.cur.first != ACP_HANDLE_NULL &&
        acp_query_failed(c.cur.first, c.cur.last) != ACP_HANDLE_NULL && send_failure_stamps(c))
        return true;  // then wait for those
    // The segment is complete here (a buffered member copied each block out
    // as it came, and forwarded what it forwards): its senders may take
    // their chunks back.
    if (is_pooled(c)) give_back_chunks(c);
    if (++c.seg < c.nseg) {
        begin_segment(c, "acp_wait_col");
        return true;
    }
    c.set_active(false);
    c.done_round = c.round;
    return true;
}

bool overdue(Col &c) {
    if (!c.active || !c.broken.empty()) return false;
    // The clock is read at every kPollsPerClockRead-th poll that finds the
    // segment unfinished, and timed from the first such read: a read costs
    // a tenth of a small round, and reading at every poll takes a fifth of
    // a waiting member's time (perf, 128 KiB rounds), each poll that much
    // slower to see the stamp.
    if (++c.cur.polls % kPollsPerClockRead != 0) return false;
    const auto now = Clock::now();
    if (c.cur.start == Clock::time_point{}) c.cur.start = now;
    return now - c.cur.start > std::chrono::duration<double>(basic::layer::timeout_seconds());
}

std::string pending(const Col &c) {
    if (c.ar) return allreduce_pending(c);
    std::vector<std::string> what;
    const uint8_t *ready = ready_bytes(c);
    if (c.plan.executes_list && !c.cur.issued)
        for (uint32_t m = 0; m < c.plan.members; ++m)
            if (m != c.plan.me && !receiver_ready(c, load8(ready + m)))
                what.push_back("rank " + std::to_string(basic::ga::decode(c.plan.data_ga[m]).rank) + " (its send)");
    // A pooled entry that found no room in the pool (or whose sender's
    // chunk is not mapped here) waits for the receiver's send, however far
    // ahead its ring would let it go.
    for (size_t j = 0; j < c.plan.out.size(); ++j)
        if (const uint8_t r = load8(ready + c.plan.out[j].ready);
            !issued(c, j) && (!receiver_ready(c, r) || (is_pooled(c) && r != static_cast<uint8_t>(c.seq))) &&
            !(c.plan.out[j].wait && !arrived(c, c.plan.out[j].block)))
            what.push_back("rank " + std::to_string(c.plan.out[j].dst_rank) + " (its send)");
    for (size_t i = 0; i < c.plan.wait_slots.size(); ++i)
        if (!seen(c, i))
            what.push_back("rank " + std::to_string(c.plan.wait_from[i]) +
                           (c.plan.wait_slots[i] < c.plan.lay.n_in ? " (data)" : " (forwards done)"));
    // Reads of this member's blocks not counted: each receiver of such a
    // block (a block's count does not say which of them have read it).
    for (size_t j = 0; j < c.plan.out.size() && c.cur.pulls; ++j)
        if (awaits_read(c, j))
            what.push_back("rank " + std::to_string(c.plan.out[j].dst_rank) + " (to read " +
                           block_name(c, c.plan.out[j].block) + " from here)");
    if (what.empty()) {
        // Everything was sent: a copy of this rank's is in flight. The first
        // notice not yet complete is the copy waited for (or comes right
        // after it: acp_inquire reports a GMA with those before it).
        for (const auto &n : c.cur.notices)
            if (basic::layer::poll(n.gma) == 1)
                return (n.slot == ACP_GA_NULL ? "its ready signal" : "its copy of " + block_name(c, n.block)) +
                       " to rank " + std::to_string(n.to) + " (GMA " + std::to_string(n.gma) + ") to complete";
        return "this rank's own copies to complete";
    }
    return listed(what);
}

// Calls f(rank, offset of its ready byte in the control block) for every
// receiver this member writes into.
template <class F>
void each_receiver(const Col &c, F f) {
    const size_t ready = at(c).ready();
    for (uint32_t m = 0; c.plan.executes_list && m < c.plan.members; ++m)
        if (m != c.plan.me) f(static_cast<int64_t>(basic::ga::decode(c.plan.data_ga[m]).rank), ready + m);
    for (const OutEntry &o : c.plan.out) f(o.dst_rank, ready + o.ready);
}

std::string lagging(const Col &c) {
    if (c.ar) return allreduce_lagging(c);
    std::vector<std::string> who;
    each_receiver(c, [&](int64_t rank, size_t at_ready) {
        if (!on_other_node(c, rank) && !started(load8(c.ctl_base() + at_ready), c.seq))
            who.push_back("rank " + std::to_string(rank));
    });
    return listed(who);
}

std::vector<size_t> unsettled_ready(const Col &c) {
    std::vector<size_t> out;
    each_receiver(c, [&](int64_t rank, size_t at_ready) {
        if (on_other_node(c, rank) && !started(load8(c.ctl_base() + at_ready), c.seq)) out.push_back(at_ready);
    });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool say_ready(Col &c, const char *fn) {
    if (!c.direct.known || c.last_due_seq == c.seq) return true;  // no round, or its byte went
    const auto seq = static_cast<uint8_t>(c.seq);
    for (size_t i = 0; i < c.plan.ready_targets.size(); ++i) {
        const acp_ga_t target = c.plan.ready_targets[i];
        if (c.direct.ready[i] || !on_other_node(c, basic::ga::decode(target).rank)) continue;
        if (basic::layer::put_signal(target, &seq, 1, 1, ACP_HANDLE_NULL, fn) == ACP_HANDLE_NULL)
            return basic::report(fn, "handle", "handle %llu: its last ready byte to rank %u could not be sent",
                                 static_cast<unsigned long long>(c.id), basic::ga::decode(target).rank);
    }
    c.last_due_seq = c.seq;
    return true;
}

void release_parked(State &st) {
    auto &parked = st.parked_ctls;
    for (size_t i = 0; i < parked.size();) {
        State::ParkedCtl &p = parked[i];
        const auto *ctl = static_cast<const uint8_t *>(p.ctl.base);
        const bool all = std::all_of(p.ready_at.begin(), p.ready_at.end(),
                                     [&](size_t at) { return started(load8(ctl + at), p.seq); });
        if (!all) {
            ++i;
            continue;
        }
        basic::layer::free_shared(p.ctl);
        parked[i] = std::move(parked.back());
        parked.pop_back();
    }
}

void pause_if_idle(unsigned idle) {
    const unsigned spin = acpx::basic::layer::yield_at_once() ? 1 : kSpinPolls;
    if (idle < spin) return;
    if (idle < spin + kYieldPolls)
        sched_yield();
    else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
}

bool progress_all(State &st) {
    if (!st.parked_ctls.empty()) release_parked(st);
    bool moved = false, off_node = false;
    // Backwards: a round that ends here leaves the list, the last handle
    // taking its place, and that one was advanced already.
    for (size_t i = st.in_flight.size(); i-- > 0;) {
        if (i >= st.in_flight.size()) continue;
        Col *c = st.in_flight[i];
        off_node |= c->direct.off_node;
        moved |= advance(*c);
    }
    // Stamps from other nodes may land only in this process's transport calls.
    if (off_node) basic::layer::progress();
    return moved;
}

// A member whose round ends without its data (timed out, broken; a
// split block whose head it could not read) takes back the place it
// published: the application may free or reuse its array once the wait
// returns. It withdraws, then waits while an on-node sender's kWriting
// word names it (claim_place has the handshake): a copy in progress,
// one system call. A sender stopped inside it
// holds the wait at most ACP_TIMEOUT, then it is reported.
void withdraw_place(Col &c) {
    uint8_t *ctl = c.ctl_base();
    if (c.ar || !ctl || !stamp_is(load_acquire(ctl + ctl::kPlaceStamp), c.seq)) return;
    __atomic_store_n(reinterpret_cast<uint64_t *>(ctl + ctl::kPlaceStamp), 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    const uint64_t me = stamp_of(c.seq, static_cast<uint64_t>(c.rank));
    const auto until = Clock::now() + std::chrono::duration<double>(basic::layer::timeout_seconds());
    for (size_t i = 0; i < c.direct.ready.size(); ++i) {
        if (!c.direct.ready[i]) continue;  // another node's: it cannot write here directly
        // The sender's control block: its ready byte's place in it back.
        const uint8_t *sender = c.direct.ready[i] - c.plan.ready_within[i];
        while (load_acquire(sender + ctl::kWriting) == me)
            if (Clock::now() > until) {
                basic::report("acp_wait_col", "handle",
                              "handle %llu round %llu: rank %d may still be writing into this round's array",
                              static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.round),
                              basic::ga::decode(c.plan.ready_targets[i]).rank);
                break;
            }
    }
}

namespace {
// A member whose round ends before its kPulled blocks were all read
// (timed out, broken) withdraws them: the application may change its
// array once the wait returns. A receiver that adds its read after this
// finds kPullWithdrawn and fails its round (pull_block); one that added
// before had read the bytes whole.
void withdraw_pulls(Col &c) {
    if (c.ar || !c.ctl_base()) return;
    for (size_t j = 0; j < c.plan.out.size() && c.cur.pulls; ++j)
        if (awaits_read(c, j))
            __atomic_fetch_or(read_count(c, c.plan.out[j].block), ctl::kPullWithdrawn, __ATOMIC_SEQ_CST);
    c.cur.pulls = 0;
}
}  // namespace

void break_handle(Col &c, const std::string &why) {
    c.broken = why;
    c.set_active(false);
    withdraw_pulls(c);
    withdraw_place(c);
    give_back_every_chunk(c);
}

void give_back_every_chunk(Col &c) {
    const ctl::Layout &l = at(c);
    uint8_t *ctl = c.ctl_base();
    if (c.ar || !ctl || l.eager <= l.inl) return;
    for (uint32_t b = 0; b < l.n_in; ++b)
        for (uint32_t k = 0; k < l.depth; ++k) {
            uint8_t *slot = ctl + l.arrive(b, k, 0);
            // A word a held put's head wrote, or inline bytes a later round's
            // put is writing now: release_held ignores what it never gave out.
            if (offset_value(slot) & ctl::kHeld) basic::layer::release_held(load_acquire(slot + ctl::kHeldRef));
            store_release(slot + ctl::kChunkGa, 0);
        }
}

}  // namespace acpx::middle
