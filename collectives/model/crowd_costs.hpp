// The costs that make a round on a crowded node (more members than
// cores) slower than its copies, solved from the calibration's crowded
// rounds, and the cache that keeps them per calibration.
#pragma once

#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "calibration.hpp"

namespace acpx::collectives::model {

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
//              stores) and without comm_fanout. Under 1 where the flat
//              tree ran faster than the 2-member copies make it: those
//              are measured in a launch of their own, which may catch the
//              machine in a slow stretch. On the 2-core VM one main job's
//              2-rank launch read 1 MiB at 478 us (its other launches
//              129-136) while its 4-rank curves agreed with theirs; held
//              at 1 or more, its 4-rank bcasts of 256 KiB-4 MiB were
//              predicted at 2.5-3.6x their time;
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
//              and without the curve;
//   concurrent how much slower copies from two cores into two members run
//              while they overlap (SimEntry::concurrent): what makes a
//              binomial tree over crowd_ranks members take its calibrated
//              round (comm_crowd_tree; 0.5-4); 1 for inline rounds,
//              without the curve, and over fewer than 4 members (there
//              the binomial is the flat tree). Only a single-block
//              bcast's copies take it (overlap_priced). Of the calibrated
//              bcasts only the binomial copies from two cores at once:
//              the flat tree's root copies alone, the chain's members in
//              turn. On the 2-core VM, 4 ranks, the binomial measured
//              0.80 of the flat tree at 128-256 KiB and 0.52 at 2 MiB
//              (medians of 11 launches), and was predicted at 0.67-0.69
//              at both from the flat tree's copies: two copies at once
//              ran slower than two in turn, until the flat tree's root,
//              whose copies touch 8 MiB at 2 MiB, fell off a cliff that
//              the binomial's copies do not reach. Solved against the
//              binomial, its factor is above 1 at the small sizes and
//              under 1 at 2 MiB.
// Solved on the crowd's own cores (Calibration::crowd_core_count), which
// on a large node may be a few of its cores; the job's round then runs
// on the node's. Without comm_crowded, or with crowd_ranks <= those
// cores: the defaults below
// (no crowd: 0 switch, copies as between 2, nothing streamed or slowed).
struct CrowdCosts {
    double switch_s = 0, slow = 1, forward_s = 0, stream_slow = 0, round_stream_slow = 0, gather_slow = 1,
           converge = 1, round_slow = 0, busy = 1, stream_start_s = 0, gather_forward_s = -1, gather_cross_s = 0,
           concurrent = 1;
};

// The segments of the crowded pipeline that calibrate measures
// (comm_crowd_stream): 16, so that the blocks in a stream outweigh the
// first ones. Fitted on pipeline:4, 4-rank pipeline:16 and :32 of small
// blocks came out at 0.4-0.55x and 2-4 MiB ones at 1.3-1.46x (19 of 28
// pipeline points at 64 KiB and up in band); on pipeline:16, 28 of 28.
inline constexpr unsigned kCrowdStreamSegments = 16;
// And the short one beside it (comm_crowd_stream4), for stream_start_s.
inline constexpr unsigned kCrowdShortStreamSegments = 4;

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
    // forward_s, converge, concurrent): a multi-block bcast's blocks in a
    // stream (stream_slow, round_stream_slow, stream_start_s), an allgather's
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
    // The stream costs of blocks of `bytes` between two powers of two,
    // interpolated between theirs (false: a power of two, or an end
    // without them; solve it). A scatter_ring over 4 members has blocks
    // of a third of its size, and each such size solved its own chain of
    // pipelines down to 64-byte blocks: 1.1 of the 1.3 s a 4-rank job's
    // first bcast creates of 1 KiB-4 MiB took on the 2-core VM.
    bool stream_between_powers(const Calibration &job, double bytes, bool is_inline, CrowdCosts *k);
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

}  // namespace acpx::collectives::model
