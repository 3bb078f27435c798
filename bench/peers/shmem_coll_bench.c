/*
 * The OpenSHMEM peer of acpx-bench bcast/allgather (shmem_broadcast64 and
 * shmem_fcollect64, OpenSHMEM 1.4 as Open MPI's oshmem has it): the same
 * method, sizes and CSV columns.
 *
 *   oshrun -np N shmem_coll_bench bcast|allgather [--sizes MIN:MAX] [--quick] [--max-rounds N] [--csv FILE]
 *
 * The 1.4 collectives move 64-bit elements: sizes below 8 bytes are sent
 * as 8. Two pSync arrays alternate, so back-to-back rounds need no
 * barrier between them (each is reused only after a full round).
 * After timing, two untimed rounds of fresh bytes are checked on every PE
 * (peer_common.h), as in mpi_coll_bench.c.
 */
#include <math.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "peer_common.h"

static long psync[2][SHMEM_COLLECT_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE : SHMEM_BCAST_SYNC_SIZE];
static double stat_in, stat_sum, stat_min, stat_max;
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync_red[SHMEM_REDUCE_SYNC_SIZE];
static double bad_here, bad_sum; /* doubles: shmem_int_sum_to_all segfaulted in oshmem 4.1 */

/* One round of s bytes (nelems 64-bit elements) with pSync `which`. */
static void round_once(int bcast, long *dst, const long *src, size_t nelems, int np, long *ps) {
    if (bcast)
        shmem_broadcast64(dst, src, nelems, 0, 0, 0, np, ps);
    else
        shmem_fcollect64(dst, src, nelems, 0, 0, np, ps);
}

/* The checked rounds: on every PE, how many PEs ended one of them without
 * the bytes they should hold (the broadcast's root: its dest is not
 * written in 1.4). Barriers around each, as the buffers change between. */
static int check_rounds(int bcast, long *dst, long *src, size_t s, size_t nelems, int me, int np, int *which) {
    bad_here = 0;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round) {
        peer_fill(src, s, round, bcast ? 0 : me);
        memset(dst, PEER_POISON, nelems * 8 * (bcast ? 1 : (size_t)np));
        shmem_barrier_all();
        round_once(bcast, dst, src, nelems, np, psync[*which]);
        *which ^= 1;
        shmem_barrier_all();
        for (int from = 0; from < (bcast ? 1 : np) && !bad_here && !(bcast && me == 0); ++from) {
            const unsigned char *got = (const unsigned char *)dst + (size_t)from * nelems * 8;
            const long at = peer_first_bad(got, s, round, from);
            if (at < 0) continue;
            fprintf(stderr, "PE %d: %zu bytes, checked round %d: block of PE %d, byte %ld is 0x%02x, not 0x%02x\n", me,
                    s, round, from, at, got[at], peer_pattern(round, from, (size_t)at));
            bad_here = 1;
        }
    }
    shmem_barrier_all();
    shmem_double_sum_to_all(&bad_sum, &bad_here, 1, 0, 0, np, pwrk, psync_red);
    shmem_barrier_all();
    return (int)bad_sum;
}

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    if (argc < 2 || (strcmp(argv[1], "bcast") && strcmp(argv[1], "allgather"))) {
        if (me == 0)
            fprintf(
                stderr,
                "usage: shmem_coll_bench bcast|allgather [--sizes MIN:MAX] [--quick] [--max-rounds N] [--csv FILE]\n");
        shmem_finalize();
        return 2;
    }
    const int bcast = !strcmp(argv[1], "bcast");
    size_t lo = 1, hi = 4u << 20;
    int quick = 0, max_rounds = 0;
    const char *csv = NULL;
    for (int i = 2; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *colon = strchr(argv[++i], ':');
            lo = peer_parse_size(argv[i]);
            hi = colon ? peer_parse_size(colon + 1) : lo;
        } else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--max-rounds") && i + 1 < argc)
            max_rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
    }
    for (int k = 0; k < 2; ++k)
        for (size_t i = 0; i < sizeof psync[k] / sizeof(long); ++i) psync[k][i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync_red[i] = SHMEM_SYNC_VALUE;
    const size_t cap = (hi < 8 ? 8 : hi + 7) / 8 * 8;
    long *src = shmem_malloc(cap), *dst = shmem_malloc(cap * (size_t)np);
    memset(src, 1, cap);
    shmem_barrier_all();
    const char *name = bcast ? "shmem_broadcast64" : "shmem_fcollect64";
    FILE *f = NULL;
    if (csv && me == 0) {
        int fresh = access(csv, F_OK) != 0;
        f = fopen(csv, "a");
        if (f && fresh) fprintf(f, "benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport\n");
    }
    if (me == 0) {
        printf("# oshmem %s latency, %d processes\n", name, np);
        printf("%-10s %16s %16s %16s %12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
               "Iterations");
    }
    int which = 0;
    for (size_t s = lo; s <= hi; s = quick && s < hi ? hi : s * 2) {
        const size_t nelems = (s < 8 ? 8 : s + 7) / 8;
        const int iters = peer_rounds(s, quick, max_rounds);
        for (int i = -(iters / 10 + 1); i < iters; ++i) {
            if (i == 0) {
                shmem_barrier_all();
                stat_in = peer_now_us();
            }
            round_once(bcast, dst, src, nelems, np, psync[which]);
            which ^= 1;
        }
        stat_in = (peer_now_us() - stat_in) / iters;
        const int bad = check_rounds(bcast, dst, src, s, nelems, me, np, &which);
        shmem_barrier_all();
        shmem_double_sum_to_all(&stat_sum, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        shmem_double_min_to_all(&stat_min, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        shmem_double_max_to_all(&stat_max, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        if (me == 0) {
            printf("%-10zu %16.2f %16.2f %16.2f %12d\n", s, stat_sum / np, stat_min, stat_max, iters);
            if (bad) printf("# %zu: WRONG DATA on %d of %d PEs in the checked rounds: not a latency\n", s, bad, np);
            fflush(stdout);
            const double lat = bad ? NAN : stat_max;
            if (f)
                fprintf(f, "%s,%s,%zu,%.3f,%.1f,%d,%d,oshmem\n", bcast ? "bcast" : "allgather", name, s, lat, s / lat,
                        iters, np);
        }
        if (s == hi) break;
    }
    if (f) fclose(f);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
