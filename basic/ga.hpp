// The global-address codec; the layout is documented in include/acp.h.
#pragma once

#include <cstdint>

#include "acp.h"

namespace acpx::basic::ga {

constexpr unsigned kOffsetBits = 34;
constexpr unsigned kTagBits = 10;
constexpr unsigned kRankBits = 20;
static_assert(kOffsetBits + kTagBits + kRankBits == 64);

constexpr uint64_t kMaxRanks = 1ULL << kRankBits;
constexpr uint32_t kMaxTags = 1U << kTagBits;  // tag 0 is the starter memory
constexpr uint32_t kStarterTag = 0;
constexpr uint64_t kOffsetMask = (1ULL << kOffsetBits) - 1;
constexpr uint64_t kMaxRegistration = 1ULL << kOffsetBits;

struct Parts {
    uint32_t rank;
    uint32_t tag;
    uint64_t offset;
};

constexpr acp_ga_t encode(uint32_t rank, uint32_t tag, uint64_t offset) {
    return ((static_cast<uint64_t>(rank) << (kOffsetBits + kTagBits)) | (static_cast<uint64_t>(tag) << kOffsetBits) |
            offset) +
           1;
}

// Whether [offset, offset + size) lies within a registration of reg_size
// bytes (written so that no sum can overflow).
constexpr bool fits(uint64_t offset, uint64_t size, uint64_t reg_size) {
    return offset <= reg_size && size <= reg_size - offset;
}

// Precondition: g != ACP_GA_NULL.
constexpr Parts decode(acp_ga_t g) {
    const uint64_t v = g - 1;
    return {static_cast<uint32_t>(v >> (kOffsetBits + kTagBits)),
            static_cast<uint32_t>((v >> kOffsetBits) & (kMaxTags - 1)), v & kOffsetMask};
}

static_assert(decode(encode(kMaxRanks - 1, 1023, 5)).rank == kMaxRanks - 1);
static_assert(decode(encode(3, 7, 11)).tag == 7);
static_assert(decode(encode(3, 7, 11) + 4).offset == 15);
static_assert(encode(0, 0, 0) != ACP_GA_NULL);

}  // namespace acpx::basic::ga
