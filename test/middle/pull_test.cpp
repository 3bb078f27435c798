// A direct handle's delegated rounds above the inline slots, between
// members of one node, are read by each receiver out of its sender's
// array (round.cpp, publish_pull; ACP_COL_PULL). What the reads must keep
// from the copies they replace: a read that fails fails the round at the
// receiver, at its sender and below it, at once; and bytes read after
// their sender's round ended (timed out) are never taken as a success,
// since the application may have written its next round's bytes there.
#include <chrono>
#include <cstdlib>
#include <thread>

#include "../../basic/fault_injection.hpp"
#include "../report_util.hpp"
#include "basic/layer.hpp"
#include "col_util.hpp"

using namespace acpx::test;

namespace {

constexpr size_t kBytes = 100000;  // above every inline cap

// Why ranks 0 and 1 cannot exercise the reads here, or "".
std::string why_no_reads() {
    if (np() < 2) return "needs two ranks";
    if (acpx::basic::layer::node_id(0) != acpx::basic::layer::node_id(1)) return "ranks 0 and 1 are on two nodes";
    if (const char *deny = std::getenv("ACPX_TEST_DENY_CMA"); deny && *deny)
        return "Cross-Memory Attach refused: reads go through the transport";
    if (const char *cma = std::getenv("ACP_CMA"); cma && std::string(cma) == "0")
        return "ACP_CMA=0: blocks are written through the transport";
    return "";
}

// Delegated, inline slots as they come (a suite may turn them off, and
// with them the mapped slots a read is published in), reads on.
struct ReadsOn {
    ScopedEnv exec{"ACP_COL_EXEC", "delegated"}, inl{"ACP_COL_INLINE", "auto"}, pull{"ACP_COL_PULL", "1"};
    ScopedEnv algo{"ACP_COL_BCAST_ALGO", "chain"};  // 0 -> 1 -> 2 ...: rank 2 and on get their bytes through 1
};

// What ranks 0 and 1 say when rank 1's read of the head fails, and when
// the root's tail does.
constexpr const char *kReadFailedAtRoot = "a copy this rank issued failed: block 0, read from here by a receiver";
constexpr const char *kReadFailedAtRank1 = "block 0 from rank 0 could not be read out of that rank's array";
constexpr const char *kTailFailedAtRoot =
    "a copy this rank issued failed: block 0 to rank 1 (its tail, into its array)";
constexpr const char *kTailFailedAtRank1 = "block 0 from rank 0: its tail could not be written into this rank's array";

// A round (send()) with the fault `spec` (kind:N) armed at rank `at`: it
// fails on every rank at once, rank 0 saying `root_says`, rank 1
// `rank1_says`, the rank the fault was armed at that it was injected, the
// ranks below 1 that the block failed on its way to them.
template <class Send>
void expect_failed_round(Send send, int at, const std::string &spec, const char *root_says, const char *rank1_says) {
    if (me() == at) {
        ASSERT_EQ(acpx_test_fail(spec.c_str()), 0);
    }
    int rc = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::string err = stderr_of([&] { rc = acp_wait_col(send()); });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    acpx_test_fail((spec.substr(0, spec.find(':')) + ":1000000000").c_str());  // disarm what was not used
    EXPECT_EQ(rc, -1) << spec << ", rank " << me() << ": " << err;
    const char *says = me() == 0 ? root_says : me() == 1 ? rank1_says : "failed on its way here";
    EXPECT_NE(err.find(says), std::string::npos) << spec << ": " << err;
    if (me() == at) {
        EXPECT_NE(err.find("fault injected for a test"), std::string::npos) << spec << ": " << err;
    }
    EXPECT_LT(seconds, 0.5 * np() + 5) << "told at once, not at ACP_TIMEOUT";
}

}  // namespace

// Rank 1's read of the root's block fails (exec:1: the first copy it
// carries out for another rank): its round fails naming the read, the
// root's fails as a copy it issued, and every member below rank 1 gets a
// failed stamp in place of the bytes, all at once; the next rounds are
// whole everywhere. Then the same for the tail the root writes.
TEST(PulledRounds, AFailedReadOrTailFailsTheRoundAtTheReaderItsSenderAndBelow) {
    if (const std::string why = why_no_reads(); !why.empty()) GTEST_SKIP() << why;
    ReadsOn on;
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(kBytes);
    acp_col_t h = acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);  // the first round maps the slots
    if (me() == 0) fill_pattern(a.data(), a.size(), 1);
    expect_failed_round([&] { return acp_send_bcast_direct(h, 0, a.size()); }, 1, "exec:1", kReadFailedAtRoot,
                        kReadFailedAtRank1);
    for (uint64_t seed = 2; seed <= 3; ++seed) {
        if (me() == 0) fill_pattern(a.data(), a.size(), seed);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, a.size())), 0);
        EXPECT_EQ(first_mismatch(a.data(), a.size(), seed), -1) << "round " << seed;
    }
    // The root writes the tail while rank 1 reads the head (split_point).
    // A tail that fails (data:1: the tail is the copy the root starts)
    // fails the round at once everywhere, rank 1 waiting for the tail's
    // word rather than ending with the head alone.
    if (me() == 0) fill_pattern(a.data(), a.size(), 4);
    expect_failed_round([&] { return acp_send_bcast_direct(h, 0, a.size()); }, 0, "data:1", kTailFailedAtRoot,
                        kTailFailedAtRank1);
    // Whole at lengths around the page the head ends on.
    uint64_t seed = 5;
    for (size_t len : {size_t{16 * 1024 + 1}, size_t{2 * 4096 * 4 - 1}, size_t{2 * 4096 * 4}, size_t{2 * 4096 * 4 + 1}})
        for (int again = 0; again < 2; ++again, ++seed) {
            if (me() == 0) fill_pattern(a.data(), len, seed);
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h, 0, len)), 0) << len;
            EXPECT_EQ(first_mismatch(a.data(), len, seed), -1) << len << " bytes, round " << seed;
        }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// A buffered bcast's root splits its blocks as a direct one's does: rank
// 1 reads the head out of the root's array (the application's, not
// registered) straight into its own, while the root writes the tail
// there. Whole at lengths of one segment and of several (the buffer is
// kBytes), down a chain; a head that cannot be read (exec:1 at rank 1)
// and a tail that cannot be written (data:1 at the root) fail the round
// on every rank, named; the next rounds are whole.
TEST(PulledRounds, ABufferedRootSplitsItsBlocksAsADirectOneDoes) {
    if (const std::string why = why_no_reads(); !why.empty()) GTEST_SKIP() << why;
    ReadsOn on;
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(3 * kBytes);
    acp_col_t h = acp_create_bcast_buffered(0, np(), g.data(), kBytes);
    ASSERT_NE(h, ACP_COL_NULL);
    uint64_t seed = 1;
    auto whole = [&](size_t len) {
        if (me() == 0) fill_pattern(a.data(), len, seed);
        ASSERT_EQ(acp_wait_col(acp_send_bcast_buffered(h, a.data(), len)), 0) << len;
        EXPECT_EQ(first_mismatch(a.data(), len, seed), -1) << len << " bytes, round " << seed;
        ++seed;
    };
    for (size_t len : {size_t{40000}, kBytes, 2 * kBytes + 3}) whole(len);
    struct Fault {
        const char *spec;
        int at;
        const char *root_says, *rank1_says;
    };
    for (const Fault &f : {Fault{"exec:1", 1, kReadFailedAtRoot, kReadFailedAtRank1},
                           Fault{"data:1", 0, kTailFailedAtRoot, kTailFailedAtRank1}}) {
        if (me() == 0) fill_pattern(a.data(), kBytes, seed);
        ++seed;
        expect_failed_round([&] { return acp_send_bcast_buffered(h, a.data(), kBytes); }, f.at, f.spec, f.root_says,
                            f.rank1_says);
        for (size_t len : {kBytes, 2 * kBytes + 3}) whole(len);
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// Where Cross-Memory Attach turns out to be refused at the first copy (a
// seccomp profile; test/suites/middle_cma_denied_split_np2.sh runs this
// test alone, 2 ranks, so that copy is this round's), the root's tail
// goes by GMA and rank 1's head through the transport: the round is
// whole, and the next ones too. In the other suites CMA either works
// (the split is tested above) or was refused before this test.
TEST(PulledRounds, WhereCmaIsRefusedASplitBlockGoesThroughTheTransport) {
    const char *deny = std::getenv("ACPX_TEST_DENY_CMA");
    if (!deny || std::string(deny) != "1" || np() != 2)
        GTEST_SKIP() << "needs CMA refused at 2 ranks: test/suites/middle_cma_denied_split_np2.sh";
    if (acpx::basic::layer::node_id(0) != acpx::basic::layer::node_id(1)) GTEST_SKIP() << "ranks on two nodes";
    ReadsOn on;
    std::vector<int> g = {0, 1};
    std::vector<unsigned char> a(kBytes);
    acp_col_t h = acp_create_bcast_direct(0, 2, g.data(), a.data(), a.size());
    ASSERT_NE(h, ACP_COL_NULL);
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        if (me() == 0) fill_pattern(a.data(), a.size(), seed);
        int rc = 0;
        const std::string err = stderr_of([&] { rc = acp_wait_col(acp_send_bcast_direct(h, 0, a.size())); });
        std::fputs(err.c_str(), stderr);  // the suite counts each rank's warning of the refusal
        ASSERT_EQ(rc, 0) << err;
        EXPECT_EQ(first_mismatch(a.data(), a.size(), seed), -1) << "round " << seed;
        if (seed == 1 && me() == 0) {  // the tail's write was the first copy, and refused
            EXPECT_NE(err.find("Cross-Memory Attach to rank 1 refused"), std::string::npos) << err;
        }
    }
    EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// The same rounds read and forwarded down a chain and in an allgather,
// with ACP_COL_PULL=0 (written by the senders) in between on other
// handles over the same arrays: every member holds every byte, round
// after round, whichever way they came.
TEST(PulledRounds, ReadAndWrittenRoundsDeliverTheSameBytes) {
    if (const std::string why = why_no_reads(); !why.empty()) GTEST_SKIP() << why;
    ReadsOn on;
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(kBytes), all(kBytes * np());
    acp_col_t read[2] = {acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size()),
                         acp_create_allgather_direct(np(), g.data(), all.data(), kBytes)};
    ScopedEnv off("ACP_COL_PULL", "0");
    acp_col_t written[2] = {acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size()),
                            acp_create_allgather_direct(np(), g.data(), all.data(), kBytes)};
    for (acp_col_t h : {read[0], read[1], written[0], written[1]}) ASSERT_NE(h, ACP_COL_NULL);
    for (uint64_t round = 1; round <= 6; ++round) {
        const bool pulled = round % 2;
        if (me() == 0) fill_pattern(a.data(), a.size(), round);
        const size_t part = kBytes - 8 * round;  // odd lengths, every block ends short of the next
        ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(pulled ? read[0] : written[0], 0, part)), 0) << round;
        EXPECT_EQ(first_mismatch(a.data(), part, round), -1) << "bcast round " << round;
        fill_pattern(all.data() + me() * kBytes, part, 100 * round + me());
        ASSERT_EQ(acp_wait_col(acp_send_allgather_direct(pulled ? read[1] : written[1], 0, part)), 0) << round;
        for (int m = 0; m < np(); ++m)
            EXPECT_EQ(first_mismatch(all.data() + m * kBytes, part, 100 * round + m), -1)
                << "allgather round " << round << ", block " << m;
    }
    for (acp_col_t h : {read[0], read[1], written[0], written[1]}) EXPECT_EQ(acp_free_col(h), 0);
    EXPECT_EQ(acp_sync(), 0);
}

// Arrays in acp_malloc memory, which on-node peers map: a receiver copies
// its block out of the sender's mapping (memcpy, kPullMapped), not by a
// Cross-Memory-Attach read. Down a chain (each member forwards from its
// own mapped array) and in an allgather, odd lengths, fresh bytes every
// round; a read that a test fails (exec:1 at rank 1) fails the round as
// a CMA read does, and the next rounds are whole. The root writes the
// tail of its block by memcpy into rank 1's mapped array. The
// application's own heap is not memory its node maps; acp_malloc's is.
TEST(PulledRounds, ArraysOfAcpMallocMemoryAreCopiedOutOfTheirMappings) {
    if (const std::string why = why_no_reads(); !why.empty()) GTEST_SKIP() << why;
    ReadsOn on;
    std::vector<unsigned char> heap(64);
    acp_atkey_t key = acp_register_memory(heap.data(), heap.size(), 0);
    ASSERT_NE(key, ACP_ATKEY_NULL);
    EXPECT_FALSE(acpx::basic::layer::shared_with_node(acp_query_ga(key, heap.data())));
    acp_unregister_memory(key);
    const acp_ga_t ga = acp_malloc(kBytes * (np() + 1), acp_rank());
    ASSERT_NE(ga, ACP_GA_NULL);
    auto *a = static_cast<unsigned char *>(acp_query_address(ga)), *all = a + kBytes;
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    acp_col_t h[2] = {acp_create_bcast_direct(0, np(), g.data(), a, kBytes),
                      acp_create_allgather_direct(np(), g.data(), all, kBytes)};
    for (acp_col_t c : h) ASSERT_NE(c, ACP_COL_NULL);
    auto rounds = [&](uint64_t first, uint64_t last) {
        for (uint64_t round = first; round <= last; ++round) {
            if (me() == 0) fill_pattern(a, kBytes, round);
            const size_t part = kBytes - 8 * round;
            ASSERT_EQ(acp_wait_col(acp_send_bcast_direct(h[0], 0, part)), 0) << round;
            EXPECT_EQ(first_mismatch(a, part, round), -1) << "bcast round " << round;
            fill_pattern(all + me() * kBytes, part, 100 * round + me());
            ASSERT_EQ(acp_wait_col(acp_send_allgather_direct(h[1], 0, part)), 0) << round;
            for (int m = 0; m < np(); ++m)
                EXPECT_EQ(first_mismatch(all + m * kBytes, part, 100 * round + m), -1)
                    << "allgather round " << round << ", block " << m;
        }
    };
    rounds(1, 4);
    if (me() == 0) fill_pattern(a, kBytes, 5);
    if (me() == 1) {
        ASSERT_EQ(acpx_test_fail("exec:1"), 0);
    }
    int rc = 0;
    const std::string err = stderr_of([&] { rc = acp_wait_col(acp_send_bcast_direct(h[0], 0, kBytes)); });
    acpx_test_fail("exec:1000000000");  // disarm what was not used
    EXPECT_EQ(rc, -1) << "rank " << me() << ": " << err;
    if (me() == 1) {
        EXPECT_NE(err.find("fault injected for a test"), std::string::npos) << err;
    }
    rounds(6, 8);
    // The root's tail, a memcpy into rank 1's mapped array (split_point),
    // fails as a test says (data:1): the round fails at the root and at
    // rank 1; the next rounds are whole.
    if (me() == 0) {
        fill_pattern(a, kBytes, 9);
        ASSERT_EQ(acpx_test_fail("data:1"), 0);
    }
    const std::string tail_err = stderr_of([&] { rc = acp_wait_col(acp_send_bcast_direct(h[0], 0, kBytes)); });
    acpx_test_fail("data:1000000000");
    EXPECT_EQ(rc, -1) << "rank " << me() << ": " << tail_err;
    if (me() == 0) {
        EXPECT_NE(tail_err.find("block 0 to rank 1 (its tail, into its array)"), std::string::npos) << tail_err;
    } else if (me() == 1) {
        EXPECT_NE(tail_err.find("its tail could not be written into this rank's array"), std::string::npos) << tail_err;
    }
    rounds(10, 11);
    for (acp_col_t c : h) EXPECT_EQ(acp_free_col(c), 0);
    EXPECT_EQ(acp_sync(), 0);
    acp_free(ga);
}

// ACP_COL_PULL other than 0 or 1 fails the create, naming it.
TEST(PulledRounds, ASettingOtherThanZeroOrOneFailsTheCreate) {
    ScopedEnv bad("ACP_COL_PULL", "yes");
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    std::vector<unsigned char> a(64);
    acp_col_t h = ACP_COL_NULL;
    const std::string err = stderr_of([&] { h = acp_create_bcast_direct(0, np(), g.data(), a.data(), a.size()); });
    EXPECT_EQ(h, ACP_COL_NULL);
    EXPECT_REPORTS(err, "acp_create_bcast_direct", "ACP_COL_PULL");
    EXPECT_NE(err.find("'yes' is not 0 or 1"), std::string::npos) << err;
}

// Ranks 0 and 1 with a bcast handle (root 0) over a_ after one whole
// round, reads on; the handle direct, or buffered (GetParam(): its root
// splits the block, rank 1 reading the head out of the root's array).
// Needs a short ACP_TIMEOUT and ACP_PROGRESS=calls (no agent reads for a
// member that computes): run by test/suites/middle_timeout_calls_np2.sh;
// elsewhere it skips.
class PulledRoundsTimeout : public ::testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        const char *progress = std::getenv("ACP_PROGRESS");
        if (timeout_ > 5 || !progress || std::string(progress) != "calls")
            GTEST_SKIP() << "needs ACP_TIMEOUT <= 5 and ACP_PROGRESS=calls: test/suites/middle_timeout_calls_np2.sh";
        if (const std::string why = why_no_reads(); !why.empty()) GTEST_SKIP() << why;
        if (me() > 1) return;
        std::vector<int> g = {0, 1};
        h_ = GetParam() ? acp_create_bcast_buffered(0, 2, g.data(), a_.size())
                        : acp_create_bcast_direct(0, 2, g.data(), a_.data(), a_.size());
        ASSERT_NE(h_, ACP_COL_NULL);
        if (me() == 0) fill_pattern(a_.data(), a_.size(), 1);
        ASSERT_EQ(acp_wait_col(send()), 0);
        EXPECT_EQ(first_mismatch(a_.data(), a_.size(), 1), -1);
    }
    acp_request_t send() {
        return GetParam() ? acp_send_bcast_buffered(h_, a_.data(), a_.size()) : acp_send_bcast_direct(h_, 0, a_.size());
    }
    const double timeout_ = acpx::basic::layer::timeout_seconds();
    ReadsOn on_;
    std::vector<unsigned char> a_ = std::vector<unsigned char>(kBytes);
    acp_col_t h_ = ACP_COL_NULL;
};

// Rank 1 calls send and then computes past the root's ACP_TIMEOUT without
// a call into acpx (ACP_PROGRESS=calls: nothing reads for it meanwhile).
// The root's round times out naming rank 1's read, and the root writes
// its next bytes into the array at once, as an application may; rank 1's
// read, when it comes, finds the block withdrawn and fails its round,
// however whole the bytes it read look.
TEST_P(PulledRoundsTimeout, ABlockReadAfterItsSenderTimedOutFailsTheRound) {
    if (me() <= 1) {
        std::vector<unsigned char> &a = a_;
        const acp_col_t h = h_;
        if (me() == 0) {
            fill_pattern(a.data(), a.size(), 2);
            int rc = 0;
            const std::string err = stderr_of([&] { rc = acp_wait_col(send()); });
            EXPECT_EQ(rc, -1);
            EXPECT_NE(err.find("(ACP_TIMEOUT) for rank 1 (to read block 0 from here"), std::string::npos) << err;
            fill_pattern(a.data(), a.size(), 3);  // the application's next bytes
            acp_free_col(h);
        } else {
            acp_request_t r = send();
            ASSERT_NE(r, ACP_REQUEST_NULL);
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout_ + 1));
            int rc = 0;
            const std::string err = stderr_of([&] { rc = acp_wait_col(r); });
            EXPECT_EQ(rc, -1) << "success with bytes read after their sender's round ended";
            EXPECT_NE(err.find("block 0 from rank 0 was withdrawn by that rank while this rank read it"),
                      std::string::npos)
                << err;
            acp_free_col(h);
        }
    }
    EXPECT_EQ(acp_sync(), 0);
}

// The root is late: rank 1's round times out, and rank 1 writes its next
// bytes into its array, as an application may once the wait returned.
// The root's round, when it comes, must not write into that array: rank 1
// withdrew the place it published, so the root neither splits the block
// nor (buffered) writes it there whole, and rank 1's bytes stay its own.
// Written by the root (direct, ACP_COL_PULL=0), the late copy would land there.
TEST_P(PulledRoundsTimeout, ALateRootDoesNotWriteIntoAnArrayWhoseRoundTimedOut) {
    if (me() <= 1) {
        std::vector<unsigned char> &a = a_;
        const acp_col_t h = h_;
        if (me() == 1) {
            int rc = 0;
            const std::string err = stderr_of([&] { rc = acp_wait_col(send()); });
            EXPECT_EQ(rc, -1);
            EXPECT_NE(err.find("(ACP_TIMEOUT)"), std::string::npos) << err;
            fill_pattern(a.data(), a.size(), 3);  // the application's next bytes (the handle not freed yet)
        } else {
            std::this_thread::sleep_for(std::chrono::duration<double>(timeout_ + 0.5));
            fill_pattern(a.data(), a.size(), 2);
            const std::string err = stderr_of([&] { acp_wait_col(send()); });
            acp_free_col(h);
        }
        EXPECT_EQ(acp_sync(), 0);
        if (me() == 1) {
            EXPECT_EQ(first_mismatch(a.data(), a.size(), 3), -1) << "a late round wrote into an array after its wait";
            acp_free_col(h);
        }
    } else {
        EXPECT_EQ(acp_sync(), 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Handle, PulledRoundsTimeout, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &i) { return i.param ? "buffered" : "direct"; });
