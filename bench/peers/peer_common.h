/*
 * What the peer benchmarks share with each other and with acpx-bench, so
 * that every implementation is measured alike: size parsing, the rounds
 * per size (bench/col_bench.cpp uses the same counts), the clock, and the
 * bytes of the checked rounds (every benchmark, acpx's included, checks
 * after timing that two rounds of fresh bytes arrive whole on every rank:
 * a round that moves nothing times fast).
 */
#ifndef ACPX_PEER_COMMON_H
#define ACPX_PEER_COMMON_H

#include <stdlib.h>
#include <sys/time.h>

/* "64", "4K", "1M" -> bytes. */
static inline size_t peer_parse_size(const char *s) {
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    return (size_t)v;
}

/* Timed rounds for one size (quick: 5); warm-up is a tenth of it, plus one:
 * 10000 up to 8 KiB (as OSU's default: 1000 rounds of a 0.1 us bcast are
 * 0.1 ms, which one timer interrupt moves by a tenth), then 8 MB of
 * rounds but at least 100 (as OSU times large messages). At 10 rounds a size (the old floor, from 1 MiB) one
 * hiccup moved a point by a quarter: Open MPI's 2-rank 512 KiB bcast read
 * 17.2-24.3 us from run to run, 15 rounds each. */
/* max_rounds > 0 caps the count (--max-rounds: bench/compare uses it for a
 * peer that busy-polls when ranks outnumber cores, where each round waits
 * for the scheduler and 1000 rounds take minutes). */
static inline int peer_rounds(size_t size, int quick, int max_rounds) {
    if (quick) return 5;
    long n = size <= 8192 ? 10000 : 1000L * 8192 / (long)size;
    if (n < 100) n = 100;
    return max_rounds > 0 && n > max_rounds ? max_rounds : (int)n;
}

static inline double peer_now_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec * 1e6 + tv.tv_usec;
}

/* Checked rounds per size, and the bytes receivers hold before each. */
enum { PEER_CHECKED_ROUNDS = 2, PEER_POISON = 0xEE };

/* Byte i of the block `src` sends in checked round `round`: every round's
 * differ from the last's at every byte, so a stale copy shows. */
static inline unsigned char peer_pattern(int round, int src, size_t i) {
    return (unsigned char)(i * 7 + (size_t)src * 29 + (size_t)round * 101 + 1);
}

static inline void peer_fill(void *block, size_t n, int round, int src) {
    unsigned char *b = (unsigned char *)block;
    for (size_t i = 0; i < n; ++i) b[i] = peer_pattern(round, src, i);
}

/* The first byte of `block` that is not src's round bytes, or -1. */
static inline long peer_first_bad(const void *block, size_t n, int round, int src) {
    const unsigned char *b = (const unsigned char *)block;
    for (size_t i = 0; i < n; ++i)
        if (b[i] != peer_pattern(round, src, i)) return (long)i;
    return -1;
}

#endif
