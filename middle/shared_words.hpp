// 64-bit words another process reads or writes at the same time (a peer's
// block mapped here, this process's block that peers store or copy into):
// acquire loads and release stores, so that what was written before a
// word is seen by whoever sees the word.
#pragma once

#include <cstdint>

namespace acpx::middle {

inline uint64_t load_acquire(const void *p) {
    return __atomic_load_n(static_cast<const uint64_t *>(p), __ATOMIC_ACQUIRE);
}
inline void store_release(void *p, uint64_t v) { __atomic_store_n(static_cast<uint64_t *>(p), v, __ATOMIC_RELEASE); }

}  // namespace acpx::middle
