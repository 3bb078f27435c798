// basic/huge_pages: which blocks of a registration are collapsed onto huge
// pages, and that nothing else changes: the bytes, the memory around the
// range, the pages a sparse block lacks.
#include "basic/huge_pages.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "test/smaps_util.hpp"

namespace hp = acpx::basic::huge_pages;

namespace {

// A private anonymous mapping of `blocks` 2 MiB blocks, the first 2 MiB-aligned.
struct Blocks {
    void *map = MAP_FAILED;
    size_t map_bytes = 0;
    char *at = nullptr;
    explicit Blocks(size_t blocks) : map_bytes((blocks + 1) * kHugeBlock) {
        map = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map != MAP_FAILED) at = align_up_2m<char>(map);
    }
    ~Blocks() {
        if (map != MAP_FAILED) munmap(map, map_bytes);
    }
};

unsigned char byte_at(size_t i) { return static_cast<unsigned char>(i * 131 + (i >> 12)); }

size_t resident_pages(char *from, size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in(bytes / page);
    if (mincore(from, bytes, in.data()) != 0) return SIZE_MAX;
    size_t n = 0;
    for (unsigned char v : in) n += v & 1;
    return n;
}

}  // namespace

TEST(HugePages, InteriorIsTheWholeAlignedBlocksInside) {
    char *first = nullptr;
    size_t bytes = 1;
    auto *base = reinterpret_cast<char *>(uintptr_t{64} << 30);  // 2 MiB-aligned; never touched
    hp::interior(base, 4 * kHugeBlock, &first, &bytes);
    EXPECT_EQ(first, base);
    EXPECT_EQ(bytes, 4 * kHugeBlock);
    hp::interior(base + 16, 4 * kHugeBlock, &first, &bytes);  // the last block is cut short
    EXPECT_EQ(first, base + kHugeBlock);
    EXPECT_EQ(bytes, 3 * kHugeBlock);
    hp::interior(base + 16, 2 * kHugeBlock - 32, &first, &bytes);  // none whole
    EXPECT_EQ(bytes, 0u);
    hp::interior(base, kHugeBlock - 1, &first, &bytes);
    EXPECT_EQ(bytes, 0u);
    hp::interior(base - 1, kHugeBlock + 1, &first, &bytes);  // ends exactly at a block's end
    EXPECT_EQ(first, base);
    EXPECT_EQ(bytes, kHugeBlock);
    hp::interior(reinterpret_cast<char *>(UINTPTR_MAX - kHugeBlock), SIZE_MAX / 2, &first, &bytes);  // wraps
    EXPECT_EQ(bytes, 0u);
}

TEST(HugePages, CollapsesResidentBlocksAndKeepsEveryByte) {
    if (!kernel_collapses()) GTEST_SKIP() << "this kernel does not collapse on request (MADV_COLLAPSE)";
    Blocks b(5);
    ASSERT_NE(b.map, MAP_FAILED);
    // Blocks 0-2 written whole; block 3 only its first page.
    for (size_t i = 0; i < 3 * kHugeBlock + 4096; ++i) b.at[i] = static_cast<char>(byte_at(i));
    ASSERT_EQ(huge_kib_at(b.at), 0) << "the test's own memory started on huge pages";
    // The range runs from 100 bytes into block 0 to 100 bytes into block 4:
    // blocks 1-3 are inside whole, but 3 is sparse.
    const size_t done = hp::collapse(b.at + 100, 4 * kHugeBlock);
    EXPECT_EQ(done, 2 * kHugeBlock);
    EXPECT_EQ(huge_kib_at(b.at), long{2 * kHugeBlock / 1024});
    for (size_t i = 0; i < 3 * kHugeBlock + 4096; ++i)
        ASSERT_EQ(static_cast<unsigned char>(b.at[i]), byte_at(i)) << "byte " << i;
    EXPECT_EQ(resident_pages(b.at + 3 * kHugeBlock, kHugeBlock), 1u) << "the sparse block was filled in";
}

TEST(HugePages, NothingToCollapseIsNoError) {
    Blocks b(1);
    ASSERT_NE(b.map, MAP_FAILED);
    EXPECT_EQ(hp::collapse(b.at, kHugeBlock), 0u);  // never touched: no page to collapse
    EXPECT_EQ(resident_pages(b.at, kHugeBlock), 0u);
    char small[64] = {};
    EXPECT_EQ(hp::collapse(small, sizeof small), 0u);
}
