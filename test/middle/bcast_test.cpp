// Persistent broadcast, direct and buffered: every root, whole, permuted
// and partial groups, sizes 0..1 MiB+1, nonzero offsets, rounds larger
// than the buffer; in both execution modes and with every algorithm.
#include "col_util.hpp"

using namespace acpx::test;

namespace {

class Bcast : public ::testing::TestWithParam<ColConfig> {
  protected:
    void SetUp() override {
        exec_ = std::make_unique<ScopedEnv>("ACP_COL_EXEC", GetParam().exec);
        algo_ = std::make_unique<ScopedEnv>("ACP_COL_BCAST_ALGO", GetParam().algo);
    }
    std::unique_ptr<ScopedEnv> exec_, algo_;
};

constexpr unsigned char kUntouched = 0xEE;

// One direct round of [offset, offset+size) from root; checks every byte
// of the array on this member.
void direct_round(acp_col_t h, std::vector<unsigned char> &a, int root, size_t offset, size_t size, uint64_t seed) {
    std::fill(a.begin(), a.end(), kUntouched);
    if (me() == root) fill_pattern(a.data() + offset, size, seed);
    acp_request_t r = acp_send_bcast_direct(h, offset, size);
    ASSERT_NE(r, ACP_REQUEST_NULL);
    ASSERT_EQ(acp_wait_col(r), 0);
    EXPECT_EQ(first_mismatch(a.data() + offset, size, seed), -1)
        << "root " << root << " offset " << offset << " size " << size;
    ASSERT_EQ(first_not(a.data(), offset, kUntouched), -1) << "a byte before the range changed";
    const long after = first_not(a.data() + offset + size, a.size() - offset - size, kUntouched);
    ASSERT_EQ(after, -1) << "byte " << offset + size + after << " after the range changed";
}

}  // namespace

TEST_P(Bcast, DirectEveryRootShapeAndSize) {
    const std::vector<size_t> sizes = {0, 1, 7, 4096, (1 << 20) + 1};
    for (Shape s : {Shape::kAll, Shape::kPermuted, Shape::kPartial}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;  // non-members go on with the next shape
        for (int root : g) {
            std::vector<unsigned char> a((1 << 20) + 64);
            acp_col_t h = acp_create_bcast_direct(root, static_cast<int>(g.size()), g.data(), a.data(), a.size());
            ASSERT_NE(h, ACP_COL_NULL) << name_of(s) << " root " << root;
            for (size_t n : sizes) direct_round(h, a, root, 0, n, n * 31 + root);
            direct_round(h, a, root, 13, 4096, 77);         // nonzero offset
            direct_round(h, a, root, a.size() - 5, 5, 78);  // range ending at the array's end
            EXPECT_EQ(acp_free_col(h), 0);
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST_P(Bcast, BufferedEveryRootWithSegments) {
    // 1000-byte buffer: 4096, 64 KiB+1 and 1 MiB+1 go in 5, 66 and 1049
    // segments. 1049 segments (more than the 256 a ready byte counts) once
    // per algorithm, from the first root of the whole group; 66 from the
    // others, which is as many as a segment's cut needs and spares the
    // tcp and two-host suites a minute each. The multi-block algorithms
    // cut each segment again into blocks of 64+ bytes: 66 segments there.
    const std::string algo = GetParam().algo;
    const bool blocks = algo.rfind("pipeline", 0) == 0 || algo == "scatter_ring";
    for (Shape s : {Shape::kAll, Shape::kPermuted, Shape::kPartial}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        for (int root : g) {
            acp_col_t h = acp_create_bcast_buffered(root, static_cast<int>(g.size()), g.data(), 1000);
            ASSERT_NE(h, ACP_COL_NULL);
            const bool longest = !blocks && s == Shape::kAll && root == g[0];
            for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}, size_t{4096},
                             longest ? (size_t{1} << 20) + 1 : (size_t{1} << 16) + 1}) {
                // A different array every round, as buffered handles allow.
                std::vector<unsigned char> a(n + 1, kUntouched);
                if (me() == root) fill_pattern(a.data(), n, n + 5 * root);
                acp_request_t r = acp_send_bcast_buffered(h, a.data(), n);
                ASSERT_NE(r, ACP_REQUEST_NULL);
                ASSERT_EQ(acp_wait_col(r), 0);
                EXPECT_EQ(first_mismatch(a.data(), n, n + 5 * root), -1) << "size " << n;
                EXPECT_EQ(a[n], kUntouched) << "wrote past size";
            }
            EXPECT_EQ(acp_free_col(h), 0);
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}

// Rounds above every inline cap (64 KiB) on a 256 KiB buffer: to members
// on the root's node they go straight into the members' arrays
// (round.cpp, put_in_place), elsewhere through the buffers. One segment,
// three (the last 88 KiB), and three whose last is 100 bytes (inline
// again); arrays at odd addresses, a new one every round; the root's array
// is only read, nothing past `size` is written.
TEST_P(Bcast, BufferedRoundsAboveTheInlineSlots) {
    constexpr size_t kBuffer = 256 << 10;
    for (Shape s : {Shape::kAll, Shape::kPermuted}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        for (int root : g) {
            acp_col_t h = acp_create_bcast_buffered(root, static_cast<int>(g.size()), g.data(), kBuffer);
            ASSERT_NE(h, ACP_COL_NULL);
            uint64_t seed = 100 * static_cast<uint64_t>(root);
            for (size_t n : {size_t{200 << 10} + 3, size_t{600 << 10} + 5, 2 * kBuffer + 100, size_t{200 << 10} + 3}) {
                ++seed;
                std::vector<unsigned char> store(n + 2, kUntouched);
                unsigned char *a = store.data() + 1;
                if (me() == root) fill_pattern(a, n, seed);
                acp_request_t r = acp_send_bcast_buffered(h, a, n);
                ASSERT_NE(r, ACP_REQUEST_NULL);
                ASSERT_EQ(acp_wait_col(r), 0);
                EXPECT_EQ(first_mismatch(a, n, seed), -1) << "root " << root << " size " << n;
                EXPECT_EQ(store[0], kUntouched) << "wrote before the array";
                EXPECT_EQ(store[n + 1], kUntouched) << "wrote past size";
            }
            EXPECT_EQ(acp_free_col(h), 0);
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Bcast,
                         ::testing::Values(ColConfig{"delegated", "binomial"}, ColConfig{"delegated", "binary"},
                                           ColConfig{"delegated", "knomial:3"}, ColConfig{"delegated", "chain"},
                                           ColConfig{"delegated", "pipeline:3"}, ColConfig{"delegated", "scatter_ring"},
                                           ColConfig{"root", "binomial"}, ColConfig{"root", "knomial"},
                                           ColConfig{"root", "binary"}, ColConfig{"root", "pipeline:5"},
                                           ColConfig{"root", "scatter_ring"},
                                           // Across nodes (the two-host suites) a tree among the nodes,
                                           // then on each; on one node the flat tree.
                                           ColConfig{"delegated", "hier:binomial"},
                                           ColConfig{"root", "hier:knomial:3"}),
                         [](const auto &info) { return config_name(info.param); });
