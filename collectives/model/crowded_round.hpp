// A round on one node with more members than cores: simulated event by
// event (crowded_sim.hpp) with the CrowdCosts solved for its sizes
// (crowd_costs.hpp). Internal to the model: predict.cpp prices such
// rounds with these, crowd_costs.cpp solves its costs on sample rounds.
// The definitions say how each was measured and why it is so.
#pragma once

#include <cstdint>
#include <vector>

#include "crowd_costs.hpp"
#include "crowded_sim.hpp"
#include "overlap.hpp"
#include "predict.hpp"

namespace acpx::collectives::model {

// Whether the simulated cores run out of phase (SimInput::out_of_phase):
// where calibrate measured the ring allgather through the inline slots.
bool out_of_phase(const Calibration &cal);

// Whether c's round runs on one node with more members than cores, and
// cal has the crowded figures to simulate it with.
bool simulated(const Case &c, const Calibration &cal, const Topology *t);

// Whether c's copies at once on two cores are priced by
// CrowdCosts::concurrent: a single-block bcast's.
bool overlap_priced(const Case &c);

// Every entry of c's round, costed by k, as the simulation takes them.
// blocks: if given, each entry's block (its list's index).
SimInput sim_input(const Case &c, const Calibration &cal, bool is_inline, const CrowdCosts &k,
                   std::vector<uint32_t> *blocks = nullptr);

// The CrowdCosts c's simulated round uses: its entries' size's, with the
// forward cost of its kind of round.
CrowdCosts round_crowd_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache);

// c's round simulated (the costs it used into *used), remembered in
// cache, plus a pipeline's start cost.
double simulated_round(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache, CrowdCosts *used);

// Whether c is a crowded pipeline priced between calibrate's short and
// long ones (between_pipelines), not simulated itself.
bool between_calibrated_pipelines(const Case &c, const Calibration &cal);
Prediction::Between between_pipelines(const Case &c, const Calibration &cal, CrowdCache *cache);

// Whether c's round is priced back to back (overlap.hpp) instead of
// simulated, with the copy costs of a round of `bytes`, and its seconds so.
bool overlapped(const Case &c, const Calibration &cal);
OverlapCosts overlap_costs_at(const Calibration &cal, double bytes);
double overlap_seconds(const Case &c, const OverlapCosts &k, unsigned cores);

// The rest are defined with the solves (crowd_costs.cpp), which use them too.

// Whether cal measured a crowded node (comm_crowded over more ranks than
// its cores).
bool has_crowd(const Calibration &cal);

// Whether the calibrated ring prices an inline allgather of blocks of
// `bytes` on the crowded node, and the cross-core cost it gives them
// (CrowdCosts::gather_cross_s), solved once per size (cache).
bool ring_prices_inline(const Calibration &cal, double bytes);
double cross_at(const Calibration &cal, double bytes, const CrowdCosts &k, CrowdCache *cache);

}  // namespace acpx::collectives::model
