// acp_copy: every combination of where src, dst and the issuer are; sizes
// from 1 byte to 64 MiB; ordered chains; many outstanding copies.
#include <sched.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "../mp_util.hpp"
#include "../smaps_util.hpp"

using namespace acpx::test;

TEST(Copy, LocalToLocal) {
    SharedBuffer b(256);
    fill_pattern(b.data.data(), 100, 1);
    acp_handle_t h = acp_copy(b.local(128), b.local(0), 100, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    EXPECT_EQ(first_mismatch(b.data.data() + 128, 100, 1), -1);
}

TEST(Copy, PutToEveryRank) {
    SharedBuffer b(64 * 64);
    // Each rank writes its pattern into slot `me` of every rank's buffer.
    std::vector<unsigned char> src(64);
    fill_pattern(src.data(), 64, 100 + me());
    acp_atkey_t k = acp_register_memory(src.data(), src.size(), 0);
    for (int r = 0; r < np(); ++r)
        ASSERT_NE(acp_copy(b.ga[r] + 64 * me(), acp_query_ga(k, src.data()), 64, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    acp_complete(ACP_HANDLE_ALL);
    acp_sync();
    for (int r = 0; r < np(); ++r)
        EXPECT_EQ(first_mismatch(b.data.data() + 64 * r, 64, 100 + r), -1) << "from rank " << r;
    acp_sync();
    EXPECT_EQ(acp_unregister_memory(k), 0);
}

TEST(Copy, GetFromEveryRank) {
    SharedBuffer b(64 * 65);
    fill_pattern(b.data.data(), 64, 200 + me());
    acp_sync();
    for (int r = 0; r < np(); ++r)
        ASSERT_NE(acp_copy(b.local(64 * (r + 1)), b.ga[r], 64, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    acp_complete(ACP_HANDLE_ALL);
    for (int r = 0; r < np(); ++r)
        EXPECT_EQ(first_mismatch(b.data.data() + 64 * (r + 1), 64, 200 + r), -1) << "from rank " << r;
}

TEST(Copy, RemoteToRemoteWithIssuerNeither) {
    // Rank i issues, for every pair (s, d) of ranks other than itself,
    // a copy of s's block into d's slot reserved for (issuer, s).
    const int n = np();
    const size_t block = 48;
    SharedBuffer b(block * (1 + n * n));
    fill_pattern(b.data.data(), block, 300 + me());
    acp_sync();
    for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) {
            if (s == me() || d == me()) continue;
            const size_t slot = block * (1 + me() * n + s);
            ASSERT_NE(acp_copy(b.ga[d] + slot, b.ga[s], block, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
        }
    acp_complete(ACP_HANDLE_ALL);
    acp_sync();
    for (int issuer = 0; issuer < n; ++issuer)
        for (int s = 0; s < n; ++s) {
            if (s == issuer || me() == issuer) continue;
            const size_t slot = block * (1 + issuer * n + s);
            EXPECT_EQ(first_mismatch(b.data.data() + slot, block, 300 + s), -1) << "issuer " << issuer << " src " << s;
        }
}

TEST(Copy, RemoteToSameRemoteRank) {
    // src and dst both on the next rank: its agent copies within itself.
    SharedBuffer b(256);
    fill_pattern(b.data.data(), 100, 400 + me());
    acp_sync();
    const int peer = (me() + 1) % np();
    acp_handle_t h = acp_copy(b.ga[peer] + 128, b.ga[peer], 100, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    acp_sync();
    EXPECT_EQ(first_mismatch(b.data.data() + 128, 100, 400 + me()), -1);
}

TEST(Copy, SizesFromOneByteTo64MiB) {
    // Each buffer: [0, kMax) holds this rank's bytes, [kMax, 2 kMax) receives.
    const size_t kMax = 64u << 20;
    SharedBuffer b(2 * kMax);
    const int peer = (me() + 1) % np();
    const int from = (me() + np() - 1) % np();
    unsigned char *recv = b.data.data() + kMax;
    for (size_t size :
         {size_t{1}, size_t{7}, size_t{4096 + 1}, size_t{65536}, size_t{(1u << 20) + 1}, size_t{16u << 20}, kMax}) {
        fill_pattern(b.data.data(), size, size + me());
        acp_sync();
        // Get: the predecessor's bytes into my receive half.
        acp_handle_t h = acp_copy(b.local(kMax), b.ga[from], size, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL);
        acp_complete(h);
        EXPECT_EQ(first_mismatch(recv, size, size + from), -1) << "get of " << size;
        acp_sync();
        // Put: my bytes into the successor's receive half.
        std::memset(recv, 0, size);
        acp_sync();
        h = acp_copy(b.ga[peer] + kMax, b.local(), size, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL);
        acp_complete(h);
        acp_sync();
        EXPECT_EQ(first_mismatch(recv, size, size + from), -1) << "put of " << size;
    }
}

// Where a copy's destination sits 1-31 bytes after its source modulo
// 4096, an on-node copy goes through a staging buffer (the kernel copies
// slowly there: basic/onnode/cma.hpp). Puts and gets at such
// distances, across chunk boundaries, land whole and touch nothing else.
TEST(Copy, PutAndGetAtShortDistancesArriveWhole) {
    constexpr size_t kRegion = (1u << 20) + 3 * 4096, kGuard = 64;
    SharedBuffer b(2 * kRegion);
    const std::vector<uint64_t> va = allgather_u64(reinterpret_cast<uint64_t>(b.data.data()));
    const int peer = (me() + 1) % np(), from = (me() + np() - 1) % np();
    unsigned char *recv = b.data.data() + kRegion;
    // The offset in a receive half that puts it `d` bytes after byte 100
    // of the sender's own half, modulo 4096.
    const auto landing = [&](int sender, int receiver, size_t d) {
        return kGuard + ((va[sender] + 100 + d - (va[receiver] + kRegion + kGuard)) & 4095);
    };
    for (size_t d : {size_t{8}, size_t{16}, size_t{31}})
        for (size_t size : {size_t{4096 + 1}, size_t{(128u << 10) + 3}, size_t{(1u << 20) + 5}}) {
            fill_pattern(b.data.data() + 100, size, size + d + me());
            std::memset(recv, 0xEE, kRegion);
            acp_sync();
            // Put: my bytes into the successor's receive half.
            const size_t put_at = landing(me(), peer, d);
            acp_complete(acp_copy(b.ga[peer] + kRegion + put_at, b.local(100), size, ACP_HANDLE_NULL));
            acp_sync();
            const size_t got_at = landing(from, me(), d);
            EXPECT_EQ(first_mismatch(recv + got_at, size, size + d + from), -1) << "put of " << size << " at " << d;
            EXPECT_EQ(recv[got_at - 1], 0xEE) << "put of " << size << " at " << d;
            EXPECT_EQ(recv[got_at + size], 0xEE) << "put of " << size << " at " << d;
            // Get: the predecessor's bytes, landing d after them.
            std::memset(recv, 0xEE, kRegion);
            const size_t get_at = landing(from, me(), d);
            acp_complete(acp_copy(b.local(kRegion + get_at), b.ga[from] + 100, size, ACP_HANDLE_NULL));
            EXPECT_EQ(first_mismatch(recv + get_at, size, size + d + from), -1) << "get of " << size << " at " << d;
            EXPECT_EQ(recv[get_at - 1], 0xEE) << "get of " << size << " at " << d;
            EXPECT_EQ(recv[get_at + size], 0xEE) << "get of " << size << " at " << d;
            acp_sync();
        }
}

TEST(Copy, RegisteredBlocksGoOntoHugePagesAndCopiesArriveWhole) {
    // A registration from 100 bytes into a 2 MiB-aligned mapping to 100
    // before its fourth block's end: blocks 1 and 2 lie inside whole, and
    // acp_register_memory collapses them onto huge pages with ACP_HUGEPAGES=1
    // (basic_acprun_np4.sh sets it; elsewhere they keep their pages).
    constexpr size_t kLen = (3u << 20) + 5, kFrom = 100, kTo = 2 * kHugeBlock + 13;
    const size_t map_bytes = 5 * kHugeBlock;
    void *m = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(m, MAP_FAILED);
    auto *at = align_up_2m<unsigned char>(m);
    unsigned char *region = at + 100;
    const size_t region_bytes = 4 * kHugeBlock - 200;
    fill_pattern(at, 4 * kHugeBlock, 500 + me());
    const acp_atkey_t key = acp_register_memory(region, region_bytes, 0);
    ASSERT_NE(key, ACP_ATKEY_NULL);
    EXPECT_EQ(first_mismatch(at, 4 * kHugeBlock, 500 + me()), -1) << "registration changed the bytes";
    const char *setting = std::getenv("ACP_HUGEPAGES");
    if (kernel_collapses() && setting && std::strcmp(setting, "1") == 0) {
        EXPECT_GE(huge_kib_at(region), long{2 * kHugeBlock / 1024}) << "blocks 1-2 are not on huge pages";
    }
    const std::vector<uint64_t> ga = allgather_u64(acp_query_ga(key, region));
    const int peer = (me() + 1) % np(), from = (me() + np() - 1) % np();
    // Put: bytes across block 0's end into the successor, across its block 2's end.
    fill_pattern(region + kFrom, kLen, 900 + me());
    std::memset(region + kTo - 1, 0xEE, kLen + 2);
    acp_sync();
    acp_complete(acp_copy(ga[peer] + kTo, ga[me()] + kFrom, kLen, ACP_HANDLE_NULL));
    acp_sync();
    EXPECT_EQ(first_mismatch(region + kTo, kLen, 900 + from), -1) << "put";
    EXPECT_EQ(region[kTo - 1], 0xEE);
    EXPECT_EQ(region[kTo + kLen], 0xEE);
    // Get: the predecessor's bytes back the other way.
    std::memset(region + kTo - 1, 0xEE, kLen + 2);
    acp_complete(acp_copy(ga[me()] + kTo, ga[from] + kFrom, kLen, ACP_HANDLE_NULL));
    EXPECT_EQ(first_mismatch(region + kTo, kLen, 900 + from), -1) << "get";
    EXPECT_EQ(region[kTo - 1], 0xEE);
    EXPECT_EQ(region[kTo + kLen], 0xEE);
    acp_sync();
    EXPECT_EQ(acp_unregister_memory(key), 0);
    munmap(m, map_bytes);
}

TEST(Copy, ZeroBytesIsAValidCopy) {
    SharedBuffer b(16, 0xAB);
    acp_handle_t h = acp_copy(b.ga[(me() + 1) % np()], b.local(), 0, ACP_HANDLE_NULL);
    EXPECT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    EXPECT_EQ(acp_inquire(h), 0);
}

TEST(Copy, OrderedChainThroughEveryRank) {
    // Rank 0 alone drives data around the ring: 0 -> 1 -> ... -> n-1 -> 0
    // through third-party copies, each ordered after the previous one.
    // Every hop reads what the previous hop wrote, so any reordering shows.
    const size_t size = 1000;
    SharedBuffer b(2 * size);
    if (me() == 0) fill_pattern(b.data.data(), size, 77);
    acp_sync();
    if (me() == 0) {
        acp_handle_t prev = ACP_HANDLE_NULL;
        for (int round = 0; round < 3; ++round)
            for (int r = 0; r < np(); ++r) {
                const int next = (r + 1) % np();
                // Hop: r's block -> next's block (via next's staging half, then home)
                prev = acp_copy(b.ga[next] + size, b.ga[r], size, prev);
                ASSERT_NE(prev, ACP_HANDLE_NULL);
                prev = acp_copy(b.ga[next], b.ga[next] + size, size, prev);
                ASSERT_NE(prev, ACP_HANDLE_NULL);
            }
        acp_complete(prev);
    }
    acp_sync();
    EXPECT_EQ(first_mismatch(b.data.data(), size, 77), -1);
}

class OrderedFlag : public ::testing::TestWithParam<size_t> {};

TEST_P(OrderedFlag, IsSeenOnlyWithTheDataBeforeIt) {
    // Rank 0 puts the data to rank `data_to`, then a flag ordered after it
    // to rank `flag_to` (the same rank at 2 ranks; on the two-host bed two
    // ranks of the other host). The flag's rank, once it sees the flag,
    // reads the data: it must be this round's whole. Small data to the
    // flag's own peer on another node: the flag goes behind a transport
    // fence, not after a round trip; else it waits for the data's
    // completion.
    const size_t size = GetParam();
    const int data_to = np() >= 3 ? np() - 2 : 1, flag_to = np() - 1;
    SharedBuffer b(size + 64);
    std::vector<unsigned char> src(size), seen(size);
    const acp_atkey_t ks = acp_register_memory(src.data(), size, 0);
    const acp_atkey_t kr = acp_register_memory(seen.data(), size, 0);
    ASSERT_NE(ks, ACP_ATKEY_NULL);
    ASSERT_NE(kr, ACP_ATKEY_NULL);
    auto *flag = reinterpret_cast<uint64_t *>(b.data.data() + size);
    const uint64_t rounds = size > 65536 ? 3 : 50;
    for (uint64_t round = 1; round <= rounds; ++round) {
        if (me() == 0) {
            fill_pattern(src.data(), size, 4000 + round);
            std::memcpy(src.data(), &round, sizeof round);  // the flag's source: the data's first word
            const acp_ga_t s = acp_query_ga(ks, src.data());
            const acp_handle_t d = acp_copy(b.ga[data_to], s, size, ACP_HANDLE_NULL);
            ASSERT_NE(d, ACP_HANDLE_NULL);
            ASSERT_NE(acp_copy(b.ga[flag_to] + size, s, sizeof round, d), ACP_HANDLE_NULL);
            acp_complete(ACP_HANDLE_ALL);
        }
        if (me() == flag_to) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != round && std::chrono::steady_clock::now() < deadline)
                sched_yield();
            ASSERT_EQ(__atomic_load_n(flag, __ATOMIC_ACQUIRE), round) << "the flag never came";
            const acp_handle_t h = acp_copy(acp_query_ga(kr, seen.data()), b.ga[data_to], size, ACP_HANDLE_NULL);
            ASSERT_NE(h, ACP_HANDLE_NULL);
            acp_complete(h);
            uint64_t first_word;
            std::memcpy(&first_word, seen.data(), sizeof first_word);
            EXPECT_EQ(first_word, round);
            for (size_t i = 0; i < sizeof round; ++i) seen[i] = pattern(4000 + round, i);  // as rank 0 had them
            EXPECT_EQ(first_mismatch(seen.data(), size, 4000 + round), -1) << "round " << round;
        }
        acp_sync();
    }
    EXPECT_EQ(acp_unregister_memory(kr), 0);
    EXPECT_EQ(acp_unregister_memory(ks), 0);
}

INSTANTIATE_TEST_SUITE_P(Data, OrderedFlag, ::testing::Values(size_t{2048}, size_t{4} << 20));

TEST(Copy, OrderAllAndContMeanLastIssued) {
    SharedBuffer b(3 * 64);
    const int peer = (me() + 1) % np();
    fill_pattern(b.data.data(), 64, 500 + me());
    acp_sync();
    // peer's [0,64) -> my [64,128), then my [64,128) -> my [128,192)
    acp_handle_t h1 = acp_copy(b.local(64), b.ga[peer], 64, ACP_HANDLE_NULL);
    acp_handle_t h2 = acp_copy(b.local(128), b.local(64), 64, ACP_HANDLE_ALL);
    acp_handle_t h3 = acp_copy(b.local(128), b.local(128), 64, ACP_HANDLE_CONT);
    ASSERT_NE(h1, ACP_HANDLE_NULL);
    EXPECT_EQ(h2, h1 + 1);
    EXPECT_EQ(h3, h2 + 1);
    acp_complete(h3);
    EXPECT_EQ(first_mismatch(b.data.data() + 128, 64, 500 + peer), -1);
    acp_sync();
}

TEST(Copy, HundredThousandOutstanding) {
    const size_t kCopies = 100000;
    SharedBuffer b(kCopies * 8 + 8);
    const int peer = (me() + 1) % np();
    auto *words = reinterpret_cast<uint64_t *>(b.data.data());
    std::vector<uint64_t> src(kCopies);
    std::iota(src.begin(), src.end(), static_cast<uint64_t>(me()) << 32);
    acp_atkey_t k = acp_register_memory(src.data(), src.size() * 8, 0);
    const acp_ga_t s = acp_query_ga(k, src.data());
    acp_handle_t first = ACP_HANDLE_NULL, last = ACP_HANDLE_NULL;
    for (size_t i = 0; i < kCopies; ++i) {
        last = acp_copy(b.ga[peer] + 8 * i, s + 8 * i, 8, ACP_HANDLE_NULL);
        ASSERT_NE(last, ACP_HANDLE_NULL) << "copy " << i;
        if (i == 0) first = last;
    }
    EXPECT_EQ(last - first + 1, static_cast<acp_handle_t>(kCopies));  // handles grow by one
    acp_complete(ACP_HANDLE_ALL);
    EXPECT_EQ(acp_inquire(last), 0);
    acp_sync();
    const uint64_t base = static_cast<uint64_t>((me() + np() - 1) % np()) << 32;
    for (size_t i = 0; i < kCopies; ++i) ASSERT_EQ(words[i], base + i) << "word " << i;
    acp_sync();
    EXPECT_EQ(acp_unregister_memory(k), 0);
}

TEST(Copy, PutAndGetInStarterMemory) {
    // Starter memory is reached through a mapping on this node; check the
    // bytes and their bounds like any registration's.
    const size_t off = 16384, size = 4096;
    const int peer = (me() + 1) % np();
    const int from = (me() + np() - 1) % np();
    auto *mine = static_cast<unsigned char *>(acp_query_address(acp_query_starter_ga(me())));
    fill_pattern(mine + off, size, 900 + me());
    acp_sync();
    // get the predecessor's block, put mine into the successor's second block
    acp_handle_t h =
        acp_copy(acp_query_starter_ga(me()) + off + size, acp_query_starter_ga(from) + off, size, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    EXPECT_EQ(first_mismatch(mine + off + size, size, 900 + from), -1);
    acp_sync();
    h = acp_copy(acp_query_starter_ga(peer) + off + 2 * size, acp_query_starter_ga(me()) + off, size, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    acp_sync();
    EXPECT_EQ(first_mismatch(mine + off + 2 * size, size, 900 + from), -1);
    std::memset(mine + off, 0, 3 * size);  // leave the starter memory as found
    acp_sync();
}

// A partner for the polling tests: the rank half the job away (on the
// other host of the two-host bed); with an odd count the last rank has
// none.
int polling_partner() {
    if (np() % 2 == 0) return (me() + np() / 2) % np();
    return me() == np() - 1 ? -1 : me() ^ 1;
}

// A program that polls its own memory for a peer's put, calling
// acp_inquire as it goes, sees every put: acp_inquire makes progress even
// with nothing of its own in flight (a put between nodes is a message that
// only the target's progress stores). Each side answers count i with i.
TEST(Copy, APingPongPolledWithInquireSeesEveryPut) {
    const int peer = polling_partner();
    SharedBuffer b(16);
    auto *slot = reinterpret_cast<uint64_t *>(b.data.data());
    acp_sync();
    if (peer >= 0) {
        std::atomic_ref<uint64_t> in(slot[0]);
        const bool starts = me() < peer;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        for (uint64_t i = 1; i <= 200; ++i) {
            if (!starts)
                while (in.load(std::memory_order_acquire) != i) {
                    acp_inquire(ACP_HANDLE_ALL);
                    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "count " << i << " never came";
                }
            slot[1] = i;  // the answer to the last put proves that put's source was read
            ASSERT_NE(acp_copy(b.ga[peer], b.local(8), 8, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
            if (starts)
                while (in.load(std::memory_order_acquire) != i) {
                    acp_inquire(ACP_HANDLE_ALL);
                    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "answer " << i << " never came";
                }
        }
        acp_complete(ACP_HANDLE_ALL);
    }
    acp_sync();
}

// A put polled to completion with acp_inquire alone completes, though
// nothing comes back from its target to carry the acknowledgement (a
// poll asks for it once the put has been in flight a while).
TEST(Copy, APutPolledWithInquireAloneCompletes) {
    const int peer = polling_partner();
    SharedBuffer b(64);
    fill_pattern(b.data.data(), 32, 700 + me());
    acp_sync();
    if (peer >= 0) {
        const acp_handle_t h = acp_copy(b.ga[peer] + 32, b.local(0), 32, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        int state;
        while ((state = acp_inquire(h)) == 1) {
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the put never completed";
        }
        EXPECT_EQ(state, 0);
    }
    acp_sync();
    if (peer >= 0) {
        EXPECT_EQ(first_mismatch(b.data.data() + 32, 32, 700 + peer), -1);
    }
    acp_sync();
}
