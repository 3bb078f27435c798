// What /proc/self/smaps says of mappings: how many KiB of the one holding
// an address sit on transparent huge pages, and the like. And the 2 MiB
// block arithmetic the huge-page tests share.
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

// The sum of field `field` ("Rss:", say; KiB) over the mappings for which
// picks(lo, hi, header line) is true, or -1 if none is.
template <typename Picks>
inline long smaps_kib(const std::string &field, Picks picks) {
    std::ifstream in("/proc/self/smaps");
    bool inside = false, any = false;
    long kib = 0;
    for (std::string line; std::getline(in, line);) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
            inside = picks(lo, hi, line);
            any = any || inside;
            continue;
        }
        if (inside && line.rfind(field, 0) == 0) kib += std::strtol(line.c_str() + field.size(), nullptr, 10);
    }
    return any ? kib : -1;
}

// AnonHugePages of the mapping that holds `addr` (KiB), or -1 if none does.
inline long huge_kib_at(const void *addr) {
    const auto a = reinterpret_cast<uintptr_t>(addr);
    return smaps_kib("AnonHugePages:",
                     [a](unsigned long lo, unsigned long hi, const std::string &) { return a >= lo && a < hi; });
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
