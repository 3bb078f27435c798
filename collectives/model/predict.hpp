// The performance model of one round of a persistent collective (seed
// 003): the round is a sequence of steps; a step's time is that of its
// slowest message, a message of M bytes that shares a link (or its
// source's or destination's port) with C-1 others taking as long as one
// copy of C x M bytes; the round's time is the sum of its steps plus its
// local copies. Copy times come from the calibration (calibration.hpp),
// links from the topology (topology.hpp).
//
// A step of an allgather, for acpx, is a depth of the command lists:
// the entries whose dependency chain back to the origin has that length,
// across all blocks, run at once; entries of several blocks between the
// same pair of members in a step count as one message of their total
// size (as in the textbook algorithms). A bcast's entries are scheduled
// as the engine runs them: each in the first step after its
// dependency's in which it is free to go. A multi-block bcast's pair of
// members carries one block a step (pipeline:S over P members: S + P - 2
// steps of one block); a single-block tree's copy on a node occupies its
// sender's CPU, so a root sends to one child a step (binomial over 4:
// 0->1, then 0->2 and 1->3); copies between nodes leave at once and share
// the sender's injection port.
// The calibrated cost of a copy is that of a whole entry between two
// members (a 2-member round: the receiver's ready signal, the data, the
// arrival signal), so the signals are not steps of their own: `comm` for
// rounds through the inline slots, `comm_direct` for the others,
// `comm_stream` for a block that follows another between the same pair
// in the step before (the pipeline's segments): what such a block adds
// to its share of the whole round's entry (Calibration::copy_seconds).
// A round on one node with more members than cores is not a sum of
// steps: who holds a core when its data lands decides. Its time comes
// from simulating the engine's members on the cores, event by event
// (crowded_sim.hpp, crowded_round.hpp), with the costs CrowdCosts
// (crowd_costs.hpp) solved from the calibration's crowded rounds: a
// chain, a flat tree, a binomial tree and a pipeline:16 over crowd_ranks members; copies into one member
// from two cores at once slow each other by the measured converge_slow. Its steps are
// still listed, costed as if the node had enough cores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibration.hpp"
#include "collectives/algorithms.hpp"
#include "crowd_costs.hpp"
#include "crowded_sim.hpp"
#include "overlap.hpp"
#include "topology.hpp"

namespace acpx::collectives::model {

enum class Op : uint8_t { kBcast, kAllgather };

struct Case {
    Op op = Op::kBcast;
    uint8_t algo = 0;       // BcastAlgo or AllgatherAlgo
    unsigned radix = kDefaultRadix;  // knomial's k, pipeline's segments
    uint32_t members = 1;
    uint32_t root = 0;      // bcast: the root's index in the group
    uint64_t bytes = 0;     // bcast: the round's bytes; allgather: per block
    bool buffered = false;  // buffered handles copy in and out of their buffers
    uint32_t inline_bytes = 0;  // single-block rounds up to this size go through the control blocks
    // ACP_COL_RING_DEPTH holds the handle's small rounds to fewer slots
    // than its default: they are not priced back to back (overlap.hpp).
    bool ring_capped = false;
};

struct Message {
    uint32_t src, dst;
    uint64_t bytes;
    uint32_t collisions;
    bool streamed = false;  // a block right after another between the same pair (comm_stream)
};

struct Step {
    std::vector<Message> msgs;
    double seconds = 0;
};

struct Prediction {
    std::vector<Step> steps;
    double comm_s = 0, memcpy_s = 0;
    bool simulated = false;  // comm_s is the crowded node's simulation, not the steps' sum
    // What that simulation used (stream_start_s: 0 but for a pipeline);
    // for a pipeline priced between two (below), what its own would use
    // (predict only: predict_seconds leaves it at its defaults).
    CrowdCosts crowd;
    // A pipeline between calibrate's short and long ones (more than
    // kCrowdShortStreamSegments segments, fewer than kCrowdStreamSegments):
    // not its own simulation but theirs, at its block size. A step of
    // each, and the long one's weight (log2 of the segments, between).
    struct Between {
        double short_step_s = 0, long_step_s = 0, weight = 0;
        double step_s() const { return short_step_s * (1 - weight) + long_step_s * weight; }
    } between;
    // Instead: comm_s is the busiest core's work in rounds back to back
    // (overlap.hpp), with these costs of a copy.
    bool overlapped = false;
    OverlapCosts overlap;
    double total() const { return comm_s + memcpy_s; }
};

std::string algo_name(const Case &c);

// Predicts one round. t: nullptr for a fully connected node. cache: for
// crowded nodes, shared across predictions from cal (nullptr: none).
Prediction predict(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache = nullptr);

// predict(c, ...).total() without listing the steps: what create
// computes for each candidate.
double predict_seconds(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache = nullptr);

// A crowded node's round of c, event by event, as the simulation runs
// it at its switch time (crowded_sim.hpp, trace_round): what
// `acpx-model predict --trace` prints. Empty where predict does not
// simulate c (Prediction::simulated false). cache: as predict's (nullptr:
// none), so a trace after a prediction does not solve the costs again.
struct RoundTrace {
    std::vector<SimEvent> events;
    std::vector<SimEntry> entries;  // the simulated entries, which events name by index
    std::vector<uint32_t> blocks;   // each entry's block
    double switch_s = 0;
    bool out_of_phase = false;  // each core but the first started on its second member (where it has one)
};
RoundTrace trace_simulated_round(const Case &c, const Calibration &cal, const Topology *t,
                                 CrowdCache *cache = nullptr);

// A time c's round cannot beat where it is costed by steps (not on a
// crowded node): a step for each entry on the longest dependency chain
// of its first (largest) block's list, each at least a copy of that
// block; for pipeline:S over P members also S + P - 2 steps of at least
// its smallest block. "A copy of M" is the cheapest the curves give for
// M bytes or more. best() skips candidates that lose on it.
double round_lower_bound(const Case &c, const Calibration &cal);

// Every algorithm that applies to c.op and c.members, as Cases like c
// (pipeline with 4, 8, 16 and 32 segments).
std::vector<Case> candidates(const Case &c);

// Per member, how much slower its copies run because the bytes its core
// touches in c's round outgrow the caches (comm_footprint; 1 without it
// or below the comm samples' own span). Each core counts a block once
// for each member whose copy of it the core reads (a sender on it) or
// writes on its node (a receiver of one of those senders).
std::vector<double> member_footprints(const Case &c, const Calibration &cal, const Topology *t);

// Predictions closer than this are a tie, which the earlier candidate
// (binomial, the per-block tree) wins: the calibration itself is not that
// precise (two runs on the 2-core VM differ by 5-20%), and at 4 ranks
// there the trees were predicted within 1% of each other while measured
// chain was 1.6x binary.
inline constexpr double kTieMargin = 0.02;

// The index of the lowest of predicted times, as best() picks: within
// kTieMargin it is a tie, which the earlier one wins.
size_t pick_fastest(const std::vector<double> &seconds);

// The candidate with the lowest predicted time (within kTieMargin: a tie, which
// the first listed wins);
// *seconds, if given, gets that time. Without candidates (an allgather
// above kMaxTurnedAllgather members): c with unmodelled_allgather's
// algorithm, and 0 seconds.
Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds = nullptr,
          CrowdCache *cache = nullptr);

// Largest group for which every allgather is a candidate at create: the
// per-block trees send to a different distance at every entry (P^2
// messages a round), and recursive doubling over other than a power of
// two has its steps from every block's list (P^2 entries). Above it, the
// candidates are the allgathers whose steps come from one or two lists
// (ring, Bruck, neighbor exchange: turned by rotation; recursive
// doubling over a power of two: by xor; P log P messages at most), up to
// kMaxTurnedAllgather, where the four of them take 8-9 s and 168 MB on the
// 2-core VM (on a 32x64x64 torus; its lowest rank models, the others
// wait); above that, create takes unmodelled_allgather's pick.
inline constexpr uint32_t kMaxModelledAllgather = 1024;
inline constexpr uint32_t kMaxTurnedAllgather = 131072;

// The allgather of blocks of `bytes` that create takes, unmodelled, over
// more than kMaxTurnedAllgather members: what the model picks at 131,072
// members on a 32x64x64 torus (VM calibration): Bruck below 128 bytes a
// block (17 steps; 18 ms at 8 B, ring 72), above it neighbor exchange
// (1K: 73 ms, ring 130, Bruck 313), ring for an odd group. Their plans
// take O(P) to build; the per-block trees' take O(P^2) (272 s at
// 131,072 members in delegated mode).
AllgatherAlgo unmodelled_allgather(uint32_t members, uint64_t bytes);

// Whether candidates() offers allgather a over `members` (above).
bool allgather_modelled(AllgatherAlgo a, uint32_t members);

// Largest crowded node whose rounds are simulated (crowded_sim.hpp: the
// simulation keeps every entry of eight rounds); above it, its steps are
// costed as on a node with enough cores.
inline constexpr uint32_t kMaxSimulatedMembers = 256;

}  // namespace acpx::collectives::model
