#include "huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older headers lack it, older kernels refuse it (EINVAL)
#endif

namespace acpx::basic::huge_pages {

namespace {
constexpr uintptr_t kHuge = uintptr_t{2} << 20;

// Every page of the 2 MiB block at `block` is in memory (mincore).
bool resident(char *block) {
    const long page = sysconf(_SC_PAGESIZE);
    if (page <= 0 || kHuge % static_cast<uintptr_t>(page) != 0) return false;
    unsigned char in[kHuge / 4096];
    const size_t pages = kHuge / static_cast<uintptr_t>(page);
    if (pages > sizeof in || mincore(block, kHuge, in) != 0) return false;
    for (size_t i = 0; i < pages; ++i)
        if (!(in[i] & 1)) return false;
    return true;
}
}  // namespace

void interior(const void *addr, size_t size, char **first, size_t *bytes) {
    const auto lo = reinterpret_cast<uintptr_t>(addr);
    const uintptr_t hi = lo + size < lo ? UINTPTR_MAX : lo + size;  // wrap: to the top
    const uintptr_t begin = (lo + kHuge - 1) & ~(kHuge - 1), end = hi & ~(kHuge - 1);
    *first = reinterpret_cast<char *>(begin);
    *bytes = begin >= lo && end > begin ? end - begin : 0;
}

size_t collapse(void *addr, size_t size) {
    char *first = nullptr;
    size_t bytes = 0, done = 0;
    interior(addr, size, &first, &bytes);
    for (size_t at = 0; at < bytes; at += kHuge)
        if (resident(first + at) && madvise(first + at, kHuge, MADV_COLLAPSE) == 0) done += kHuge;
    return done;
}

}  // namespace acpx::basic::huge_pages
