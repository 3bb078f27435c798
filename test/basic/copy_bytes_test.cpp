// copy_bytes (basic/copy_bytes.hpp): memmove's result, bytes around the
// destination untouched, at every distance class and size around its
// pieces, overlapping either way or not.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "basic/copy_bytes.hpp"

using acpx::basic::copy_bytes;
using acpx::basic::kCopyPiece;

namespace {

std::vector<char> pattern(size_t n, unsigned seed) {
    std::vector<char> v(n);
    uint32_t x = seed * 2654435761u + 1;
    for (char &c : v) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
    return v;
}

const size_t kSizes[] = {0, 1, kCopyPiece - 1, kCopyPiece, kCopyPiece + 1, 2 * kCopyPiece + 3, 16384, 16391, 65536};
// Modulo 4096, destination - source: the slow window is 1..63.
const size_t kDistances[] = {0, 1, 7, 8, 16, 63, 64, 100, 4095, 4096 + 8, 3 * 4096 + 40};

TEST(CopyBytes, CopiesAtEveryDistanceAndSize) {
    for (size_t n : kSizes)
        for (size_t d : kDistances) {
            // Source at an odd page offset; destination d further on (mod 4096) in another buffer.
            std::vector<char> src = pattern(n + 8192, 1), dst = pattern(n + 3 * 4096 + 8192, 2);
            const char *from = src.data() + 40;
            const uintptr_t want = (reinterpret_cast<uintptr_t>(from) + d) & 4095;
            size_t at = 64;
            while (((reinterpret_cast<uintptr_t>(dst.data()) + at) & 4095) != want) ++at;
            const std::vector<char> before = dst;
            copy_bytes(dst.data() + at, from, n);
            for (size_t i = 0; i < dst.size(); ++i) {
                const char expect = i >= at && i < at + n ? from[i - at] : before[i];
                ASSERT_EQ(dst[i], expect) << "size " << n << " distance " << d << " byte " << i;
            }
        }
}

TEST(CopyBytes, OverlappingEitherWayIsMemmove) {
    for (size_t n : kSizes)
        for (size_t d : {size_t{1}, size_t{8}, size_t{63}, size_t{64}, size_t{100}, kCopyPiece + 5, size_t{4096 + 8}})
            for (bool up : {true, false}) {
                std::vector<char> got = pattern(n + d + 128, 3);
                std::vector<char> want = got;
                const size_t src = up ? 32 : 32 + d, dst = up ? 32 + d : 32;
                std::memmove(want.data() + dst, want.data() + src, n);
                copy_bytes(got.data() + dst, got.data() + src, n);
                ASSERT_EQ(got, want) << "size " << n << " distance " << d << (up ? " up" : " down");
            }
}

}  // namespace
