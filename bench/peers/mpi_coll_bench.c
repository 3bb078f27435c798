/*
 * The MPI peer of acpx-bench bcast/allgather/allreduce: the same method,
 * sizes and CSV columns, built once per MPI found (MPICH, Open MPI).
 *
 *   mpirun -np N mpi_coll_bench bcast|allgather|allreduce [--sizes MIN:MAX] [--quick]
 *                               [--max-rounds N] [--csv FILE] [--impl NAME]
 *
 * Per size, each of: the classic call (MPI_Bcast / MPI_Allgather /
 * MPI_Allreduce, a sum of size / 8 doubles) and the persistent one (MPI-4
 * MPI_*_init, or Open MPI 4.1's MPIX_ versions from mpi-ext.h), started
 * and waited each round.
 * Warm-up, barrier, timed loop; each rank averages its rounds; the table
 * shows mean, min and max over ranks, the CSV's latency_us is the max.
 * Then two untimed rounds of fresh bytes are checked on every rank
 * (peer_common.h); where one arrives wrong the table says so, each such
 * rank names the first wrong byte on stderr, and the CSV's latency is nan.
 * --memory: RSS growth of creating 100 persistent handles, per handle.
 * allreduce with --noise PERIOD:LEN, --late RANK:US:EVERY or --rounds N
 * (peer_noise.h): the persistent allreduce's rounds timed one by one,
 * without and then with the noise, as acpx-bench allreduce does.
 * --overlap (bcast, allgather): the persistent collective started, a
 * calibrated compute loop, then waited, as acpx-bench overlap measures it
 * (its method, columns and CSV).
 */
#include <math.h>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_common.h"
#include "peer_compute.h"
#include "peer_noise.h"

#if MPI_VERSION >= 4
#define HAVE_PERSISTENT 1
#define BCAST_INIT MPI_Bcast_init
#define ALLGATHER_INIT MPI_Allgather_init
#define ALLREDUCE_INIT MPI_Allreduce_init
#define PERSISTENT_NAME(x) "MPI_" x "_init"
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_PERSISTENT 1
#define BCAST_INIT MPIX_Bcast_init
#define ALLGATHER_INIT MPIX_Allgather_init
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define PERSISTENT_NAME(x) "MPIX_" x "_init"
#else
#define HAVE_PERSISTENT 0
#endif

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

struct run {
    int bcast, allreduce, persistent, me, np;
    size_t size;
    char *buf, *out;
};

/* One round. */
static void round_once(struct run *r, MPI_Request *req) {
    if (r->persistent) {
        MPI_Start(req);
        MPI_Wait(req, MPI_STATUS_IGNORE);
    } else if (r->allreduce) {
        MPI_Allreduce(r->buf, r->out, (int)(r->size / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else if (r->bcast) {
        MPI_Bcast(r->buf, (int)r->size, MPI_BYTE, 0, MPI_COMM_WORLD);
    } else {
        MPI_Allgather(r->buf, (int)r->size, MPI_BYTE, r->out, (int)r->size, MPI_BYTE, MPI_COMM_WORLD);
    }
}

/* The checked rounds: on rank 0, how many ranks ended one of them without
 * the bytes they should hold. Every rank runs every round. */
/* An allreduce's checked rounds: rank m's element i is peer_pattern(round,
 * m, i), small integers whose sum is exact in any order. */
static int check_allreduce(struct run *r, MPI_Request *req) {
    int bad_here = 0;
    double *in = (double *)r->buf, *out = (double *)r->out;
    const size_t count = r->size / 8;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round) {
        for (size_t i = 0; i < count; ++i) in[i] = peer_pattern(round, r->me, i);
        for (size_t i = 0; i < count; ++i) out[i] = -1;
        round_once(r, req);
        for (size_t i = 0; i < count && !bad_here; ++i) {
            double want = 0;
            for (int m = 0; m < r->np; ++m) want += peer_pattern(round, m, i);
            if (out[i] == want) continue;
            fprintf(stderr, "rank %d: %zu elements, checked round %d: element %zu is %g, not %g\n", r->me, count, round,
                    i, out[i], want);
            bad_here = 1;
        }
    }
    int bad = 0;
    MPI_Reduce(&bad_here, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return bad;
}

static int check_rounds(struct run *r, MPI_Request *req) {
    if (r->allreduce) return check_allreduce(r, req);
    int bad_here = 0;
    for (int round = 1; round <= PEER_CHECKED_ROUNDS; ++round) {
        if (r->bcast) {
            if (r->me == 0)
                peer_fill(r->buf, r->size, round, 0);
            else
                memset(r->buf, PEER_POISON, r->size);
        } else {
            peer_fill(r->buf, r->size, round, r->me);
            memset(r->out, PEER_POISON, r->size * (size_t)r->np);
        }
        round_once(r, req);
        for (int src = 0; src < (r->bcast ? 1 : r->np) && !bad_here; ++src) {
            const char *got = r->bcast ? r->buf : r->out + (size_t)src * r->size;
            const long at = peer_first_bad(got, r->size, round, src);
            if (at < 0) continue;
            fprintf(stderr, "rank %d: %zu bytes, checked round %d: block of rank %d, byte %ld is 0x%02x, not 0x%02x\n",
                    r->me, r->size, round, src, at, (unsigned char)got[at], peer_pattern(round, src, (size_t)at));
            bad_here = 1;
        }
    }
    int bad = 0;
    MPI_Reduce(&bad_here, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return bad;
}

static int make_request(struct run *r, MPI_Request *req);

/* The slowest rank's ns per compute step (peer_compute.h, as acpx-bench overlap). */
static double ns_per_step(void) {
    const double best = peer_ns_per_step();
    double worst = 0;
    MPI_Allreduce(&best, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static double mean_over_ranks(double v, int np) {
    double sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / np;
}

/* The overlap run (see the top): per size, pure, compute alone, overall. */
static int run_overlap(struct run *r, size_t lo, size_t hi, int quick, int max_rounds, const char *impl, FILE *f) {
    if (!HAVE_PERSISTENT) {
        if (r->me == 0) fprintf(stderr, "mpi_coll_bench: --overlap: this MPI has no persistent collectives\n");
        return 1;
    }
    r->persistent = 1;
    const double step_ns = ns_per_step();
    const char *what = r->bcast ? "Bcast" : "Allgather";
    if (r->me == 0) {
        printf("# %s persistent %s overlap, %d processes\n", impl, what, r->np);
        printf("%-10s %14s %14s %14s %16s %12s %12s\n", "# Size", "Overall(us)", "Compute(us)", "Alone(us)",
               "Pure Comm.(us)", "Overlap(%)", "Iterations");
    }
    for (size_t s = lo; s <= hi; s = quick && s < hi ? hi : s * 2) {
        r->size = s;
        MPI_Request req = MPI_REQUEST_NULL;
        if (make_request(r, &req) != MPI_SUCCESS) return 1;
        const int iters = peer_rounds(s, quick, max_rounds);
        for (int i = 0; i < iters / 10 + 1; ++i) round_once(r, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) round_once(r, &req);
        const double pure = (MPI_Wtime() - t0) * 1e6 / iters;
        double slowest = 0;
        MPI_Allreduce(&pure, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        long steps = (long)(slowest * 1e3 / step_ns + 0.5);
        if (steps < 1) steps = 1;
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) peer_compute(steps);
        const double alone = (MPI_Wtime() - t0) * 1e6 / iters;
        MPI_Barrier(MPI_COMM_WORLD);
        double inside = 0;
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
            MPI_Start(&req);
            const double c0 = MPI_Wtime();
            peer_compute(steps);
            inside += MPI_Wtime() - c0;
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        const double overall = (MPI_Wtime() - t0) * 1e6 / iters;
        inside = inside * 1e6 / iters;
        const int bad = check_rounds(r, &req);
        MPI_Request_free(&req);
        const double o = mean_over_ranks(overall, r->np), c = mean_over_ranks(inside, r->np),
                     a = mean_over_ranks(alone, r->np), p = mean_over_ranks(pure, r->np);
        double pct = 100.0 * (1.0 - (o - c) / p);
        pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
        if (r->me == 0) {
            printf("%-10zu %14.2f %14.2f %14.2f %16.2f %12.1f %12d\n", s, o, c, a, p, pct, iters);
            if (bad) printf("# %zu: WRONG DATA on %d of %d ranks in the checked rounds: not a figure\n", s, bad, r->np);
            fflush(stdout);
            if (f)
                fprintf(f, "overlap,%s-%s,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,%d,%d,%s\n", r->bcast ? "bcast" : "allgather",
                        impl, s, o, c, a, p, bad ? NAN : pct, iters, r->np, impl);
        }
        if (s == hi) break;
    }
    return 0;
}

/* The noise run (see the top): per size, mean, p99 and p99.9 of each rank's
 * rounds, the largest over ranks, without and with the noise. */
static int run_jitter(struct run *r, size_t lo, size_t hi, const char *impl, const char *noise_spec,
                      const char *late_spec, unsigned seed, long rounds) {
    struct peer_noise noise = {0, 0};
    struct peer_late late = {-1, 1, 0};
    if (noise_spec) peer_parse_noise(noise_spec, &noise);
    if (late_spec) peer_parse_late(late_spec, &late);
    if (rounds <= 0) rounds = 100000;
    double *t = malloc(sizeof(double) * (size_t)rounds);
    if (!t) return 1;
    if (r->me == 0) {
        printf(
            "# %s %s allreduce (sum of doubles), %d processes, %ld rounds per size; noise %s us (PERIOD:LEN), "
            "late %s (RANK:US:EVERY); per rank mean, p99, p99.9 of its rounds, the largest over ranks (us)\n",
            impl, HAVE_PERSISTENT ? "persistent" : "blocking", r->np, rounds, noise_spec ? noise_spec : "none",
            late_spec ? late_spec : "none");
        printf("%-10s %12s %12s %12s %12s %12s %12s\n", "# Size", "mean off", "p99 off", "p99.9 off", "mean on",
               "p99 on", "p99.9 on");
    }
    r->persistent = HAVE_PERSISTENT;
    for (size_t s = lo; s <= hi; s *= 2) {
        r->size = s;
        MPI_Request req = MPI_REQUEST_NULL;
        if (r->persistent && make_request(r, &req) != MPI_SUCCESS) break;
        double st[2][3] = {{0}};
        for (int on = 0; on < (noise_spec ? 2 : 1); ++on) {
            for (long i = 0; i < rounds / 10 + 1; ++i) round_once(r, &req);
            MPI_Barrier(MPI_COMM_WORLD);
            if (on && peer_noise_start(&noise, r->me, seed) != 0) {
                perror("mpi_coll_bench: --noise: timer");
                return 1;
            }
            for (long i = 0; i < rounds; ++i) {
                const double t0 = peer_mono_us();
                peer_late_wait(&late, r->me, i);
                round_once(r, &req);
                t[i] = peer_mono_us() - t0;
            }
            peer_noise_stop();
            const struct peer_stats mine = peer_stats_of(t, (size_t)rounds);
            const double v[3] = {mine.mean, mine.p99, mine.p999};
            MPI_Reduce(v, st[on], 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        }
        if (r->persistent) MPI_Request_free(&req);
        if (r->me == 0) {
            printf("%-10zu %12.2f %12.2f %12.2f", s, st[0][0], st[0][1], st[0][2]);
            if (noise_spec)
                printf(" %12.2f %12.2f %12.2f\n", st[1][0], st[1][1], st[1][2]);
            else
                printf(" %12s %12s %12s\n", "-", "-", "-");
            fflush(stdout);
        }
        if (s == hi) break;
    }
    free(t);
    return 0;
}

static int make_request(struct run *r, MPI_Request *req) {
#if HAVE_PERSISTENT
    if (r->allreduce)
        return ALLREDUCE_INIT(r->buf, r->out, (int)(r->size / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                              req);
    if (r->bcast) return BCAST_INIT(r->buf, (int)r->size, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, req);
    return ALLGATHER_INIT(r->buf, (int)r->size, MPI_BYTE, r->out, (int)r->size, MPI_BYTE, MPI_COMM_WORLD, MPI_INFO_NULL,
                          req);
#else
    (void)r, (void)req;
    return MPI_ERR_OTHER;
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    struct run r = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &r.me);
    MPI_Comm_size(MPI_COMM_WORLD, &r.np);
    if (argc < 2 || (strcmp(argv[1], "bcast") && strcmp(argv[1], "allgather") && strcmp(argv[1], "allreduce"))) {
        if (r.me == 0)
            fprintf(stderr,
                    "usage: mpi_coll_bench bcast|allgather|allreduce [--sizes MIN:MAX] [--quick] [--max-rounds N] "
                    "[--csv FILE] [--impl NAME] [--memory] [--noise PERIOD:LEN] [--late RANK:US:EVERY] "
                    "[--noise-seed S] [--rounds N] [--overlap]\n");
        MPI_Finalize();
        return 2;
    }
    r.bcast = !strcmp(argv[1], "bcast");
    r.allreduce = !strcmp(argv[1], "allreduce");
    size_t lo = 1, hi = 4u << 20;
    int quick = 0, memory = 0, max_rounds = 0, overlap = 0;
    const char *csv = NULL, *impl = "mpi", *noise = NULL, *late = NULL;
    unsigned noise_seed = 1;
    long rounds = 0;
    for (int i = 2; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *colon = strchr(argv[++i], ':');
            lo = peer_parse_size(argv[i]);
            hi = colon ? peer_parse_size(colon + 1) : lo;
        } else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--max-rounds") && i + 1 < argc)
            max_rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--memory"))
            memory = 1;
        else if (!strcmp(argv[i], "--overlap"))
            overlap = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--impl") && i + 1 < argc)
            impl = argv[++i];
        else if (!strcmp(argv[i], "--noise") && i + 1 < argc)
            noise = argv[++i];
        else if (!strcmp(argv[i], "--late") && i + 1 < argc)
            late = argv[++i];
        else if (!strcmp(argv[i], "--noise-seed") && i + 1 < argc)
            noise_seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = strtol(argv[++i], NULL, 10);
    }
    const char *what = r.bcast ? "Bcast" : r.allreduce ? "Allreduce" : "Allgather";
    if (r.allreduce && lo < 8) lo = 8; /* one double */
    FILE *f = NULL;
    if (csv && r.me == 0) {
        int fresh = access(csv, F_OK) != 0;
        f = fopen(csv, "a");
        if (f && fresh)
            fprintf(f, overlap
                           ? "benchmark,op,size,overall_us,compute_us,alone_us,pure_us,overlap_pct,iterations,ranks,"
                             "transport\n"
                           : "benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport\n");
    }
    r.buf = malloc(hi ? hi : 1);
    r.out = malloc((hi ? hi : 1) * (size_t)r.np);
    memset(r.buf, 1, hi ? hi : 1);
    struct peer_noise nv;
    struct peer_late lv;
    if ((noise && peer_parse_noise(noise, &nv) != 0) || (late && peer_parse_late(late, &lv) != 0)) {
        if (r.me == 0) fprintf(stderr, "mpi_coll_bench: --noise PERIOD:LEN (LEN < PERIOD), --late RANK:US:EVERY\n");
        MPI_Finalize();
        return 2;
    }
    if (r.allreduce && (noise || late || rounds)) {
        const int rc = run_jitter(&r, lo, hi, impl, noise, late, noise_seed, rounds);
        MPI_Finalize();
        return rc;
    }
    if (overlap && !r.allreduce) {
        const int rc = run_overlap(&r, lo, hi, quick, max_rounds, impl, f);
        if (f) fclose(f);
        MPI_Finalize();
        return rc;
    }
    if (memory) {
        /* RSS growth per persistent handle, 100 handles of the largest size. */
#if HAVE_PERSISTENT
        MPI_Request reqs[100];
        r.size = hi;
        long before = rss_kb();
        for (int i = 0; i < 100; ++i) make_request(&r, &reqs[i]);
        long after = rss_kb();
        for (int i = 0; i < 100; ++i) MPI_Request_free(&reqs[i]);
        double per = (after - before) * 1024.0 / 100, mx = 0;
        MPI_Reduce(&per, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r.me == 0)
            printf("# %s persistent %s: RSS growth %.0f bytes per handle (max over ranks)\n", impl, what, mx);
#endif
        MPI_Finalize();
        return 0;
    }
    for (int persistent = 0; persistent <= HAVE_PERSISTENT; ++persistent) {
        r.persistent = persistent;
        char op[64];
#if HAVE_PERSISTENT
        snprintf(op, sizeof op, "%s", persistent ? PERSISTENT_NAME("%s") : "MPI_%s");
#else
        snprintf(op, sizeof op, "MPI_%%s");
#endif
        char name[64];
        snprintf(name, sizeof name, op, what);
        if (r.me == 0) {
            printf("# %s %s latency, %d processes\n", impl, name, r.np);
            printf("%-10s %16s %16s %16s %12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)", "Max Latency(us)",
                   "Iterations");
        }
        for (size_t s = lo; s <= hi; s = quick && s < hi ? hi : s * 2) {
            r.size = s;
            MPI_Request req = MPI_REQUEST_NULL;
            if (persistent && make_request(&r, &req) != MPI_SUCCESS) break;
            const int iters = peer_rounds(s, quick, max_rounds);
            for (int i = 0; i < iters / 10 + 1; ++i) round_once(&r, &req);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; ++i) round_once(&r, &req);
            double mine = (MPI_Wtime() - t0) * 1e6 / iters, sum = 0, mn = 0, mx = 0;
            const int bad = check_rounds(&r, &req);
            if (persistent) MPI_Request_free(&req);
            MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(&mine, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
            MPI_Reduce(&mine, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (r.me == 0) {
                printf("%-10zu %16.2f %16.2f %16.2f %12d\n", s, sum / r.np, mn, mx, iters);
                if (bad)
                    printf("# %zu: WRONG DATA on %d of %d ranks in the checked rounds: not a latency\n", s, bad, r.np);
                fflush(stdout);
                const double lat = bad ? NAN : mx;
                if (f)
                    fprintf(f, "%s,%s,%zu,%.3f,%.1f,%d,%d,%s\n",
                            r.bcast       ? "bcast"
                            : r.allreduce ? "allreduce"
                                          : "allgather",
                            name, s, lat, s / lat, iters, r.np, impl);
            }
            if (s == hi) break;
        }
    }
    if (f) fclose(f);
    free(r.buf);
    free(r.out);
    MPI_Finalize();
    return 0;
}
