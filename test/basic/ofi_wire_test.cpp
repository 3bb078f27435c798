// The libfabric transport's framing, in one process: messages split into
// frames come back whole whatever order the frames arrive in, interleaved
// with other senders' frames, and malformed frames are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "basic/transport/ofi/ofi_wire.hpp"

namespace ofi = acpx::basic::ofi;

namespace {

struct Frame {
    ofi::FrameHeader h;
    std::vector<uint8_t> payload;
};

std::vector<Frame> split(uint32_t from, uint32_t id, const std::vector<uint8_t> &m, size_t frame_bytes) {
    std::vector<Frame> out;
    ofi::split_message(from, id, m.data(), m.size(), frame_bytes,
                       [&](const ofi::FrameHeader &h, const uint8_t *p, size_t n) {
                           out.push_back({h, std::vector<uint8_t>(p, p + n)});
                       });
    return out;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
    return v;
}

}  // namespace

TEST(OfiWire, SmallMessageIsOneFrame) {
    auto frames = split(3, 9, pattern(100, 1), 16384);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].h.kind, ofi::FrameKind::kMessage);
    EXPECT_EQ(frames[0].h.from, 3u);
    EXPECT_EQ(frames[0].h.total, 100u);
    EXPECT_EQ(frames[0].h.offset, 0u);
}

TEST(OfiWire, EmptyMessageStillTravels) {
    auto frames = split(0, 1, {}, 64);
    ASSERT_EQ(frames.size(), 1u);
    ofi::Reassembly r;
    std::vector<uint8_t> out{1, 2};
    bool bad = true;
    EXPECT_TRUE(r.add(frames[0].h, nullptr, 0, &out, &bad));
    EXPECT_FALSE(bad);
    EXPECT_TRUE(out.empty());
}

TEST(OfiWire, FramesInAnyOrderFromTwoSendersRebuildBothMessages) {
    const auto a = pattern(10000, 5), b = pattern(7777, 99);
    auto fa = split(1, 4, a, 1000), fb = split(2, 4, b, 1000);  // same id, other sender
    ASSERT_EQ(fa.size(), 11u);                                  // 980 payload bytes per frame
    std::vector<Frame> all(fa);
    all.insert(all.end(), fb.begin(), fb.end());
    std::shuffle(all.begin(), all.end(), std::mt19937(42));
    ofi::Reassembly r;
    int whole = 0;
    for (const auto &f : all) {
        std::vector<uint8_t> out;
        bool bad = false;
        if (r.add(f.h, f.payload.data(), f.payload.size(), &out, &bad)) {
            ++whole;
            EXPECT_EQ(out, f.h.from == 1 ? a : b);
        }
        EXPECT_FALSE(bad);
    }
    EXPECT_EQ(whole, 2);
    EXPECT_EQ(r.pending(), 0u);
}

TEST(OfiWire, MalformedFramesAreRefused) {
    ofi::Reassembly r;
    std::vector<uint8_t> out;
    bool bad = false;
    uint8_t bytes[16] = {};
    ofi::FrameHeader past_end{ofi::FrameKind::kMessage, {}, 0, 1, 20, 10};
    EXPECT_FALSE(r.add(past_end, bytes, 16, &out, &bad));
    EXPECT_TRUE(bad);
    ofi::FrameHeader first{ofi::FrameKind::kMessage, {}, 0, 2, 40, 0};
    EXPECT_FALSE(r.add(first, bytes, 16, &out, &bad));
    EXPECT_FALSE(bad);
    ofi::FrameHeader other_total{ofi::FrameKind::kMessage, {}, 0, 2, 50, 16};
    EXPECT_FALSE(r.add(other_total, bytes, 16, &out, &bad));
    EXPECT_TRUE(bad);
}
