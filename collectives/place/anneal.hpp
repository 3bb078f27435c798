// The seed's search (section 4.5, 5.1): simulated annealing over
// placements of tasks on an allocation's node slots, the same for every
// objective. What the seed leaves open is decided here:
//   start   a random placement (a shuffle of the slots);
//   move    pick a task and a slot uniformly: the task moves there if the
//           slot is free, else it swaps with the task that holds it (a
//           slot on the task's own node changes nothing: not a trial's
//           move, not counted in the acceptance rate);
//   accept  always if the cost does not rise, else with exp(-delta / T);
//   levels  T0, T0 x factor, ... while T > Tend, `trials` moves each
//           (the seed's 10, 1e-8, 0.9, 2,500: 197 levels, 492,500 moves).
// The cost is in the objective's units (eq. 1 seconds, eq. 2 byte-hops):
// with T0 = 10, eq. (2) and (3) accept no rise from the start.
// `normalize` divides the cost by the starting placement's, so every
// objective starts at 1. The random numbers are the seed's own
// (mt19937_64, bounded by rejection): a seed gives the same map on any
// machine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace acpx::collectives::place {

struct AnnealParams {
    double t0 = 10, tend = 1e-8, factor = 0.9;
    uint32_t trials = 2500;
    uint64_t seed = 1;
    bool normalize = false;
    // Asked every kDeadlineEvery moves where given: true ends the search
    // there, with the best placement it passed (a create's coordinator,
    // whose members wait for its answer; the tools search to the end).
    std::function<bool()> out_of_time;
    static constexpr uint32_t kDeadlineEvery = 16;
};

// "" or why the parameters make no sense.
std::string check_params(const AnnealParams &a);

// The levels a search runs: T0 x factor^k for as long as it exceeds Tend.
uint32_t levels_of(const AnnealParams &a);

struct Level {
    double temperature;
    uint32_t tried;     // moves that change the placement (a task onto a
                        // slot of its own node changes nothing: not counted)
    uint32_t accepted;  // of those, taken
};

struct AnnealResult {
    std::vector<uint32_t> map;   // task -> node
    std::vector<uint32_t> slot;  // task -> its index in slots
    double cost = 0;             // the objective's, not normalised
    std::vector<Level> levels;
    bool cut = false;  // out_of_time ended it before its last level
};

// A cost the search updates move by move instead of computing it anew
// (place/moves.hpp): reset() prices a placement and makes it the current
// one; propose() prices `map`, which differs from the current placement
// only in tasks a and b (b == kNoTask: a alone); commit() makes the last
// proposal current. A proposal not committed is dropped by the next call.
class MoveCost {
  public:
    static constexpr uint32_t kNoTask = UINT32_MAX;
    virtual ~MoveCost() = default;
    virtual double reset(const std::vector<uint32_t> &map) = 0;
    virtual double propose(const std::vector<uint32_t> &map, uint32_t a, uint32_t b) = 0;
    virtual void commit() = 0;
};

// slots: the nodes tasks may go on, each node once per task it takes
// (an allocation's nodes, each per_node times); at least `tasks` of them.
// cost: the objective of a placement (task -> node). pinned[t], where
// given and below slots.size(): task t stays on that slot (a collective's
// root on its rank); no other task takes it.
AnnealResult anneal(uint32_t tasks, const std::vector<uint32_t> &slots,
                    const std::function<double(const std::vector<uint32_t> &)> &cost, const AnnealParams &a,
                    const std::vector<uint32_t> &pinned = {});
// The same search with a cost priced move by move: the same costs give the
// same placement.
AnnealResult anneal(uint32_t tasks, const std::vector<uint32_t> &slots, MoveCost &cost, const AnnealParams &a,
                    const std::vector<uint32_t> &pinned = {});

}  // namespace acpx::collectives::place
