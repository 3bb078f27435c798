/* A pattern's Concurrent Communication Sets as MPI messages, for SimGrid's
 * SMPI: each CCS, every rank posts its receives, then its sends, then
 * waits for all (after a barrier, if asked). The pattern file is
 * acpx-model's ccs: format: "SRC DST [BYTES]" a message, "--" between
 * two CCS, # comments.
 *   ccs_kernel FILE ITERATIONS [barrier]
 * Rank 0 prints "seconds S": the simulated time from a barrier before
 * the first CCS to the last rank's end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct msg {
    int ccs, src, dst;
    long bytes;
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    FILE *f = argc >= 3 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        if (me == 0) fprintf(stderr, "usage: ccs_kernel FILE ITERATIONS [barrier] (FILE readable)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long iterations = atol(argv[2]);
    const int barrier = argc > 3 && !strcmp(argv[3], "barrier");
    struct msg *m = NULL;
    size_t count = 0, cap = 0;
    int ccs = 0, in_ccs = 0;
    long biggest = 1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        int src, dst;
        long bytes = 1 << 20;
        if (strstr(line, "--")) {
            ccs += in_ccs;
            in_ccs = 0;
            continue;
        }
        const int got = sscanf(line, "%d %d %ld", &src, &dst, &bytes);
        if (got < 2) continue;
        if (src >= n || dst >= n || src < 0 || dst < 0) {
            if (me == 0) fprintf(stderr, "ccs_kernel: task %d or %d is not below %d ranks\n", src, dst, n);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (src != me && dst != me) {
            in_ccs = 1;
            continue;
        }
        if (count == cap) m = realloc(m, (cap = cap ? 2 * cap : 64) * sizeof *m);
        m[count++] = (struct msg){ccs, src, dst, bytes};
        if (bytes > biggest) biggest = bytes;
        in_ccs = 1;
    }
    fclose(f);
    const int sets = ccs + in_ccs;
    /* Buffers: one to send from and one that every receive lands in,
     * shared by all ranks (SMPI runs them in one process, and a step of a
     * 96-rank allgather moves gigabytes): the bytes do not matter here,
     * their time does. Same size on every rank. */
    long all = 0;
    MPI_Allreduce(&biggest, &all, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    biggest = all;
    char *out = SMPI_SHARED_MALLOC((size_t)biggest), *in = SMPI_SHARED_MALLOC((size_t)biggest);
    MPI_Request *req = malloc((count + 1) * sizeof *req);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long it = 0; it < iterations; ++it) {
        size_t at = 0;
        for (int c = 0; c < sets; ++c) {
            if (barrier) MPI_Barrier(MPI_COMM_WORLD);
            int nreq = 0;
            for (size_t i = at; i < count && m[i].ccs == c; ++i)
                if (m[i].dst == me && m[i].src != me)
                    MPI_Irecv(in, (int)m[i].bytes, MPI_BYTE, m[i].src, c, MPI_COMM_WORLD, &req[nreq++]);
            for (size_t i = at; i < count && m[i].ccs == c; ++i)
                if (m[i].src == me && m[i].dst != me)
                    MPI_Isend(out, (int)m[i].bytes, MPI_BYTE, m[i].dst, c, MPI_COMM_WORLD, &req[nreq++]);
            MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
            while (at < count && m[at].ccs == c) ++at;
        }
    }
    double took = MPI_Wtime() - start, longest = 0;
    MPI_Reduce(&took, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("seconds %.9f\n", longest);
    free(m);
    SMPI_SHARED_FREE(out);
    SMPI_SHARED_FREE(in);
    free(req);
    MPI_Finalize();
    return 0;
}
