// main() for multi-process GoogleTest binaries: every rank runs every test
// (tests are collective). Rank 0 prints the usual report; other ranks print
// only their failures, prefixed with their rank. The exit status is this
// rank's result, so acprun/mpirun fail the job when any rank fails.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "acp.h"
#include "deny_cma.hpp"

namespace {

class RankFailurePrinter : public testing::EmptyTestEventListener {
  public:
    explicit RankFailurePrinter(int rank) : rank_(rank) {}
    void OnTestPartResult(const testing::TestPartResult &r) override {
        if (!r.failed()) return;
        std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                     r.line_number(), r.summary());
    }
    void OnTestEnd(const testing::TestInfo &t) override {
        if (t.result()->Failed())
            std::fprintf(stderr, "[rank %d] FAILED %s.%s\n", rank_, t.test_suite_name(), t.name());
    }

  private:
    int rank_;
};

}  // namespace

int main(int argc, char **argv) {
    testing::InitGoogleTest(&argc, argv);
    if (const int rc = acpx::test::deny_cma_if_asked(); rc != 0) return rc;
    if (acp_init(&argc, &argv) != 0) {
        std::fprintf(stderr, "acp_init failed\n");
        return 1;
    }
    // A bootstrap that fell back to singletons would pass every test on
    // every rank alone: the launch says how many ranks there must be.
    if (const char *want = std::getenv("ACPX_TEST_NP"); want && acp_procs() != std::atoi(want)) {
        std::fprintf(stderr, "rank %d: acp_procs() is %d, but %s ranks were launched\n", acp_rank(), acp_procs(), want);
        return 1;
    }
    const int rank = acp_rank();
    if (rank != 0) {
        auto &listeners = testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailurePrinter(rank));
    }
    const int rc = RUN_ALL_TESTS();
    if (acp_finalize() != 0) return 1;
    return rc;
}
