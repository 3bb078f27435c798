// k-nomial lists computed entry by entry equal the built lists.
#include <gtest/gtest.h>

#include "collectives/algorithms.hpp"
#include "collectives/stored_list.hpp"

using namespace acpx::collectives;

namespace {

void expect_same(uint32_t n, uint32_t root, unsigned k) {
    const CommandList built = bcast_block_list(k == 2 ? BcastAlgo::kBinomial : BcastAlgo::kKnomial, n, root, 0, k);
    const StoredList formula{KnomialList(n, root, k)};
    ASSERT_EQ(formula.size(), built.size()) << n << " members, root " << root << ", k " << k;
    for (uint32_t e = 0; e < built.size(); ++e) {
        const Command a = formula[e], b = built[e];
        ASSERT_TRUE(a.dst == b.dst && a.src == b.src && a.dep == b.dep)
            << n << " members, root " << root << ", k " << k << ", entry " << e << ": " << a.dst << "<-" << a.src
            << " after " << a.dep << ", built " << b.dst << "<-" << b.src << " after " << b.dep;
    }
}

}  // namespace

TEST(StoredList, KnomialFormulaIsTheBuiltList) {
    for (uint32_t n = 0; n <= 130; ++n)
        for (const unsigned k : {2u, 3u, 4u, 5u, 8u, 64u})
            for (const uint32_t root : {0u, 1u, n / 2, n ? n - 1 : 0}) expect_same(n, root, k);
    for (const uint32_t n : {1000u, 1024u, 1025u, 4095u, 65537u})
        for (const unsigned k : {2u, 4u, 7u}) expect_same(n, n / 3, k);
}

TEST(StoredList, AMillionMembersInNoMemory) {
    expect_same(1000003, 12345, 2);
    const StoredList formula{KnomialList(1u << 20, 0, 2)};
    EXPECT_EQ(formula.heap_bytes(), 0u);
    EXPECT_TRUE(formula.is_formula());
    EXPECT_EQ(check_list(CommandList{}, 1, 0), "");
}
