/* An ACP program, as ACP's own samples are written (C, acp.h only): each
 * rank streams 2,000 segments to the next rank through a segmented buffer
 * of 8 segments and takes as many from the previous rank, checking each
 * one where head says it is. Prints one line and exits 0 when every rank
 * agrees. */
#include <acp.h>
#include <stdio.h>
#include <stdlib.h>

#define SEGMENTS 2000
#define SEGNUM 8
#define INTS 300 /* a segment: 1,200 bytes */

int main(int argc, char **argv) {
    if (acp_init(&argc, &argv) != 0) return 1;
    int rank = acp_rank(), procs = acp_procs(), bad = 0;
    if (procs < 2) {
        acp_finalize();
        return 0;
    }
    int next = (rank + 1) % procs, prev = (rank + procs - 1) % procs;
    int *out = malloc(SEGNUM * INTS * sizeof(int)), *in = malloc(SEGNUM * INTS * sizeof(int));
    acp_segbuf_t src = acp_create_src_segbuf(next, out, INTS * sizeof(int), SEGNUM);
    acp_segbuf_t dst = acp_create_dst_segbuf(prev, in, INTS * sizeof(int), SEGNUM);
    if (src == ACP_SEGBUF_NULL || dst == ACP_SEGBUF_NULL || acp_connect_segbuf(src) != 0 ||
        acp_connect_segbuf(dst) != 0) {
        fprintf(stderr, "rank %d: could not set up the segmented buffers\n", rank);
        return 1;
    }
    int sent = 0, got = 0;
    while ((sent < SEGMENTS || got < SEGMENTS) && !bad) {
        /* -1: the peer is gone or a copy failed (said on stderr) */
        int ready = sent < SEGMENTS ? acp_isready_segbuf(src) : 1;
        int acked = got < SEGMENTS ? acp_isacked_segbuf(dst) : 1;
        if (ready < 0 || acked < 0) bad = 1;
        if (ready == 0) {
            int *seg = out + acp_query_segbuf_tail(src) * INTS;
            for (int i = 0; i < INTS; i++) seg[i] = rank * 1000000 + sent * 10 + i % 10;
            if (acp_ack_segbuf(src) != 0) bad = 1;
            sent++;
        }
        if (acked == 0 && !bad) {
            const int *seg = in + acp_query_segbuf_head(dst) * INTS;
            for (int i = 0; i < INTS && !bad; i++)
                if (seg[i] != prev * 1000000 + got * 10 + i % 10) bad = 1;
            if (bad) fprintf(stderr, "rank %d: segment %d from rank %d is wrong\n", rank, got, prev);
            if (acp_ready_segbuf(dst) != 0) bad = 1;
            got++;
        }
    }
    if (acp_disconnect_segbuf(src) != 0 || acp_disconnect_segbuf(dst) != 0) bad = 1;
    if (acp_free_segbuf(src) != 0 || acp_free_segbuf(dst) != 0) bad = 1;
    free(out);
    free(in);
    acp_sync();
    if (rank == 0 && !bad) printf("segbuf_stream: %d ranks ok\n", procs);
    acp_finalize();
    return bad;
}
