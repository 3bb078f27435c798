#include "idle.hpp"

#include <sched.h>

#include <bit>
#include <cstring>

namespace acpx::basic::idle {

bool parse(const char *text, Policy *out) {
    if (!text) return false;
    if (!std::strcmp(text, "auto")) return *out = Policy::kAuto, true;
    if (!std::strcmp(text, "spin")) return *out = Policy::kSpin, true;
    if (!std::strcmp(text, "yield")) return *out = Policy::kYield, true;
    return false;
}

const char *name(Policy p) {
    switch (p) {
        case Policy::kSpin: return "spin";
        case Policy::kYield: return "yield";
        case Policy::kAuto: break;
    }
    return "auto";
}

CpuMask own_cpus() {
    CpuMask mask{};
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return mask;  // unknown: counts as none
    for (unsigned cpu = 0; cpu < 64 * mask.size() && cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) mask[cpu / 64] |= uint64_t{1} << (cpu % 64);
    return mask;
}

unsigned cpus_in_union(const std::vector<CpuMask> &masks) {
    CpuMask all{};
    for (const CpuMask &m : masks)
        for (size_t i = 0; i < all.size(); ++i) all[i] |= m[i];
    unsigned n = 0;
    for (uint64_t word : all) n += static_cast<unsigned>(std::popcount(word));
    return n;
}

bool agent_yields(unsigned progressed, bool app_waiting, bool yield_at_once) {
    return app_waiting || (progressed == 0 && yield_at_once);
}

bool yield_at_once(Policy p, unsigned node_ranks, unsigned node_cpus) {
    switch (p) {
        case Policy::kYield: return true;
        case Policy::kSpin: return false;
        case Policy::kAuto: break;
    }
    // No CPU known (an affinity call that failed everywhere): keep polling,
    // as before this policy existed.
    return node_cpus > 0 && node_ranks > node_cpus;
}

}  // namespace acpx::basic::idle
