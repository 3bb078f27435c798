/* An ACP program, as ACP's own samples are written (C, acp.h only): each
 * rank sends 100 messages to the next through a channel and receives 100
 * from the previous, small ones and ones past the eager size, and checks
 * them. Prints one line and exits 0 when every rank agrees. */
#include <acp.h>
#include <stdio.h>
#include <stdlib.h>

#define MESSAGES 100

int main(int argc, char **argv) {
    if (acp_init(&argc, &argv) != 0) return 1;
    int rank = acp_rank(), procs = acp_procs(), bad = 0;
    if (procs < 2) {
        acp_finalize();
        return 0;
    }
    int next = (rank + 1) % procs, prev = (rank + procs - 1) % procs;
    acp_ch_t out = acp_create_ch(rank, next);
    acp_ch_t in = acp_create_ch(prev, rank);
    int *send = malloc(2000 * sizeof(int)), *recv = malloc(2000 * sizeof(int));
    for (int m = 0; m < MESSAGES && !bad; m++) {
        int n = m % 3 == 0 ? 2000 : 1 + m; /* 8000 bytes: pulled by the receiver */
        for (int i = 0; i < n; i++) send[i] = rank * 100000 + m * 10 + i;
        acp_request_t r = acp_nbrecv_ch(in, recv, 2000 * sizeof(int));
        acp_request_t s = acp_nbsend_ch(out, send, n * sizeof(int));
        if (acp_wait_ch(s) == (size_t)-1) bad = 1;
        size_t got = acp_wait_ch(r);
        if (got != n * sizeof(int)) bad = 1;
        for (int i = 0; !bad && i < n; i++)
            if (recv[i] != prev * 100000 + m * 10 + i) bad = 1;
        if (bad) fprintf(stderr, "rank %d: message %d from rank %d is wrong\n", rank, m, prev);
    }
    if (acp_free_ch(out) != 0 || acp_free_ch(in) != 0) bad = 1;
    free(send);
    free(recv);
    acp_sync();
    if (rank == 0 && !bad) printf("channel_ring: %d ranks ok\n", procs);
    acp_finalize();
    return bad;
}
