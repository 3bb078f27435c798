// What /proc/self/smaps says of the mapping holding an address: how many
// KiB of it sit on transparent huge pages. And the 2 MiB block arithmetic
// the huge-page tests share.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

// A transparent huge page on x86-64 and aarch64 with 4 KiB base pages.
constexpr size_t kHugeBlock = size_t{2} << 20;

// The first 2 MiB boundary at or after `p`.
template <typename T>
inline T *align_up_2m(void *p) {
    return reinterpret_cast<T *>((reinterpret_cast<uintptr_t>(p) + kHugeBlock - 1) & ~(kHugeBlock - 1));
}

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
    void *m = mmap(nullptr, 2 * kHugeBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    auto *block = align_up_2m<char>(m);
    for (size_t i = 0; i < kHugeBlock; i += 4096) block[i] = 1;
    const bool ok = madvise(block, kHugeBlock, 25 /* MADV_COLLAPSE */) == 0;
    munmap(m, 2 * kHugeBlock);
    return ok;
}
