// Persistent allreduce (acp.h: acp_create_allreduce): the butterfly's
// shape and its landing slots, a member's steps, and its rounds. Rounds
// run delegated, without ready signals: each slot is written once a
// round, and a slot of round parity r % 2 is written again (round r + 2)
// only by a writer that finished round r + 1, which took this member's
// partial of r + 1, sent after it had finished round r.
#pragma once

#include <acp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "basic/layer.hpp"
#include "plan.hpp"

namespace acpx::middle {

struct Col;

namespace ar {

// P members: P2, the largest power of two <= P, run K = log2(P2)
// butterfly stages; member j >= P2 is folded into member j - P2 first and
// gets the result from it last. Seed 001's redundancy (butterfly:M,L, P a
// power of two): after stage D = K / 2 each member sends the partial of
// its 2^D members to M of them (mid exchanges), and its result to L
// members (end exchanges); each keeps the first copy to come.
// Rabenseifner (halving): the same K stages and partners, each exchanging
// half of the range the member still reduces (reduce-scatter by recursive
// halving; each element combined in the butterfly's order), then K stages
// in reverse gathering the reduced ranges (allgather by recursive
// doubling): about 2 x the vector moved and 1 x combined per member, where
// the butterfly moves and combines it K times.
struct Shape {
    Shape(uint32_t members, uint32_t mid, uint32_t end, bool halving, size_t count, size_t elem);
    uint32_t members = 1, p2 = 1, k = 0, d = 0, m = 0, l = 0;
    bool halving = false;
    size_t count = 0, elem = 8;                                   // elements of a vector, bytes of one
    bool folds_in(uint32_t j) const { return j + p2 < members; }  // takes member j + P2's vector
    bool folded(uint32_t j) const { return j >= p2; }
    bool redundant() const { return m + l > 0; }
    // The exchanges of a member that is not folded: K stages, then M mid
    // and L end (butterfly), or K gathering stages (halving).
    uint32_t exchanges() const { return halving ? 2 * k : k + m + l; }
};

// Slots of a member's control block, each a stamp then a vector, in both
// round parities: what a folded member sends, the result a folded member
// gets, and each exchange's copy: stage s (kStage0 + s), then mid exchange
// j (+ K + j), end exchange j (+ K + M + j), or gathering stage t (+ K +
// t). Exchange n's partner is member XOR 2^s (stage s), XOR 2^j (mid and
// end j), XOR 2^(K-1-t) (gathering stage t).
inline constexpr uint32_t kFoldIn = 0, kResultIn = 1, kStage0 = 2;
uint32_t partner_bit(const Shape &s, uint32_t exchange);
// Params::algo of an allreduce.
inline constexpr uint8_t kButterfly = kAllreduceButterfly, kRabenseifner = kAllreduceRabenseifner;
// A handle's shape (members, M and L, algorithm, vector).
Shape shape_of(const Params &p);
// Elements slot `id` holds at most: the vector, or with halving at stage s
// ceil(count / 2^(s+1)), at gathering stage t ceil(count / 2^(K-t)).
size_t slot_elems(const Shape &s, uint32_t id);

// A stamp: the round in bits 2-63, and what the slot holds.
inline constexpr uint64_t kPartial = 1, kResult = 2, kFailed = 3;
constexpr uint64_t stamp_of(uint64_t round, uint64_t what) { return round << 2 | what; }
constexpr bool stamp_is(uint64_t stamp, uint64_t round) { return stamp >> 2 == round && (stamp & 3) != 0; }

// Header words of every control block: this round's stamps of each kind
// (the sources of stamps that go by acp_copy).
inline constexpr size_t kHeader = 64;
constexpr size_t stamp_word(uint64_t what) { return 8 * (what - 1); }

// A slot is its stamp, then the vector: in the stamp's cache line up to
// 56 bytes, else from the next line (whole lines for the vector loops).
// Stamp first, so that a copy to another node is one signal put that
// stores the stamp last (basic::layer::put_signal). `bytes`: what the slot
// holds at most.
size_t data_at(size_t bytes);      // from the slot's start
size_t data_bytes(size_t bytes);   // rounded up to 8
size_t slot_stride(size_t bytes);  // from one slot to the next (whole lines)
// Vectors up to this size go to members whose blocks are not mapped here
// as one signal put (its limit, less the stamp's line); larger ones as
// acp_copy and the stamp ordered after it.
inline constexpr size_t kSignalPutMax = 65536;
// Offset of slot `id`, round `round`'s parity, in member j's control
// block; SIZE_MAX if j has no such slot.
size_t slot_offset(const Shape &s, uint32_t j, uint32_t id, uint64_t round);
// Bytes of member j's control block.
size_t ctl_bytes(const Shape &s, uint32_t j);

// One step of a member's round, in order: send its vector (or partial, or
// the result) into slot `id` of member `peer`, or wait for its own slot
// `id` and combine what came (the lower member's vector first). A
// redundant butterfly's steps are its exchanges, sends all: it receives
// into the same slot ids from the same peers, in whatever order copies
// come (allreduce.cpp).
struct Step {
    bool send = false;
    bool result = false;  // send: the result, not a partial
    uint32_t id = 0;
    uint32_t peer = 0;
    size_t first = 0, count = 0;  // the elements it moves (halving: a range; else all)
    bool gather = false;          // wait: copy what came into place (a reduced range), not combine it
};
std::vector<Step> steps_of(const Shape &s, uint32_t me);
// The members whose control blocks member `me` sends into or hears from
// (its steps' peers), sorted: the only GAs allreduce_plan reads. Symmetric.
std::vector<uint32_t> neighbours(const Shape &s, uint32_t me);

// out[i] = op(lower[i], upper[i]) for `count` elements (out may be either).
void combine(DType t, ROp o, char *out, const char *lower, const char *upper, size_t count);

}  // namespace ar

// An allreduce handle's plan (made at create) and the state of its round.
struct Allreduce {
    explicit Allreduce(const ar::Shape &s) : shape(s) {}
    ar::Shape shape;
    uint32_t me = 0;
    std::vector<ar::Step> steps;
    std::vector<int32_t> peer_rank;  // per step
    std::vector<acp_ga_t> peer_ctl;  // per step: byte 0 of the peer's control block

    // Found at the first round: each send step's peer block mapped here
    // (plain stores), or nullptr (acp_copy from src_at, a registered copy).
    bool known = false;
    std::vector<char *> peer_mapped;
    std::vector<size_t> src_at;  // per step: offset in Col::mem.buffer (SIZE_MAX: none)
    std::vector<std::shared_ptr<void>> keep;

    // The round.
    size_t step = 0;
    bool combined = false;  // the partial is in Col::out (else Col::in holds it)
    bool failing = false;   // a failed stamp came, or a copy failed: what is owed goes as failed stamps
    uint32_t waits = 0;     // waits that found a copy missing (allreduce.cpp, blocked)
    // A redundant butterfly's round: the next stage, whether the mid
    // copies went, whether the result is held, and which exchanges' copies
    // went (each goes once a round).
    uint32_t stage = 0;
    bool mid_sent = false, final_held = false;
    std::vector<uint8_t> sent;

    size_t memory() const;
};

// Builds c.ar from the members' control blocks (create's table).
void allreduce_plan(Col &c, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table);
// Starts round c.round + 1 over c.in / c.out. False, reported under fn, if
// the first round cannot allocate its sources.
bool allreduce_start(Col &c, const char *fn);
// Moves the round forward without waiting; true if anything moved.
bool allreduce_advance(Col &c);
// What the round waits for ("rank 3 (stage 2)").
std::string allreduce_pending(const Col &c);
// The ranks whose copy of the last round has not come into this member's
// slots ("" when none): a redundant butterfly's members end a round
// before every copy to them came, and the block must stay until it has.
std::string allreduce_lagging(const Col &c);

}  // namespace acpx::middle
