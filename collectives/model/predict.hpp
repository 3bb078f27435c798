// The performance model of one round of a persistent collective (seed
// 003): the round is a sequence of steps; a step's time is that of its
// slowest message, a message of M bytes that shares a link (or its
// source's or destination's port) with C-1 others taking as long as one
// copy of C x M bytes (between nodes: of the bytes the C messages carry
// together, which is C x M where they are alike: shared_bytes in
// topology.hpp); the round's time is the sum of its steps plus its
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
// A node running more members than it has cores (cores > 0) shares
// them by time slicing: a step's copies beyond its cores wait their turn
// (collisions, as above), and a copy to or from a member of such a node
// waits besides for the switch that brings its member in (the
// calibration's switch_s, a step's once). acpx tunes for a core per
// rank: a crowded node proves correctness, and its prediction is an
// estimate. On the 2-core VM, 3 ranks, a chain's step took comm + 1.2-
// 1.3 us up to 1 KiB and 1.03-1.2x comm from 128 KiB to 2 MiB
// (doc/measurements/2026-12-03-time-slicing.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "calibration.hpp"
#include "collectives/algorithms.hpp"
#include "topology.hpp"

namespace acpx::collectives::model {

enum class Op : uint8_t { kBcast, kAllgather };

struct Case {
    Op op = Op::kBcast;
    uint8_t algo = 0;                // BcastAlgo or AllgatherAlgo
    unsigned radix = kDefaultRadix;  // knomial's k, pipeline's segments
    uint32_t members = 1;
    uint32_t root = 0;          // bcast: the root's index in the group
    uint64_t bytes = 0;         // bcast: the round's bytes; allgather: per block
    bool buffered = false;      // buffered: an allgather's own block copied; across nodes, in and out of the buffers
    uint32_t inline_bytes = 0;  // single-block rounds up to this size go through the control blocks
    // The node of each member (by index), where known: candidates() then
    // offers the hierarchical lists too (collectives::hier_bcast_list).
    std::shared_ptr<const std::vector<uint32_t>> nodes;
    bool hier = false;  // this case's lists are hierarchical over `nodes`
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
    // What a step of a time-sliced node (above) pays for its switch; 0
    // where every member has a core. The steps' seconds include it.
    double switch_s = 0;
    double total() const { return comm_s + memcpy_s; }
};

std::string algo_name(const Case &c);

// Predicts one round. t: nullptr for a fully connected node.
Prediction predict(const Case &c, const Calibration &cal, const Topology *t);

// predict(c, ...).total() without listing the steps: what create
// computes for each candidate.
double predict_seconds(const Case &c, const Calibration &cal, const Topology *t);

// Whether c's round runs on a node of more members than cores (time
// slicing, above).
bool time_sliced(const Case &c, const Calibration &cal, const Topology *t);

// A time c's round cannot beat: a step for each entry on the longest dependency chain
// of its first (largest) block's list, each at least a copy of that
// block; for pipeline:S over P members also S + P - 2 steps of at least
// its smallest block. "A copy of M" is the cheapest the curves give for
// M bytes or more. best() skips candidates that lose on it.
double round_lower_bound(const Case &c, const Calibration &cal);

// Every algorithm that applies to c.op and c.members, as Cases like c
// (pipeline with 4, 8, 16 and 32 segments); with c.nodes over more than
// one node, some holding several members, also each hierarchical form
// (bcast trees and chain; allgather tree), after the flat ones.
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
Case best(const Case &c, const Calibration &cal, const Topology *t, double *seconds = nullptr);

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

}  // namespace acpx::collectives::model
