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
// (crowded_sim.hpp), with the costs CrowdCosts (below) solved from the
// calibration's crowded rounds: a chain, a flat tree and a pipeline:16
// over crowd_ranks members; copies into one member from two cores at
// once slow each other by the measured converge_slow. Its steps are
// still listed, costed as if the node had enough cores.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "calibration.hpp"
#include "collectives/algorithms.hpp"
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

// What makes a round on a crowded node slower than its copies, from the
// calibration's crowded figures over crowd_ranks members (all seconds):
//   switch_s   from one member to the next on a core (sched_yield and a
//              context switch), whatever the size: what makes a 1 KiB
//              chain step take comm_crowded. Inline rounds solve theirs
//              with copies that hold no core (a 1 KiB store is short
//              next to the hand-off), where comm_fanout gives their busy
//              share (below);
//   busy       the share of an inline round's copy that holds its
//              sender's core (SimEntry::busy_s): what makes a flat tree
//              of that size take comm_fanout a copy with that switch; 1
//              for process_vm_writev rounds and without comm_fanout. A
//              store into a mapped slot is a memcpy; the rest of the
//              2-member entry is the stamp on its way and the receiver's
//              turn. With every copy holding the core, on the 2-core VM
//              (waits that yield at once, 3 ranks) a 1 KiB flat tree was
//              predicted at 1.79 us against 1.08 calibrated, and the
//              model picked the chain at 4-16 KiB where the flat tree
//              measured 15-20% faster;
//   slow       how much longer a copy through process_vm_writev (rounds
//              above the inline size) takes than between 2 members: what
//              makes a flat tree (the root copies to every other member)
//              take comm_fanout a copy (fanout(false): a block, which
//              never goes through the slots); 1 for inline rounds (plain
//              stores) and without comm_fanout;
//   forward_s  what a copy costs beyond that when its receiver forwards
//              the data from another core (member m runs on core m mod
//              cores): the rest of the chain step comm_crowded of that
//              size (crowded(is_inline): blocks up to the inline size
//              from the chain without slots); 0 where the chain is
//              within 10% without it, and for inline rounds without
//              comm_fanout. The writer pays, not the forwarder: it
//              writes lines the other core then reads.
//              On the 2-core VM, in a chain of three processes on cores
//              0, 1, 0 copying 1 MiB with process_vm_writev, the first
//              copy took 111 us when its receiver forwarded the buffer
//              and 82 when not; the forward itself 96; all three on one
//              core, 83-90.
//              Charged to the forward instead (unless its core went
//              straight on from another copy), 3-member recursive
//              doubling, whose member 0 forwards what member 1 wrote, was
//              predicted 1.2-1.9x its time, and 4-member Bruck, the same
//              messages as recursive doubling, 0.7-0.8x while recursive
//              doubling was in band. (The chain step also comes and goes
//              with the VM: in some launches 1.05 copies, in others 2.5.)
//              An inline copy's forward cost delays its data but does
//              not hold its core (busy). Held there, a 4-rank binomial
//              of 16 KiB (0->1, then 0->2 and 1->3: 1 forwards across
//              cores) came out at 4.7 us, above the flat tree's 4.5,
//              where it measures 3.0 against 4.5;
//   stream_slow how much longer a block right behind another between the
//              same pair (comm_stream) takes, forward or not: what makes
//              a pipeline:16 round (kCrowdStreamSegments) take
//              comm_crowd_stream a block; 0 without it (such blocks cost
//              as other copies). It slows what a block adds in a stream
//              (stream_overhead);
//   stream_start_s  what a pipeline's round costs on the crowded node on
//              top of its simulated blocks: solved with stream_slow so
//              that pipeline:4 (comm_crowd_stream4) and pipeline:16 of
//              blocks of that size both come out as measured; 0 without
//              that curve, or where the two need none. Fitted on
//              pipeline:16 alone, a round's start cost went into every
//              block: on the 2-core VM pipelines of 1-32 KiB blocks
//              measured 3.5-14 us a round plus 1.4-4.6 a block, the model
//              read 1-5 plus 1.5-5.4, and 3-rank pipeline:4 and :8 of 16
//              KiB blocks came out at 0.74-0.80, pipeline:32 at 1.1-1.2;
//   round_stream_slow  what slows a streamed block's share of its round's
//              bytes (Calibration::copy_seconds): stream_slow of the
//              pipeline:16 round of as many bytes, whose arrays crowd the
//              caches alike. With stream_slow of the block's own size,
//              4-rank pipeline:4 and :8 of 512 KiB-1 MiB read 0.62-0.73
//              (a 2 MiB-array crowd's slowdown on arrays of 1 MiB) and
//              pipeline:32 of 2 MiB 1.54; with this one alone, 3-rank
//              pipeline:4 of 64-256 KiB read 1.28-1.36 (a small block's
//              per-block slowdown on a block mostly bytes);
//   gather_slow how much slower the copies of a single-block allgather
//              round run than those of the bcast rounds above: what
//              makes a Bruck allgather over crowd_ranks members take
//              (crowd_ranks - 1) x comm_crowd_gather a round; 1 for inline
//              rounds and without the curve. An allgather's arrays hold
//              every block, a bcast's one: on the 2-core VM, 3- and 4-rank
//              allgathers of 256 KiB-512 KiB blocks were predicted at
//              0.56-0.81x from the bcasts' costs (their copies fall out of
//              the cache the same size in a bcast stays in), 2 MiB ones
//              at 1.0-1.1x. A factor, not a model of those caches: Bruck
//              measured, the other allgathers predicted by it;
//   gather_forward_s  forward_s for an allgather's copies: what makes a
//              ring allgather over crowd_ranks members take (crowd_ranks -
//              1) x comm_crowd_ring a round, solved with gather_slow (the
//              two rounds together); < 0 without the curve (forward_s).
//              The chain's forward cost does not carry over: on the 2-core
//              VM (47 launches of 3 and 4 ranks) a ring allgather measured
//              a median 1.21-1.26x Bruck's round at 64-256 KiB blocks
//              (over 3 members Bruck forwards nothing, the ring two copies
//              of six across cores), 1.09 at 512 KiB-1 MiB and 1.01-1.02
//              at 2-4 MiB, where the chain's forward_s made it 1.1-1.3x
//              at every size, 1.5-2.3x in launches whose chain read a
//              costly forward (an allgather's arrays outgrow the writer's
//              cache, a bcast's one buffer does not); with no forward
//              cost, 3-rank rings of 64-256 KiB read 0.76-0.86;
//   gather_cross_s  how much longer an inline allgather copy between
//              members on two cores takes than one within a core, all of
//              it on its sender's core: what makes a ring allgather of
//              that block size over crowd_ranks members take (crowd_ranks
//              - 1) x comm_crowd_ring a round (added_cost); 0 where that
//              curve does not reach down to the size. Every copy of the
//              ring crosses cores (member m runs on core m mod cores),
//              half of Bruck's and recursive doubling's. On the 2-core VM,
//              4 ranks, 1 KiB blocks: the ring and neighbor exchange
//              (every copy across) measured 6.8-7.2 us a round, Bruck and
//              the tree (half across) 5.1; without it the simulation read
//              neighbor exchange and recursive doubling cheapest (3.0).
//              Our reading: a store into a slot the other core last
//              touched must fetch its lines first. Set in an inline
//              allgather's prediction (Prediction::crowd), solved once
//              per block size; crowd_costs leaves it 0 (a bcast of that
//              size has no use for the ring's solve);
//   round_slow  slow of copies of a multi-block round's size: a block
//              not in a stream costs the more of an entry of its own size
//              times slow and its share of the round's entry times this
//              (the round's arrays crowd the caches, not the block's).
//              With slow of the block's size on that share, 4-rank
//              scatter_ring of 2 MiB read 1.3-1.5x (the crowd's
//              slowdown of in-cache copies on top of an out-of-cache
//              price); without that share, 3-rank scatter_ring of
//              0.5-2 MiB read 0.73-0.77. Compared before the slowdowns
//              (the share won only where it was larger unslowed), 4-rank
//              pipeline:4 of 512 KiB read 0.75-0.76: its 128 KiB blocks
//              took the crowd's slowdown of 128 KiB copies (1.1), not of
//              the 512 KiB arrays they are part of (1.8-1.9). 0: slow;
//   converge   how much slower copies into one member from two cores run
//              while they overlap (SimEntry::converge): converge_slow at
//              that size as measured, never below 1; 1 for inline rounds
//              and without the curve.
// Solved on the crowd's own cores (Calibration::crowd_core_count), which
// on a large node may be a few of its cores; the job's round then runs
// on the node's. Without comm_crowded, or with crowd_ranks <= those
// cores: the defaults below
// (no crowd: 0 switch, copies as between 2, nothing streamed or slowed).
struct CrowdCosts {
    double switch_s = 0, slow = 1, forward_s = 0, stream_slow = 0, round_stream_slow = 0, gather_slow = 1,
           converge = 1, round_slow = 0, busy = 1, stream_start_s = 0, gather_forward_s = -1, gather_cross_s = 0;
};

// The segments of the crowded pipeline that calibrate measures
// (comm_crowd_stream): 16, so that the blocks in a stream outweigh the
// first ones. Fitted on pipeline:4, 4-rank pipeline:16 and :32 of small
// blocks came out at 0.4-0.55x and 2-4 MiB ones at 1.3-1.46x (19 of 28
// pipeline points at 64 KiB and up in band); on pipeline:16, 28 of 28.
inline constexpr unsigned kCrowdStreamSegments = 16;
// And the short one beside it (comm_crowd_stream4), for stream_start_s.
inline constexpr unsigned kCrowdShortStreamSegments = 4;

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

// The CrowdCosts of entries of `bytes` (see above).
CrowdCosts crowd_costs(const Calibration &cal, double bytes, bool is_inline);

// crowd_costs and simulated rounds, remembered: crowd_costs takes tens of
// simulated sample rounds a solve and a round up to 4 x 6 of the case's, while a
// job's creates all use one calibration and mostly the same few shapes
// (10,000 creates on 3 ranks took 11 minutes under the sanitizers
// without it). Clear it when the calibration changes.
class CrowdCache {
  public:
    // Which CrowdCosts to solve beyond the copies' (switch_s, slow, busy,
    // forward_s, converge): a multi-block bcast's blocks in a stream
    // (stream_slow, round_stream_slow, stream_start_s), an allgather's
    // (gather_slow, gather_forward_s). Each part is solved once per size,
    // when a round first needs it (a 4-rank bcast create solved every
    // part of every size it touched: the allgather's solves for nothing,
    // and a pipeline's at the round's size, whose blocks are smaller);
    // get leaves the parts not asked for at their defaults.
    enum Parts : unsigned { kCopies = 0, kStream = 1, kGather = 2, kAll = 3 };
    CrowdCosts get(const Calibration &cal, double bytes, bool is_inline, unsigned parts = kAll);
    // The node the crowded curves were measured on, which the costs are
    // solved on: cal with crowd_cores as its cores (cal itself where the
    // two are one).
    const Calibration &crowd_node(const Calibration &cal);
    // (op, algo, radix, members, root, bytes, inline) -> seconds
    using RoundKey = std::tuple<uint8_t, uint8_t, unsigned, uint32_t, uint32_t, uint64_t, bool>;
    const double *round(const RoundKey &key) const;  // nullptr: not simulated yet
    void remember(const RoundKey &key, double seconds);
    // A cost of one kind of round for entries of `bytes`, solved once
    // (nullptr: not yet): a scatter_ring's forward_s, an inline
    // allgather's gather_cross_s.
    enum class Solved : uint8_t { kScatterForward, kGatherCross };
    const double *solved(Solved what, double bytes) const;
    void remember(Solved what, double bytes, double seconds);
    void clear();

  private:
    double switch_s_ = -1, inline_switch_s_ = -1;  // the same for every size
    struct Entry {
        CrowdCosts k;
        unsigned parts;  // solved so far
    };
    std::map<std::pair<double, bool>, Entry> costs_;
    std::map<RoundKey, double> rounds_;
    std::map<std::pair<Solved, double>, double> solved_;
    std::optional<Calibration> crowd_;  // crowd_node's copy, where it is not cal
};

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
