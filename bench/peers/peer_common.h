/*
 * What the peer benchmarks share with each other and with acpx-bench, so
 * that every implementation is measured alike: size parsing, the rounds
 * per size (bench/col_bench.cpp uses the same counts), the clock.
 */
#ifndef ACPX_PEER_COMMON_H
#define ACPX_PEER_COMMON_H

#include <stdlib.h>
#include <sys/time.h>

/* "64", "4K", "1M" -> bytes. */
static inline size_t peer_parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    return (size_t)v;
}

/* Timed rounds for one size (quick: 5); warm-up is a tenth of it, plus one. */
/* max_rounds > 0 caps the count (--max-rounds: bench/compare uses it for a
 * peer that busy-polls when ranks outnumber cores, where each round waits
 * for the scheduler and 1000 rounds take minutes). */
static inline int peer_rounds(size_t size, int quick, int max_rounds) {
    if (quick) return 5;
    long n = size <= 8192 ? 1000 : 1000L * 8192 / (long)size;
    if (n < 10) n = 10;
    return max_rounds > 0 && n > max_rounds ? max_rounds : (int)n;
}

static inline double peer_now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e6 + tv.tv_usec;
}

#endif
