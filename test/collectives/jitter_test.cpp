// Seed 001's jitter simulation (collectives/model/jitter.hpp): noise
// windows as the seed describes them, the noiseless time, and the P = 4 case of the seed's Fig. 1 with one
// window placed by hand, against a calculation done here step by step.
#include <gtest/gtest.h>

#include "collectives/model/jitter.hpp"

namespace jm = acpx::collectives::model::jitter;

TEST(Jitter, AnActivityWaitsForItsWindowAndEveryWindowItMeetsLengthensIt) {
    jm::Noise n;
    n.period = 10;
    n.length = 1;
    n.phase = {2};
    EXPECT_DOUBLE_EQ(n.run(0, 0, 1), 1);          // before the first window
    EXPECT_DOUBLE_EQ(n.run(0, 2.5, 1), 4);        // starts in [2, 3): waits for 3
    EXPECT_DOUBLE_EQ(n.run(0, 1.5, 1), 3.5);      // the window at 2 begins while it runs
    EXPECT_DOUBLE_EQ(n.run(0, 1.5, 10.4), 13.9);  // 2 and 12 begin during it (12: in its lengthened part)
    n.phase = {9.5};
    EXPECT_DOUBLE_EQ(n.run(0, 0, 1), 1.5);  // (a): the window of k = -1, [-0.5, 0.5), is open at 0
    n.open_at_start = false;
    EXPECT_DOUBLE_EQ(n.run(0, 0, 1), 1);  // (b): none before the phase
    EXPECT_DOUBLE_EQ(n.run(0, 9, 1), 11);
}

// The pseudo-code's min at a mid or end exchange keeps the process's own
// time when no copy comes earlier: without noise those exchanges add their
// compute only, K comm + (K+M+L) compute (not (K+M+L)(comm+compute), as
// issue 63 summarised it).
TEST(Jitter, WithoutNoiseARoundIsKCommsAndKPlusMPlusLComputes) {
    const jm::Costs c;
    for (const size_t bytes : {size_t{8}, size_t{65536}})
        for (uint32_t k = 1; k <= 8; ++k)
            for (uint32_t m = 0; m <= k / 2; ++m) {
                const uint32_t l = k;
                const jm::Finish f = jm::simulate(k, m, l, bytes, c, jm::Noise{});
                ASSERT_EQ(f.max.size(), l + 1);
                for (uint32_t e = 0; e <= l; ++e) {
                    const double want = k * c.comm(bytes) + (k + m + e) * c.compute(bytes);
                    EXPECT_NEAR(f.max[e], want, want * 1e-12) << k << " " << m << " " << e;
                    EXPECT_NEAR(f.mean[e], want, want * 1e-12);
                }
            }
}

TEST(Jitter, FourProcessesWithOneWindowAtTheStartMatchAHandCalculation) {
    // Process 3's window [0, len) is open at t = 0; the others' come long
    // after the round. Exchanges: bit 0, bit 1, then one end addition
    // (bit 0, first copy wins). c = comm, m = compute:
    //   exchange 1: p2 gets p3's copy at len + c (p3 waits out its window
    //     to send), the others theirs at c; compute: p0, p1 c + m, p2
    //     len + c + m, p3 len + m (its compute starts in the window).
    //   exchange 2: p0 gets p2's at len + 2c + m, p1 p3's at len + c + m,
    //     p2 keeps len + c + m, p3 keeps len + m; compute adds m.
    //   L = 0: max len + 2c + 2m, mean len + c + 2m.
    //   end (bit 0, min): nobody gets a copy earlier than it holds its own;
    //     compute adds m: max len + 2c + 3m.
    const jm::Costs costs;
    jm::Noise n;
    n.phase = {n.period / 2, n.period / 2, n.period / 2, 0};
    const double c = costs.comm(8), m = costs.compute(8), len = n.length;
    const jm::Finish f = jm::simulate(2, 0, 1, 8, costs, n);
    ASSERT_EQ(f.max.size(), 2u);
    EXPECT_NEAR(f.max[0], len + 2 * c + 2 * m, 1e-18);
    EXPECT_NEAR(f.mean[0], len + c + 2 * m, 1e-18);
    EXPECT_NEAR(f.max[1], len + 2 * c + 3 * m, 1e-18);
}

TEST(Jitter, ExchangesComeInTheSeedsOrderWithItsPartners) {
    // K = 4 (D = 2), M = 2, L = 5: butterfly 1-2, mid (XOR 2^(j mod D)),
    // butterfly 3-4, end (XOR 2^(j mod K)).
    const auto ex = jm::exchanges(4, 2, 5);
    const uint32_t bits[] = {0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 0};
    const bool first[] = {false, false, true, true, false, false, true, true, true, true, true};
    ASSERT_EQ(ex.size(), 11u);
    for (size_t i = 0; i < ex.size(); ++i) {
        EXPECT_EQ(ex[i].bit, bits[i]) << i;
        EXPECT_EQ(ex[i].first_wins, first[i]) << i;
    }
}
