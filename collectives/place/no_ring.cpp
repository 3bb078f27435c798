#include "no_ring.hpp"

#include <algorithm>

namespace acpx::collectives::place {

std::vector<uint32_t> no_ring(const model::Topology &t, std::vector<uint32_t> slots, uint32_t tasks,
                              bool first_fastest) {
    if (first_fastest) {
        std::stable_sort(slots.begin(), slots.end());
    } else {
        std::stable_sort(slots.begin(), slots.end(), [&](uint32_t a, uint32_t b) { return t.coords(a) < t.coords(b); });
    }
    slots.resize(std::min<size_t>(slots.size(), tasks));
    return slots;
}

}  // namespace acpx::collectives::place
