/*
 * The compute of the overlap benchmarks (acpx-bench overlap,
 * mpi_coll_bench --overlap), the same in both: a dependent multiply-add
 * chain, a core's worth of work that no compiler folds away and no memory
 * traffic disturbs, calibrated in nanoseconds per step.
 */
#ifndef ACPX_PEER_COMPUTE_H
#define ACPX_PEER_COMPUTE_H

#include "peer_common.h"

static volatile double peer_compute_sink;

/* `n` steps of the chain. */
static inline void peer_compute(long n) {
    double x = peer_compute_sink;
    for (long i = 0; i < n; ++i) x = x * 0.9999999 + 1e-7;
    peer_compute_sink = x;
}

/* Nanoseconds per step on this rank: the least of five timed runs of ~2 ms. */
static inline double peer_ns_per_step(void) {
    const long steps = 1L << 21;
    double best = 1e300;
    for (int i = 0; i < 5; ++i) {
        const double t0 = peer_now_us();
        peer_compute(steps);
        const double ns = (peer_now_us() - t0) * 1e3 / (double)steps;
        if (ns < best) best = ns;
    }
    return best;
}

#endif
