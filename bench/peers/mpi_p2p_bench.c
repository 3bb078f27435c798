/*
 * The MPI peer of acpx-bench channel: MPI_Send/MPI_Recv between ranks 0
 * and 1, as OSU's osu_latency and osu_bw measure them, with acpx-bench's
 * counts (--iters per size up to 8 KiB, scaled down above, at least 20;
 * warm-up 200; --window messages per bandwidth step, then a 4-byte reply)
 * and CSV columns. After timing, one message of fresh bytes each way is
 * checked (a wrong one: the table says so, the CSV's figure is nan).
 *
 *   mpirun -np 2 mpi_p2p_bench [--sizes MIN:MAX] [--iters N] [--window W]
 *                              [--quick] [--csv FILE] [--impl NAME]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_common.h"

static int iterations_for(int iters, size_t size) {
    if (size <= 8192) return iters;
    long scaled = (long)iters * 8192 / (long)size;
    return scaled < 20 ? 20 : (int)scaled;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t lo = 8, hi = 4u << 20;
    int iters = 10000, window = 64, quick = 0;
    const char *csv = NULL, *impl = "mpi";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *colon = strchr(argv[++i], ':');
            lo = peer_parse_size(argv[i]);
            hi = colon ? peer_parse_size(colon + 1) : lo;
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv = argv[++i];
        else if (!strcmp(argv[i], "--impl") && i + 1 < argc)
            impl = argv[++i];
    }
    if (quick) iters = 50;
    if (np < 2 || iters < 1 || window < 1) {
        if (me == 0) fprintf(stderr, "mpi_p2p_bench: needs 2 ranks, --iters and --window above 0\n");
        MPI_Finalize();
        return 2;
    }
    FILE *f = NULL;
    if (csv && me == 0) {
        int fresh = access(csv, F_OK) != 0;
        f = fopen(csv, "a");
        if (f && fresh) fprintf(f, "benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport\n");
    }
    unsigned char *a = malloc(hi), *b = malloc(hi);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)window);
    MPI_Status *statuses = malloc(sizeof(MPI_Status) * (size_t)window); /* not IGNORE: gcc 12 warns on MPICH's */
    memset(a, 1, hi);
    const int peer = 1 - me;
    if (me == 0) {
        printf("# %s MPI_Send/MPI_Recv: ranks 0 and 1\n", impl);
        printf("# %-10s %14s %16s\n", "Size", "latency(us)", "BW(MB/s)");
    }
    int bad_any = 0;
    for (size_t s = lo; me <= 1 && s <= hi; s = quick && s < hi ? hi : s * 2) {
        const int it = iterations_for(iters, s), warm = it < 200 ? it : 200;
        const int n = (int)s;
        double t0 = 0;
        for (int i = 0; i < warm + it; ++i) {
            if (i == warm) t0 = MPI_Wtime();
            if (me == 0) {
                MPI_Send(a, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(b, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(a, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            }
        }
        const double lat = (MPI_Wtime() - t0) * 1e6 / it / 2;
        int bw_it = it / window;
        if (bw_it < (quick ? 2 : 10)) bw_it = quick ? 2 : 10;
        unsigned ack = 0;
        for (int i = 0; i < bw_it + 1; ++i) {
            if (i == 1) t0 = MPI_Wtime();
            for (int w = 0; w < window; ++w) {
                if (me == 0)
                    MPI_Isend(a, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
                else
                    MPI_Irecv(b, n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &reqs[w]);
            }
            MPI_Waitall(window, reqs, statuses);
            if (me == 0)
                MPI_Recv(&ack, 1, MPI_UNSIGNED, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_UNSIGNED, peer, 3, MPI_COMM_WORLD);
        }
        const double bw = (double)s * window * bw_it / ((MPI_Wtime() - t0) * 1e6);
        int bad = 0;
        for (int turn = 0; turn < 2; ++turn) {
            if ((me == 0) == (turn == 0)) {
                peer_fill(a, s, turn, me);
                MPI_Send(a, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
            } else {
                memset(b, PEER_POISON, s);
                MPI_Recv(b, n, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (peer_first_bad(b, s, turn, peer) >= 0) bad = 1;
            }
        }
        int bad_either = bad, theirs = 0;
        if (me == 1) MPI_Send(&bad, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        if (me == 0) MPI_Recv(&theirs, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad_either |= theirs;
        bad_any |= bad_either;
        if (me == 0) {
            printf("%-12zu %14.3f %16.1f%s\n", s, lat, bw, bad_either ? "  WRONG DATA" : "");
            fflush(stdout);
            if (f) {
                fprintf(f, "channel,latency,%zu,%.4f,%.6g,%d,2,%s\n", s, bad_either ? NAN : lat, s / lat, it, impl);
                fprintf(f, "channel,bw,%zu,0,%.6g,%d,2,%s\n", s, bad_either ? NAN : bw, bw_it * window, impl);
            }
        }
    }
    if (f) fclose(f);
    free(a);
    free(b);
    free(reqs);
    free(statuses);
    MPI_Finalize();
    return bad_any;
}
