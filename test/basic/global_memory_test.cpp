// acp_malloc / acp_free: blocks allocated on any rank from any rank, used
// by a third, freed by it; the owner need not call anything; a block the
// application registers itself is reached as the block is; errors for
// what cannot be allocated or freed.
#include <unistd.h>

#include <cstring>

#include "../../basic/layer.hpp"
#include "../mp_util.hpp"
#include "../report_util.hpp"

using namespace acpx::test;

namespace {

// A registered buffer of this rank holding `pattern(seed)`.
struct Source {
    std::vector<unsigned char> bytes;
    acp_atkey_t key = ACP_ATKEY_NULL;
    acp_ga_t ga = ACP_GA_NULL;
    Source(size_t n, uint64_t seed) : bytes(n) {
        fill_pattern(bytes.data(), n, seed);
        key = acp_register_memory(bytes.data(), n, 0);
        ga = acp_query_ga(key, bytes.data());
    }
    ~Source() { acp_unregister_memory(key); }
};

}  // namespace

TEST(GlobalMemory, OwnBlocksAreZeroedAlignedAndLocallyAddressable) {
    std::vector<acp_ga_t> blocks;
    for (size_t size : {1, 63, 64, 100, 4096, 3 << 20}) {  // the last one past the first arena
        const acp_ga_t g = acp_malloc(size, me());
        ASSERT_NE(g, ACP_GA_NULL) << size;
        EXPECT_EQ(acp_query_rank(g), me());
        auto *p = static_cast<unsigned char *>(acp_query_address(g));
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
        EXPECT_EQ(first_not(p, size, 0), -1) << "not zeroed";
        std::memset(p, 0xab, size);  // the whole block is writable
        blocks.push_back(g);
    }
    for (acp_ga_t g : blocks) acp_free(g);
    // Freed and asked again (the freed blocks are reused, heap_test.cpp):
    // zeroed again.
    const acp_ga_t a = acp_malloc(4096, me());
    ASSERT_NE(a, ACP_GA_NULL);
    EXPECT_EQ(first_not(static_cast<unsigned char *>(acp_query_address(a)), 4096, 0), -1);
    acp_free(a);
}

// Rank r allocates on r+1; rank r+2 (a third rank, where there is one)
// writes into it and frees it; the owner reads it locally.
TEST(GlobalMemory, AllocatedOnAnyRankUsedAndFreedByAThird) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    const int owner = (me() + 1) % np(), user = (me() + 2) % np();
    constexpr size_t kBytes = 100000;
    const acp_ga_t mine = acp_malloc(kBytes, owner);
    ASSERT_NE(mine, ACP_GA_NULL);
    EXPECT_EQ(acp_query_rank(mine), owner);
    const auto gas = allgather_u64(mine);
    // This rank is the user of the block that rank (me - 2) allocated.
    const int alloc_by = (me() - 2 + 2 * np()) % np();
    const acp_ga_t used = gas[alloc_by];
    Source src(kBytes, 100 + alloc_by);
    const acp_handle_t h = acp_copy(used, src.ga, kBytes, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    EXPECT_EQ(acp_inquire(h), 0);
    acp_sync();
    // This rank owns the block that rank (me - 1) allocated.
    const int owned_from = (me() - 1 + np()) % np();
    auto *p = static_cast<unsigned char *>(acp_query_address(gas[owned_from]));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(first_mismatch(p, kBytes, 100 + owned_from), -1);
    acp_sync();
    EXPECT_EQ(stderr_of([&] { acp_free(used); }), "") << "rank " << user;
    acp_sync();
}

// A direct collective's array, a channel's buffer: the application
// registers memory that acp_malloc gave it. Its on-node peers reach that
// registration as they reach the block (mapped: a copy is a memcpy, no
// system call), and bytes written through either arrive.
TEST(GlobalMemory, ARegisteredBlockIsReachedAsTheBlockIs) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    constexpr size_t kBytes = 10000;
    const acp_ga_t block = acp_malloc(kBytes, me());
    ASSERT_NE(block, ACP_GA_NULL);
    char *at = static_cast<char *>(acp_query_address(block));
    // A registration of the block's middle, as a user's array would be.
    const acp_atkey_t key = acp_register_memory(at + 64, kBytes - 128, 0);
    ASSERT_NE(key, ACP_ATKEY_NULL);
    const acp_ga_t registered = acp_query_ga(key, at + 64);
    const auto blocks = allgather_u64(block), regs = allgather_u64(registered);
    const int next = (me() + 1) % np(), prev = (me() + np() - 1) % np();
    const bool block_mapped = acpx::basic::layer::mapped(blocks[next], kBytes).ptr != nullptr;
    const bool reg_mapped = acpx::basic::layer::mapped(regs[next], kBytes - 128).ptr != nullptr;
    EXPECT_EQ(reg_mapped, block_mapped) << "the registration is reached otherwise than its block";
    Source src(kBytes - 128, 300 + me());
    const acp_handle_t h = acp_copy(regs[next], src.ga, kBytes - 128, ACP_HANDLE_NULL);
    ASSERT_NE(h, ACP_HANDLE_NULL);
    acp_complete(h);
    EXPECT_EQ(acp_inquire(h), 0);
    acp_sync();
    EXPECT_EQ(first_mismatch(reinterpret_cast<unsigned char *>(at + 64), kBytes - 128, 300 + prev), -1);
    acp_sync();
    EXPECT_EQ(acp_unregister_memory(key), 0);
    acp_free(block);
}

// The owner computes (no acpx call) while another rank allocates, writes,
// reads back and frees its memory: its agent serves every request.
TEST(GlobalMemory, TheOwnerNeedNotCallAnything) {
    if (np() < 2) GTEST_SKIP() << "needs two ranks";
    auto *flag = static_cast<volatile uint64_t *>(acp_query_address(acp_query_starter_ga(me())));
    *flag = 0;
    acp_sync();
    if (me() == 1) {
        while (*flag == 0) {
        }
    } else if (me() == 0) {
        for (int i = 0; i < 50; ++i) {
            const acp_ga_t g = acp_malloc(256 + i, 1);
            ASSERT_NE(g, ACP_GA_NULL);
            Source src(256, i);
            std::vector<unsigned char> back(256);
            const acp_atkey_t kb = acp_register_memory(back.data(), back.size(), 0);
            acp_complete(acp_copy(g, src.ga, 256, ACP_HANDLE_NULL));
            acp_complete(acp_copy(acp_query_ga(kb, back.data()), g, 256, ACP_HANDLE_NULL));
            EXPECT_EQ(first_mismatch(back.data(), back.size(), i), -1);
            acp_unregister_memory(kb);
            acp_free(g);
        }
        Source one(8, 0);
        *reinterpret_cast<uint64_t *>(one.bytes.data()) = 1;
        acp_complete(acp_copy(acp_query_starter_ga(1), one.ga, 8, ACP_HANDLE_NULL));
    }
    acp_sync();
}

// Every rank allocates a counter on rank 0; every rank adds to each.
TEST(GlobalMemory, AtomicsOnBlocksOfAnotherRank) {
    const acp_ga_t counter = acp_malloc(8, 0);
    ASSERT_NE(counter, ACP_GA_NULL);
    const auto all = allgather_u64(counter);
    Source result(8, 0);
    for (int i = 0; i < 10; ++i)
        for (const acp_ga_t c : all) acp_complete(acp_add8(result.ga, c, 1, ACP_HANDLE_NULL));
    acp_sync();
    if (me() == 0) {
        for (int r = 0; r < np(); ++r) {
            EXPECT_EQ(*static_cast<uint64_t *>(acp_query_address(all[r])), static_cast<uint64_t>(10 * np()))
                << "the counter of rank " << r;
        }
    }
    acp_sync();
    acp_free(counter);
}

TEST(GlobalMemory, WhatCannotBeAllocatedIsReported) {
    const int other = (me() + 1) % np();
    acp_ga_t g = 1;
    EXPECT_REPORTS(stderr_of([&] { g = acp_malloc(0, me()); }), "acp_malloc", "size");
    EXPECT_EQ(g, ACP_GA_NULL);
    EXPECT_REPORTS(stderr_of([&] { g = acp_malloc(8, np()); }), "acp_malloc", "rank");
    EXPECT_EQ(g, ACP_GA_NULL);
    EXPECT_REPORTS(stderr_of([&] { g = acp_malloc(8, -1); }), "acp_malloc", "rank");
    EXPECT_EQ(g, ACP_GA_NULL);
    // Over ACP_MALLOC_LIMIT (auto: the node's memory / its ranks), here and
    // on another rank (its reason comes back). Refused before any memory
    // is taken. (Where that share reaches 16 GiB, the registration limit
    // refuses it instead.)
    const size_t huge = size_t{16} << 30;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const bool share_under_huge = static_cast<double>(pages) * static_cast<double>(page) / np() < 0.9 * huge;
    for (int on : {me(), other}) {
        if (!share_under_huge) break;  // it would be taken: 16 GiB of the test machine's memory
        const std::string err = stderr_of([&] { g = acp_malloc(huge, on); });
        EXPECT_EQ(g, ACP_GA_NULL);
        EXPECT_REPORTS(err, "acp_malloc", "size");
        EXPECT_TRUE(err.find("ACP_MALLOC_LIMIT") != std::string::npos ||
                    err.find("ACP_MAX_REGISTRATION_SIZE") != std::string::npos)
            << err;
    }
    EXPECT_REPORTS(stderr_of([&] { g = acp_malloc(size_t{17} << 30, other); }), "acp_malloc", "size");
    // Still usable afterwards.
    g = acp_malloc(8, other);
    EXPECT_NE(g, ACP_GA_NULL);
    acp_free(g);
}

TEST(GlobalMemory, WhatIsNotALiveBlockIsNotFreed) {
    const int other = (me() + 1) % np();
    const acp_ga_t g = acp_malloc(256, other);
    ASSERT_NE(g, ACP_GA_NULL);
    std::string err = stderr_of([&] { acp_free(g + 64); });
    EXPECT_REPORTS(err, "acp_free", "ga");
    EXPECT_NE(err.find("inside a block"), std::string::npos) << err;
    err = stderr_of([&] { acp_free(acp_query_starter_ga(other)); });
    EXPECT_REPORTS(err, "acp_free", "ga");
    EXPECT_NE(err.find("not memory of acp_malloc"), std::string::npos) << err;
    EXPECT_EQ(stderr_of([&] { acp_free(g); }), "");
    err = stderr_of([&] { acp_free(g); });
    EXPECT_REPORTS(err, "acp_free", "ga");
    EXPECT_NE(err.find("freed already"), std::string::npos) << err;
    EXPECT_EQ(stderr_of([&] { acp_free(ACP_GA_NULL); }), "");
}
