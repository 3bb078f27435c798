// Atomics: results land in the caller's dst, operations apply at src, and
// they stay atomic when every rank hammers the same word.
#include "../mp_util.hpp"

using namespace acpx::test;

namespace {
constexpr int kIters = 2000;
}

TEST(Atomic, AddUnderContentionIsExact) {
    SharedBuffer b(16);  // rank 0's words 0 (4-byte) and 1 (8-byte) are the counters
    uint64_t old8 = 0;
    uint32_t old4 = 0;
    acp_atkey_t k8 = acp_register_memory(&old8, 8, 0), k4 = acp_register_memory(&old4, 4, 0);
    for (int i = 0; i < kIters; ++i) {
        ASSERT_NE(acp_add8(acp_query_ga(k8, &old8), b.ga[0] + 8, 3, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
        ASSERT_NE(acp_add4(acp_query_ga(k4, &old4), b.ga[0], 1, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    }
    acp_complete(ACP_HANDLE_ALL);
    acp_sync();
    if (me() == 0) {
        uint64_t v8;
        uint32_t v4;
        std::memcpy(&v4, b.data.data(), 4);
        std::memcpy(&v8, b.data.data() + 8, 8);
        EXPECT_EQ(v4, static_cast<uint32_t>(kIters * np()));
        EXPECT_EQ(v8, static_cast<uint64_t>(3 * kIters * np()));
    }
    acp_sync();
    acp_unregister_memory(k8);
    acp_unregister_memory(k4);
}

TEST(Atomic, FetchedValuesAreDistinct) {
    // Every fetch-and-add returns a distinct old value: 0 .. n*iters-1 once each.
    SharedBuffer b(8);
    const int target = np() - 1;
    std::vector<uint64_t> got(200);
    acp_atkey_t k = acp_register_memory(got.data(), got.size() * 8, 0);
    for (size_t i = 0; i < got.size(); ++i) {
        acp_handle_t h = acp_add8(acp_query_ga(k, &got[i]), b.ga[target], 1, ACP_HANDLE_NULL);
        ASSERT_NE(h, ACP_HANDLE_NULL);
        acp_complete(h);
    }
    acp_sync();
    // Gather everyone's fetched values at every rank through a shared buffer.
    SharedBuffer all(got.size() * 8 * np());
    acp_handle_t h = ACP_HANDLE_NULL;
    for (int r = 0; r < np(); ++r)
        h = acp_copy(all.ga[r] + got.size() * 8 * me(), acp_query_ga(k, got.data()), got.size() * 8, ACP_HANDLE_NULL);
    acp_complete(h);
    acp_sync();
    std::vector<int> seen(got.size() * np(), 0);
    auto *vals = reinterpret_cast<const uint64_t *>(all.data.data());
    for (size_t i = 0; i < seen.size(); ++i) {
        ASSERT_LT(vals[i], seen.size());
        ++seen[vals[i]];
    }
    for (size_t v = 0; v < seen.size(); ++v) EXPECT_EQ(seen[v], 1) << "value " << v;
    acp_unregister_memory(k);
}

TEST(Atomic, CasLockedCounter) {
    // A lock word and a plain counter on rank 0: increment the counter only
    // while holding the lock taken with cas; the total must be exact.
    SharedBuffer b(16);
    uint64_t res = 0, val = 0;
    acp_atkey_t k = acp_register_memory(&res, 8, 0), kv = acp_register_memory(&val, 8, 0);
    const acp_ga_t lock = b.ga[0], counter = b.ga[0] + 8;
    const acp_ga_t r = acp_query_ga(k, &res), v = acp_query_ga(kv, &val);
    for (int i = 0; i < 200; ++i) {
        do {
            acp_complete(acp_cas8(r, lock, 0, static_cast<uint64_t>(me()) + 1, ACP_HANDLE_NULL));
        } while (res != 0);
        acp_complete(acp_copy(v, counter, 8, ACP_HANDLE_NULL));
        ++val;
        acp_complete(acp_copy(counter, v, 8, ACP_HANDLE_NULL));
        acp_complete(acp_swap8(r, lock, 0, ACP_HANDLE_NULL));
        EXPECT_EQ(res, static_cast<uint64_t>(me()) + 1);  // we held it
    }
    acp_sync();
    if (me() == 0) {
        uint64_t total;
        std::memcpy(&total, b.data.data() + 8, 8);
        EXPECT_EQ(total, 200u * np());
    }
    acp_sync();
    acp_unregister_memory(k);
    acp_unregister_memory(kv);
}

TEST(Atomic, BitOperationsFromEveryRank) {
    // Layout at rank 0: or8 @0, and8 @8, xor8 @16, or4 @24, and4 @28, xor4 @32.
    SharedBuffer b(40);
    if (me() == 0) {
        const uint64_t ones = ~0ULL;
        std::memcpy(b.data.data() + 8, &ones, 8);  // and-targets start all ones
        const uint32_t ones4 = ~0U;
        std::memcpy(b.data.data() + 28, &ones4, 4);
    }
    acp_sync();
    uint64_t out = 0;
    uint32_t out4 = 0;
    acp_atkey_t k = acp_register_memory(&out, 8, 0), k4 = acp_register_memory(&out4, 4, 0);
    const acp_ga_t o = acp_query_ga(k, &out), o4 = acp_query_ga(k4, &out4);
    const uint64_t bit = 1ULL << me();
    acp_complete(acp_or8(o, b.ga[0], bit, ACP_HANDLE_NULL));
    acp_complete(acp_and8(o, b.ga[0] + 8, ~bit, ACP_HANDLE_NULL));
    acp_complete(acp_xor8(o, b.ga[0] + 16, bit | (1ULL << 40), ACP_HANDLE_NULL));
    acp_complete(acp_or4(o4, b.ga[0] + 24, static_cast<uint32_t>(bit), ACP_HANDLE_NULL));
    acp_complete(acp_and4(o4, b.ga[0] + 28, static_cast<uint32_t>(~bit), ACP_HANDLE_NULL));
    acp_complete(acp_xor4(o4, b.ga[0] + 32, static_cast<uint32_t>(bit), ACP_HANDLE_NULL));
    acp_sync();
    if (me() == 0) {
        const uint64_t all = (1ULL << np()) - 1;
        uint64_t w[2];
        uint32_t h[3];
        std::memcpy(w, b.data.data(), 16);
        std::memcpy(h, b.data.data() + 24, 12);
        EXPECT_EQ(w[0], all);
        EXPECT_EQ(w[1], ~all);
        uint64_t x;
        std::memcpy(&x, b.data.data() + 16, 8);
        EXPECT_EQ(x, all ^ ((np() % 2) ? (1ULL << 40) : 0));
        EXPECT_EQ(h[0], static_cast<uint32_t>(all));
        EXPECT_EQ(h[1], static_cast<uint32_t>(~all));
        EXPECT_EQ(h[2], static_cast<uint32_t>(all));
    }
    acp_sync();
    acp_unregister_memory(k);
    acp_unregister_memory(k4);
}

TEST(Atomic, SwapAndCasReturnOldValue) {
    SharedBuffer b(16);
    const int peer = (me() + 1) % np();
    // Each rank works on its peer's word 0 (written only by this rank).
    uint64_t out = 0;
    uint32_t out4 = 0;
    acp_atkey_t k = acp_register_memory(&out, 8, 0), k4 = acp_register_memory(&out4, 4, 0);
    const acp_ga_t o = acp_query_ga(k, &out), o4 = acp_query_ga(k4, &out4);
    acp_complete(acp_swap8(o, b.ga[peer], 42, ACP_HANDLE_NULL));
    EXPECT_EQ(out, 0u);
    acp_complete(acp_cas8(o, b.ga[peer], 41, 7, ACP_HANDLE_NULL));  // fails: value is 42
    EXPECT_EQ(out, 42u);
    acp_complete(acp_cas8(o, b.ga[peer], 42, 7, ACP_HANDLE_NULL));  // succeeds
    EXPECT_EQ(out, 42u);
    acp_complete(acp_swap8(o, b.ga[peer], 0, ACP_HANDLE_NULL));
    EXPECT_EQ(out, 7u);
    acp_complete(acp_swap4(o4, b.ga[peer] + 8, 5, ACP_HANDLE_NULL));
    acp_complete(acp_cas4(o4, b.ga[peer] + 8, 5, 9, ACP_HANDLE_NULL));
    EXPECT_EQ(out4, 5u);
    acp_complete(acp_add4(o4, b.ga[peer] + 8, 1, ACP_HANDLE_NULL));
    EXPECT_EQ(out4, 9u);
    acp_sync();
    acp_unregister_memory(k);
    acp_unregister_memory(k4);
}

TEST(Atomic, AddOnStarterMemoryUnderContention) {
    // Starter memory is mapped by on-node peers, so their atomics are CPU
    // atomics on the shared page; the owner's own go the same way. Mixed
    // with every other rank's, the sum must still be exact.
    const acp_ga_t counter = acp_query_starter_ga(0) + 8192;
    uint64_t old = 0;
    acp_atkey_t k = acp_register_memory(&old, 8, 0);
    for (int i = 0; i < kIters; ++i)
        ASSERT_NE(acp_add8(acp_query_ga(k, &old), counter, 1, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    acp_complete(ACP_HANDLE_ALL);
    acp_sync();
    if (me() == 0) {
        uint64_t v;
        std::memcpy(&v, static_cast<char *>(acp_query_address(counter)), 8);
        EXPECT_EQ(v, static_cast<uint64_t>(kIters) * np());
    }
    acp_sync();
    acp_unregister_memory(k);
}
