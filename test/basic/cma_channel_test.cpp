// In-process: CmaChannel's copies, into and out of this same process (the
// kernel allows a process its own memory), at every distance class the
// channel tells apart: direct, and staged through its buffer where the
// kernel's copy is slow (basic/onnode/cma.hpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "basic/onnode/cma.hpp"

using acpx::basic::CmaChannel;

namespace {

constexpr size_t kChunk = CmaChannel::kStageChunk;

// Rank 1 is this process: copies to "rank 1" land in our own memory.
CmaChannel self_channel() {
    CmaChannel c;
    const pid_t me = getpid();
    c.init(0, {7, 7}, {me, me}, true);
    return c;
}

char pattern(size_t i) { return static_cast<char>((i * 131 + 7) % 251); }

struct Case {
    size_t distance, len;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    for (size_t d : {0, 1, 8, 16, 31, 32, 48, 2048, 4095})
        for (size_t n :
             {size_t{1}, size_t{2047}, size_t{2048}, size_t{4101}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 777})
            out.push_back({d, n});
    return out;
}

constexpr size_t kGuard = 64;
constexpr char kPoison = '\x5a';

// A source of n pattern bytes, and a poisoned destination whose first
// byte sits `distance` after the source modulo 4096, kGuard bytes of
// poison on both sides.
struct Buffers {
    std::vector<char> src, dst;
    char *from = nullptr, *to = nullptr;
    Buffers(size_t distance, size_t n) : src(n + 2 * 4096), dst(n + 3 * 4096, kPoison) {
        const auto page_up = [](char *p) { return p + ((4096 - reinterpret_cast<uintptr_t>(p) % 4096) % 4096); };
        from = page_up(src.data()) + 100;
        to = page_up(dst.data() + kGuard) + 100 + distance;
        for (size_t i = 0; i < n; ++i) from[i] = pattern(i);
    }
    // The first wrong byte of the destination and its guards, or -1.
    long first_wrong(size_t n) const {
        for (long i = -static_cast<long>(kGuard); i < static_cast<long>(n + kGuard); ++i) {
            const bool inside = i >= 0 && i < static_cast<long>(n);
            if (to[i] != (inside ? pattern(static_cast<size_t>(i)) : kPoison)) return i;
        }
        return -1;
    }
};

}  // namespace

TEST(CmaChannel, StagesTheKernelsSlowDistancesFromTheirSize) {
    EXPECT_FALSE(CmaChannel::staged(4096 + 16, 4096, 2047));
    EXPECT_TRUE(CmaChannel::staged(4096 + 16, 4096, 2048));
    EXPECT_TRUE(CmaChannel::staged(4096 + 1, 4096, 1 << 20));
    EXPECT_TRUE(CmaChannel::staged(4096 + 31, 4096, 1 << 20));
    EXPECT_FALSE(CmaChannel::staged(4096, 4096, 1 << 20));
    EXPECT_FALSE(CmaChannel::staged(4096 + 32, 4096, 1 << 20));
    EXPECT_FALSE(CmaChannel::staged(4096 - 16, 4096, 1 << 20));    // the destination before the source
    EXPECT_TRUE(CmaChannel::staged(3 * 4096 + 8, 4096, 1 << 20));  // modulo 4096
    EXPECT_TRUE(CmaChannel::staged(8, 4096 * 5, 1 << 20));         // wrapping below the source
}

TEST(CmaChannel, WritesArriveWholeAtEveryDistance) {
    CmaChannel c = self_channel();
    ASSERT_TRUE(c.reaches(1));
    for (const Case &k : cases()) {
        Buffers b(k.distance, k.len);
        const int rc = c.write(1, reinterpret_cast<uint64_t>(b.to), b.from, k.len);
        if (rc == CmaChannel::kFallback) GTEST_SKIP() << "process_vm_writev refused here";
        ASSERT_EQ(rc, 0) << "distance " << k.distance << ", " << k.len << " bytes";
        EXPECT_EQ(b.first_wrong(k.len), -1) << "distance " << k.distance << ", " << k.len << " bytes";
    }
}

TEST(CmaChannel, ReadsArriveWholeAtEveryDistance) {
    CmaChannel c = self_channel();
    for (const Case &k : cases()) {
        Buffers b(k.distance, k.len);
        const int rc = c.read(1, b.to, reinterpret_cast<uint64_t>(b.from), k.len);
        if (rc == CmaChannel::kFallback) GTEST_SKIP() << "process_vm_readv refused here";
        ASSERT_EQ(rc, 0) << "distance " << k.distance << ", " << k.len << " bytes";
        EXPECT_EQ(b.first_wrong(k.len), -1) << "distance " << k.distance << ", " << k.len << " bytes";
    }
}

TEST(CmaChannel, ABadAddressIsReportedNotStagedAround) {
    CmaChannel c = self_channel();
    std::vector<char> src(8192, 1);
    // Addresses nobody maps (below mmap_min_addr), at staged distances.
    const uint64_t mine = reinterpret_cast<uint64_t>(src.data());
    const uint64_t bad_dst = 4096 + ((mine + 16) & 4095), bad_src = 4096 + ((mine - 16) & 4095);
    ASSERT_TRUE(CmaChannel::staged(bad_dst, mine, src.size()));
    ASSERT_TRUE(CmaChannel::staged(mine, bad_src, src.size()));
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(c.write(1, bad_dst, src.data(), src.size()), -1);
    EXPECT_EQ(c.read(1, src.data(), bad_src, src.size()), -1);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("acp_copy"), std::string::npos) << err;
}

// A peer that answered before and is now gone (ESRCH) fails the copy, and
// every later one, without touching its pid again; an ESRCH before any
// copy worked is a refusal (a peer in another PID namespace): the
// transport takes over.
TEST(CmaChannel, APeerThatDiedFailsItsCopiesAndOneNeverReachedFallsBack) {
    std::vector<char> buf(4096, 1);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    CmaChannel c;
    c.init(0, {7, 7}, {getpid(), child}, true);
    std::vector<char> mine(4096, 2);
    ASSERT_EQ(c.write(1, reinterpret_cast<uint64_t>(buf.data()), mine.data(), mine.size()), 0);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    usleep(2000);  // past the pidfd's once-a-millisecond look
    testing::internal::CaptureStderr();
    EXPECT_EQ(c.write(1, reinterpret_cast<uint64_t>(buf.data()), mine.data(), mine.size()), -1);
    EXPECT_EQ(c.read(1, mine.data(), reinterpret_cast<uint64_t>(buf.data()), mine.size()), -1);
    const std::string err = testing::internal::GetCapturedStderr();
    // Told by its pidfd before its pid is used again.
    EXPECT_NE(err.find("has exited: it has died"), std::string::npos) << err;
    EXPECT_NE(err.find("rank 1 has died"), std::string::npos) << err;
    // The same dead pid, never reached: a refusal.
    CmaChannel never;
    never.init(0, {7, 7}, {getpid(), child}, true);
    testing::internal::CaptureStderr();
    EXPECT_EQ(never.write(1, reinterpret_cast<uint64_t>(buf.data()), mine.data(), mine.size()), CmaChannel::kFallback);
    testing::internal::GetCapturedStderr();
    EXPECT_FALSE(never.reaches(1));
}
