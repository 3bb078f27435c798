// Persistent allgather, direct and buffered: whole, permuted and partial
// groups, sizes 0..1 MiB+1, nonzero offsets, rounds larger than the
// buffer; both execution modes and every algorithm (neighbor exchange:
// refused with a reason on odd groups).
#include "../report_util.hpp"
#include "col_util.hpp"

using namespace acpx::test;

namespace {

class Allgather : public ::testing::TestWithParam<ColConfig> {
  protected:
    void SetUp() override {
        exec_ = std::make_unique<ScopedEnv>("ACP_COL_EXEC", GetParam().exec);
        algo_ = std::make_unique<ScopedEnv>("ACP_COL_ALLGATHER_ALGO", GetParam().algo);
    }
    std::unique_ptr<ScopedEnv> exec_, algo_;
};

constexpr unsigned char kUntouched = 0xEE;

uint64_t seed_of(int rank, size_t size, uint64_t round) { return rank * 1000003ULL + size * 7 + round; }

// Neighbor exchange needs an even group: on an odd one, create must fail
// on every member alike, saying why (checked by refuses()).
bool odd_neighbor(const char *algo, size_t n) { return std::string(algo) == "neighbor" && n % 2 != 0; }

template <class Create>
void refuses(const char *fn, Create create) {
    acp_col_t h = ACP_COL_NULL;
    EXPECT_REPORTS(stderr_of([&] { h = create(); }), fn, "ACP_COL_ALLGATHER_ALGO");
    EXPECT_EQ(h, ACP_COL_NULL);
}

// A buffered allgather of buffersize over g; ACP_COL_NULL where algo
// cannot run over g (odd_neighbor), once every member refused it.
acp_col_t buffered_or_refused(const char *algo, std::vector<int> &g, size_t buffersize) {
    auto create = [&] { return acp_create_allgather_buffered(static_cast<int>(g.size()), g.data(), buffersize); };
    if (odd_neighbor(algo, g.size())) return refuses("acp_create_allgather_buffered", create), ACP_COL_NULL;
    return create();
}

// One buffered round of `size` bytes from `in` into `out` (np_group x
// size), waited; every block must hold its member's pattern of `round`.
void buffered_round(acp_col_t h, const std::vector<int> &g, const unsigned char *in, unsigned char *out, size_t size,
                    uint64_t round, const char *what) {
    acp_request_t r = acp_send_allgather_buffered(h, in, out, size);
    ASSERT_NE(r, ACP_REQUEST_NULL) << what << " size " << size;
    ASSERT_EQ(acp_wait_col(r), 0) << what << " size " << size;
    for (size_t b = 0; b < g.size(); ++b)
        EXPECT_EQ(first_mismatch(out + b * size, size, seed_of(g[b], size, round)), -1)
            << what << " block " << b << " size " << size;
}

}  // namespace

TEST_P(Allgather, DirectEveryShapeAndSize) {
    const size_t block = (1 << 20) + 16;
    const std::vector<size_t> sizes = {0, 1, 7, 4096, (1 << 20) + 1};
    for (Shape s : {Shape::kAll, Shape::kPermuted, Shape::kPartial}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        const size_t n = g.size();
        const int mine = index_in(g, me());
        std::vector<unsigned char> a(n * block);
        auto create = [&] { return acp_create_allgather_direct(static_cast<int>(n), g.data(), a.data(), block); };
        if (odd_neighbor(GetParam().algo, n)) {
            refuses("acp_create_allgather_direct", create);
            continue;
        }
        acp_col_t h = create();
        ASSERT_NE(h, ACP_COL_NULL) << name_of(s);
        uint64_t round = 0;
        auto run = [&](size_t offset, size_t size) {
            ++round;
            std::fill(a.begin(), a.end(), kUntouched);
            fill_pattern(a.data() + mine * block + offset, size, seed_of(me(), size, round));
            acp_request_t r = acp_send_allgather_direct(h, offset, size);
            ASSERT_NE(r, ACP_REQUEST_NULL);
            ASSERT_EQ(acp_wait_col(r), 0);
            for (size_t b = 0; b < n; ++b) {
                const unsigned char *blk = a.data() + b * block;
                EXPECT_EQ(first_mismatch(blk + offset, size, seed_of(g[b], size, round)), -1)
                    << name_of(s) << " block " << b << " size " << size << " offset " << offset;
                ASSERT_EQ(first_not(blk, offset, kUntouched), -1) << "block " << b << ": before the range";
                const long after = first_not(blk + offset + size, block - offset - size, kUntouched);
                ASSERT_EQ(after, -1) << "block " << b << " byte " << offset + size + after;
            }
        };
        for (size_t sz : sizes) run(0, sz);
        run(3, 4096);
        run(block - 9, 9);
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

TEST_P(Allgather, BufferedWithSegments) {
    const std::vector<size_t> sizes = {0, 1, 7, 999, 4096, (1 << 18) + 1};
    for (Shape s : {Shape::kAll, Shape::kPermuted, Shape::kPartial}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        const size_t n = g.size();
        acp_col_t h = buffered_or_refused(GetParam().algo, g, 1000);
        if (odd_neighbor(GetParam().algo, n)) continue;
        ASSERT_NE(h, ACP_COL_NULL);
        uint64_t round = 0;
        for (size_t sz : sizes) {
            ++round;
            std::vector<unsigned char> in(sz), out(n * sz + 1, kUntouched);
            fill_pattern(in.data(), sz, seed_of(me(), sz, round));
            ASSERT_NO_FATAL_FAILURE(buffered_round(h, g, in.data(), out.data(), sz, round, name_of(s)));
            EXPECT_EQ(out[n * sz], kUntouched) << "wrote past np_group x size";
        }
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

// Blocks above every inline cap (16 KiB) on a 64 KiB buffer: to members
// on the sender's node they go straight into the receivers' recvbufs
// (round.cpp, put_in_place), elsewhere through the buffers. One segment,
// two (the second 36 KiB), and three whose last is 20 bytes (inline
// again); arrays at odd addresses, new ones every round.
TEST_P(Allgather, BufferedBlocksAboveTheInlineSlots) {
    constexpr size_t kBuffer = 64 << 10;
    for (Shape s : {Shape::kAll, Shape::kPermuted}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        const size_t n = g.size();
        acp_col_t h = buffered_or_refused(GetParam().algo, g, kBuffer);
        if (odd_neighbor(GetParam().algo, n)) continue;
        ASSERT_NE(h, ACP_COL_NULL);
        uint64_t round = 0;
        for (size_t sz : {size_t{40 << 10}, size_t{100 << 10} + 3, 2 * kBuffer + 20, size_t{40 << 10}}) {
            ++round;
            std::vector<unsigned char> in(sz + 1), out(n * sz + 2, kUntouched);
            fill_pattern(in.data() + 1, sz, seed_of(me(), sz, round));
            ASSERT_NO_FATAL_FAILURE(buffered_round(h, g, in.data() + 1, out.data() + 1, sz, round, name_of(s)));
            EXPECT_EQ(out[0], kUntouched) << "wrote before recvbuf";
            EXPECT_EQ(out[n * sz + 1], kUntouched) << "wrote past np_group x size";
        }
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

// In place: sendbuf is this member's own block of recvbuf (as
// MPI_IN_PLACE); the blocks land around it, inline, above the slots and
// in segments (64 KiB buffer). A sendbuf that overlaps recvbuf otherwise
// is refused, reported, and the next round works.
TEST_P(Allgather, BufferedInPlace) {
    constexpr size_t kBuffer = 64 << 10;
    for (Shape s : {Shape::kAll, Shape::kPermuted}) {
        std::vector<int> g = make_group(s);
        if (!member_of(g)) continue;
        const size_t n = g.size(), mine = static_cast<size_t>(index_in(g, me()));
        acp_col_t h = buffered_or_refused(GetParam().algo, g, kBuffer);
        if (odd_neighbor(GetParam().algo, n)) continue;
        ASSERT_NE(h, ACP_COL_NULL);
        uint64_t round = 0;
        for (size_t sz : {size_t{7}, size_t{999}, size_t{40 << 10}, 2 * kBuffer + 20}) {
            ++round;
            std::vector<unsigned char> out(n * sz + 1, kUntouched);
            unsigned char *own = out.data() + mine * sz;
            fill_pattern(own, sz, seed_of(me(), sz, round));
            ASSERT_NO_FATAL_FAILURE(buffered_round(h, g, own, out.data(), sz, round, name_of(s)));
            EXPECT_EQ(out[n * sz], kUntouched) << "wrote past np_group x size";
        }
        std::vector<unsigned char> out(n * 64 + 1);
        acp_request_t r = ACP_REQUEST_NULL;
        EXPECT_REPORTS(
            stderr_of([&] { r = acp_send_allgather_buffered(h, out.data() + mine * 64 + 1, out.data(), 64); }),
            "acp_send_allgather_buffered", "sendbuf");
        EXPECT_EQ(r, ACP_REQUEST_NULL) << "a sendbuf across two blocks of recvbuf";
        std::vector<unsigned char> in(64);
        fill_pattern(in.data(), 64, seed_of(me(), 64, 99));
        ASSERT_NO_FATAL_FAILURE(buffered_round(h, g, in.data(), out.data(), 64, 99, name_of(s)));
        EXPECT_EQ(acp_free_col(h), 0);
    }
    EXPECT_EQ(acp_sync(), 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, Allgather,
                         ::testing::Values(ColConfig{"delegated", "tree"}, ColConfig{"delegated", "ring"},
                                           ColConfig{"delegated", "bruck"}, ColConfig{"delegated", "recdoubling"},
                                           ColConfig{"delegated", "neighbor"}, ColConfig{"root", "tree"},
                                           ColConfig{"root", "ring"}, ColConfig{"root", "bruck"},
                                           ColConfig{"delegated", "hier:tree"}),
                         [](const auto &info) { return config_name(info.param); });
