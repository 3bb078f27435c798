// A flow-level network simulator, event by event: what a placement's
// collisions cost when messages really overlap (seed 000's Table 1,
// reproduced without the FX10). Independent of the step model
// (predict.hpp), which prices a step by its worst collision count.
//
// Each message is a flow along the topology's dimension-order route
// (topology.hpp). The flows in progress share every directed link of
// capacity `bandwidth` max-min fairly (progressive filling), and none
// runs faster than `bandwidth` (tasks on one node: an empty route, a
// copy at that speed). Rates change only when a flow starts or ends.
//
// A pattern is a list of steps (Concurrent Communication Sets), run
// `iterations` times over. Without a barrier a message of a step starts
// `alpha` after both its tasks finished everything they sent or received
// in their previous steps (NPB CG's irecv / send / wait: a pair's next
// exchange waits for the pair, not for the other tasks). With a barrier
// every step starts `beta` + `alpha` after the last message of the step
// before it ended.
//
// Seed 000's figures (section 5): 5 GB/s links; alpha and beta derived
// from its Table 1 (a collision-free CCS of 1 MiB took 256-258 us against
// 210 us of transfer: alpha ~ 47 us; barriers added 14-17 ms over 4,000
// CCS: beta ~ 3.5-4.3 us).
#pragma once

#include <cstdint>
#include <vector>

#include "topology.hpp"

namespace acpx::collectives::model::flowsim {

struct Message {
    uint32_t src = 0, dst = 0;  // tasks
    uint64_t bytes = 0;
};
using Step = std::vector<Message>;

struct Params {
    double bandwidth = 5e9;  // bytes/s a link
    double alpha = 47e-6;    // s from a message's dependencies to its start
    double beta = 4e-6;      // s a barrier adds before each step after the first
    bool barrier = false;
    uint32_t iterations = 1;
    // Each node's injection and ejection port is a link of `bandwidth`
    // too: what a node sends (receives) at once shares one port, as on a
    // node with one network interface (the model's rule, predict.hpp).
    // Without: a node sends on all its links at once.
    bool ports = false;
};

struct Result {
    double seconds = 0;  // the last message's end
    uint64_t flows = 0;  // messages simulated
};

// map[task]: its node in t (t.map is ignored). Messages of a task to
// itself take no time and hold nothing up.
Result simulate(const Topology &t, const std::vector<uint32_t> &map, const std::vector<Step> &steps, const Params &p);

}  // namespace acpx::collectives::model::flowsim
