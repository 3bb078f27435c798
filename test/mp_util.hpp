// Helpers for tests in which every rank runs the same test body.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acp.h"

namespace acpx::test {

inline int me() { return acp_rank(); }
inline int np() { return acp_procs(); }

// Every rank's value of `mine`, exchanged through starter memory: rank r
// publishes at offset 0 of its starter memory; the others read it with a
// get into their own starter memory at 64 + 8*r. Collective.
inline std::vector<uint64_t> allgather_u64(uint64_t mine) {
    auto *starter = static_cast<char *>(acp_query_address(acp_query_starter_ga(me())));
    std::memcpy(starter, &mine, 8);
    EXPECT_EQ(acp_sync(), 0);
    std::vector<uint64_t> all(np());
    for (int r = 0; r < np(); ++r) {
        const acp_ga_t slot = acp_query_starter_ga(me()) + 64 + 8 * r;
        acp_handle_t h = acp_copy(slot, acp_query_starter_ga(r), 8, ACP_HANDLE_NULL);
        EXPECT_NE(h, ACP_HANDLE_NULL);
        acp_complete(h);
        std::memcpy(&all[r], starter + 64 + 8 * r, 8);
    }
    EXPECT_EQ(acp_sync(), 0);  // nobody republishes before everyone has read
    return all;
}

// A registered buffer on every rank, with every rank's GA.
struct SharedBuffer {
    std::vector<unsigned char> data;
    acp_atkey_t key = ACP_ATKEY_NULL;
    std::vector<acp_ga_t> ga;  // ga[r]: rank r's buffer

    explicit SharedBuffer(size_t size, unsigned char fill = 0) : data(size, fill) {
        key = acp_register_memory(data.data(), size, 0);
        EXPECT_NE(key, ACP_ATKEY_NULL);
        ga = allgather_u64(acp_query_ga(key, data.data()));
    }
    ~SharedBuffer() {
        acp_sync();  // peers may still read this buffer until everyone is here
        EXPECT_EQ(acp_unregister_memory(key), 0);
    }
    acp_ga_t local(size_t offset = 0) const { return ga[me()] + offset; }
};

// Byte i of a pattern that differs per (seed, i), so misplaced bytes show.
// The test programs build at -Og (configure.ac); these loops run over
// every byte of every round, so they are optimized as the library is:
// at -Og under ASan they made the middle suite 1.4x slower.
#define ACPX_TEST_HOT __attribute__((optimize("O2")))
ACPX_TEST_HOT inline unsigned char pattern(uint64_t seed, size_t i) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + i * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return static_cast<unsigned char>(x);
}

ACPX_TEST_HOT inline void fill_pattern(unsigned char *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) p[i] = pattern(seed, i);
}

// Index of the first of n bytes that is not `value`, or -1.
ACPX_TEST_HOT inline long first_not(const unsigned char *p, size_t n, unsigned char value) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != value) return static_cast<long>(i);
    return -1;
}

// Index of the first byte that differs from the pattern, or -1.
ACPX_TEST_HOT inline long first_mismatch(const unsigned char *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i)
        if (p[i] != pattern(seed, i)) return static_cast<long>(i);
    return -1;
}

}  // namespace acpx::test
