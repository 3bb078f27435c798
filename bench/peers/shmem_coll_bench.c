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
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "peer_common.h"

static long psync[2][SHMEM_COLLECT_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE
                                                                      : SHMEM_BCAST_SYNC_SIZE];
static double stat_in, stat_sum, stat_min, stat_max;
static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync_red[SHMEM_REDUCE_SYNC_SIZE];

int main(int argc, char **argv) {
    shmem_init();
    const int me = shmem_my_pe(), np = shmem_n_pes();
    if (argc < 2 || (strcmp(argv[1], "bcast") && strcmp(argv[1], "allgather"))) {
        if (me == 0) fprintf(stderr, "usage: shmem_coll_bench bcast|allgather [--sizes MIN:MAX] [--quick] [--max-rounds N] [--csv FILE]\n");
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
        } else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--max-rounds") && i + 1 < argc) max_rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
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
            if (bcast) shmem_broadcast64(dst, src, nelems, 0, 0, 0, np, psync[which]);
            else shmem_fcollect64(dst, src, nelems, 0, 0, np, psync[which]);
            which ^= 1;
        }
        stat_in = (peer_now_us() - stat_in) / iters;
        shmem_barrier_all();
        shmem_double_sum_to_all(&stat_sum, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        shmem_double_min_to_all(&stat_min, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        shmem_double_max_to_all(&stat_max, &stat_in, 1, 0, 0, np, pwrk, psync_red);
        shmem_barrier_all();
        if (me == 0) {
            printf("%-10zu %16.2f %16.2f %16.2f %12d\n", s, stat_sum / np, stat_min, stat_max, iters);
            fflush(stdout);
            if (f)
                fprintf(f, "%s,%s,%zu,%.3f,%.1f,%d,%d,oshmem\n", bcast ? "bcast" : "allgather", name, s, stat_max,
                        s / stat_max, iters, np);
        }
        if (s == hi) break;
    }
    if (f) fclose(f);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
