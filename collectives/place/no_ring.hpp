// The seed's no-ring placement (section 5.2): no search, tasks laid on
// the allocation's nodes in coordinate order, X varying fastest (node
// index order), or as a variant the last dimension (C) fastest.
#pragma once

#include <cstdint>
#include <vector>

#include "collectives/model/topology.hpp"

namespace acpx::collectives::place {

// Task i on the i-th of `slots` (nodes, each as often as it takes tasks)
// once they are sorted: by node index (first_fastest), or by coordinates
// with the first dimension most significant (the last varies fastest).
std::vector<uint32_t> no_ring(const model::Topology &t, std::vector<uint32_t> slots, uint32_t tasks,
                              bool first_fastest = true);

}  // namespace acpx::collectives::place
