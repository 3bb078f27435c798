/* An ACP program, as ACP's own samples are written (C, acp.h only): each
 * rank allocates a block on the next rank, fills it from its starter
 * memory, and the owner checks what arrived; then the allocator frees it.
 * Prints one line and exits 0 when every rank agrees. */
#include <acp.h>
#include <stdint.h>
#include <stdio.h>

#define WORDS 256

int main(int argc, char **argv) {
    if (acp_init(&argc, &argv) != 0) return 1;
    int rank = acp_rank(), procs = acp_procs(), bad = 0;
    int next = (rank + 1) % procs, prev = (rank + procs - 1) % procs;
    uint64_t *starter = (uint64_t *)acp_query_address(acp_query_starter_ga(rank));
    acp_ga_t block = acp_malloc(WORDS * sizeof(uint64_t), next);
    if (block == ACP_GA_NULL) return 2;
    /* starter[0]: the GA of my block; starter[1..WORDS]: its contents. */
    starter[0] = block;
    for (int i = 0; i < WORDS; i++) starter[1 + i] = (uint64_t)rank * 1000000 + (uint64_t)i;
    acp_ga_t mine = acp_query_starter_ga(rank);
    acp_complete(acp_copy(block, mine + 8, WORDS * sizeof(uint64_t), ACP_HANDLE_NULL));
    acp_sync();
    /* The block prev allocated here: its GA from prev's starter memory. */
    acp_complete(acp_copy(mine + 8 * (WORDS + 1), acp_query_starter_ga(prev), 8, ACP_HANDLE_NULL));
    const uint64_t *here = (const uint64_t *)acp_query_address((acp_ga_t)starter[WORDS + 1]);
    if (!here) bad = 1;
    for (int i = 0; here && i < WORDS; i++)
        if (here[i] != (uint64_t)prev * 1000000 + (uint64_t)i) bad = 1;
    acp_sync();
    acp_free(block);
    if (bad) fprintf(stderr, "rank %d: the block rank %d allocated here holds the wrong words\n", rank, prev);
    if (rank == 0 && !bad) printf("global_memory: %d ranks ok\n", procs);
    acp_finalize();
    return bad;
}
