/* NPB CG's communication kernel (3.3's conj_grad: the row exchanges and
 * the transpose, with setup_submatrix_info's partners) for seed 000's
 * placement check under SimGrid's SMPI: no arithmetic, only the
 * messages, in NPB's order (irecv, send, wait).
 *   cg_kernel ITERATIONS BYTES [barrier]
 * barrier: an MPI_Barrier before each CCS (seed 000's "TAC3 barrier").
 * Rank 0 prints "seconds S": the simulated time from a barrier before
 * the first iteration to the last rank's end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void exchange(int partner, char *out, char *in, int bytes, int barrier) {
    MPI_Request req;
    if (barrier) MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irecv(in, bytes, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &req);
    MPI_Send(out, bytes, MPI_BYTE, partner, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 3 || (n & (n - 1)) || n < 2) {
        if (me == 0) fprintf(stderr, "usage: cg_kernel ITERATIONS BYTES [barrier] (a power-of-two job)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const long iterations = atol(argv[1]);
    const int bytes = atoi(argv[2]);
    const int barrier = argc > 3 && !strcmp(argv[3], "barrier");
    int log2n = 0;
    while ((1 << log2n) < n) ++log2n;
    /* NPB: npcols = nprows, or 2 x nprows where n is not a square. */
    const int npcols = 1 << ((log2n + 1) / 2), nprows = n / npcols;
    const int row = me / npcols, col = me % npcols;
    const int exch = npcols == nprows ? (me % nprows) * nprows + me / nprows
                                      : 2 * ((me / 2 % nprows) * nprows + me / 2 / nprows) + me % 2;
    char *out = calloc((size_t)bytes + 1, 1), *in = calloc((size_t)bytes + 1, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long it = 0; it < iterations; ++it) {
        for (int span = npcols / 2; span > 0; span /= 2) exchange(row * npcols + (col ^ span), out, in, bytes, barrier);
        if (barrier) MPI_Barrier(MPI_COMM_WORLD);
        if (exch != me) exchange(exch, out, in, bytes, 0);
    }
    double took = MPI_Wtime() - start, longest = 0;
    MPI_Reduce(&took, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) printf("seconds %.9f\n", longest);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
