// What /proc/self/smaps says of the mapping holding an address: how many
// KiB of it sit on transparent huge pages.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

// AnonHugePages of the mapping that holds `addr` (KiB), or -1 if none does.
inline long huge_kib_at(const void *addr) {
    std::ifstream in("/proc/self/smaps");
    const auto a = reinterpret_cast<uintptr_t>(addr);
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::strtol(line.c_str() + 14, nullptr, 10);
    }
    return -1;
}

// Whether this kernel collapses anonymous memory onto huge pages on
// request (MADV_COLLAPSE, Linux 6.1): tried on a 2 MiB block of its own.
inline bool kernel_collapses() {
    constexpr size_t kHuge = size_t{2} << 20;
    void *m = mmap(nullptr, 2 * kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    auto *block = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(m) + kHuge - 1) & ~(kHuge - 1));
    for (size_t i = 0; i < kHuge; i += 4096) block[i] = 1;
    const bool ok = madvise(block, kHuge, 25 /* MADV_COLLAPSE */) == 0;
    munmap(m, 2 * kHuge);
    return ok;
}
