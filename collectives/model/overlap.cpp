#include "overlap.hpp"

#include <algorithm>
#include <limits>

namespace acpx::collectives::model {

std::vector<CoreLoad> core_loads(const std::vector<std::pair<uint32_t, uint32_t>> &copies, unsigned cores) {
    if (cores == 0) cores = 1;
    std::vector<CoreLoad> loads(cores);
    for (const auto &[src, dst] : copies) {
        const unsigned a = src % cores, b = dst % cores;
        if (a == b) {
            ++loads[a].same;
        } else {
            ++loads[a].cross;
            ++loads[b].cross;
        }
    }
    return loads;
}

double overlap_round(const std::vector<CoreLoad> &loads, const OverlapCosts &k) {
    double busiest = 0;
    for (const CoreLoad &l : loads) busiest = std::max(busiest, l.cross * k.cross_s + l.same * k.same_s);
    return busiest;
}

OverlapCosts overlap_costs(uint32_t members, unsigned cores, double chain_s, double flat_s) {
    std::vector<std::pair<uint32_t, uint32_t>> chain, flat;
    for (uint32_t m = 1; m < members; ++m) {
        chain.emplace_back(m - 1, m);
        flat.emplace_back(0, m);
    }
    OverlapCosts k;
    chain_s = std::max(chain_s, 0.0);
    flat_s = std::max(flat_s, 0.0);
    if (cores < 2) {  // every copy stays on the one core: the chain says what one costs
        uint32_t most = 0;
        for (const CoreLoad &l : core_loads(chain, 1)) most = std::max(most, l.same);
        k.same_s = k.cross_s = most ? chain_s / most : 0;
        return k;
    }
    // Neighbours in the chain run on two cores: it has cross copies only.
    uint32_t most = 0;
    for (const CoreLoad &l : core_loads(chain, cores)) most = std::max(most, l.cross);
    k.cross_s = most ? chain_s / most : 0;
    // The flat tree's busiest core takes flat_s: the smallest same_s at
    // which one of the cores with copies on it gets there (0 if a core
    // without any is there already).
    double same = std::numeric_limits<double>::infinity();
    for (const CoreLoad &l : core_loads(flat, cores))
        if (l.same > 0) same = std::min(same, (flat_s - l.cross * k.cross_s) / l.same);
    k.same_s = same == std::numeric_limits<double>::infinity() ? k.cross_s : std::max(same, 0.0);
    return k;
}

}  // namespace acpx::collectives::model
