// Small bcast rounds back to back on a crowded node, priced by the CPU
// their copies take on each core.
//
// A bcast tree's inline round is a few stores into mapped slots, and its
// root runs up to ring depth - 1 rounds ahead of its slowest member
// (middle/plan.hpp), so back-to-back rounds overlap: a member works on
// round k while another still copies out of round k-3. What bounds them
// then is not a round's latency but the busiest core's work per round.
// A copy between members on two cores costs each of the two `cross_s`
// (the writer's stores and the reader's loads both miss: the lines move
// between the cores); a copy between members on one core costs it
// `same_s` once. Member m runs on core m mod cores (acprun --bind-to core,
// as in crowded_sim.hpp).
//
// On the 2-core VM (4 ranks, cores {0, 2} and {1, 3}; 1-16 KiB) this
// reads the measured order, binomial < flat tree < chain, where the
// simulated depth-2 round put binomial above the flat tree: binomial
// crosses cores once, the flat tree twice, the chain three times.
// Solved on the chain and the flat tree (comm_crowded_overlap,
// comm_fanout_overlap), it put the binomial tree within 7% of its
// measured time.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace acpx::collectives::model {

// What one round's copies cost a core: how many cross cores (paid on both
// ends' cores) and how many stay on it.
struct CoreLoad {
    uint32_t cross = 0, same = 0;
};

// Per core, the copies of one round: (sender, receiver) member pairs.
std::vector<CoreLoad> core_loads(const std::vector<std::pair<uint32_t, uint32_t>> &copies, unsigned cores);

// The two prices of a copy of some size (seconds).
struct OverlapCosts {
    double cross_s = 0, same_s = 0;
};

// Seconds per round: the busiest core's work.
double overlap_round(const std::vector<CoreLoad> &loads, const OverlapCosts &k);

// The prices that make a chain over `members` (0 -> 1 -> ...) take
// chain_s a round and a flat tree (0 -> every other) flat_s on `cores`
// cores, each at least 0: what calibrate measured of that size.
OverlapCosts overlap_costs(uint32_t members, unsigned cores, double chain_s, double flat_s);

}  // namespace acpx::collectives::model
