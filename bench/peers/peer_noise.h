/*
 * Made-up OS jitter and late members for the allreduce benchmarks
 * (acpx-bench allreduce, mpi_coll_bench allreduce), the same in both:
 *
 *   --noise PERIOD:LEN   (us) a POSIX timer per rank (CLOCK_MONOTONIC,
 *                        signal to the main thread only) fires every PERIOD,
 *                        first at a phase drawn from the rank and
 *                        --noise-seed; its handler spins for LEN: seed 001's
 *                        noise (1% duty: 10000:100, or 1000:10)
 *   --late RANK:US:EVERY rank RANK spins US before every EVERY-th round's
 *                        send: the control (no allreduce hides a late entry)
 *
 * Round times go through peer_stats: mean, p99 and p99.9 of one rank's
 * rounds (sorted in place).
 */
#ifndef ACPX_PEER_NOISE_H
#define ACPX_PEER_NOISE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct peer_noise {
    double period_us, len_us;
};
struct peer_late {
    int rank, every;
    double us;
};

/* "PERIOD:LEN" in microseconds, LEN < PERIOD; 0 on success. */
static inline int peer_parse_noise(const char *s, struct peer_noise *n) {
    char tail = 0;
    if (sscanf(s, "%lf:%lf%c", &n->period_us, &n->len_us, &tail) != 2 || !(n->period_us > 0) || !(n->len_us > 0) ||
        n->len_us >= n->period_us)
        return -1;
    return 0;
}

/* "RANK:US:EVERY"; 0 on success. */
static inline int peer_parse_late(const char *s, struct peer_late *l) {
    char tail = 0;
    if (sscanf(s, "%d:%lf:%d%c", &l->rank, &l->us, &l->every, &tail) != 3 || l->rank < 0 || !(l->us > 0) ||
        l->every < 1)
        return -1;
    return 0;
}

static inline double peer_mono_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static inline void peer_spin_us(double us) {
    const double end = peer_mono_us() + us;
    while (peer_mono_us() < end) {
    }
}

/* This process's noise: one timer. */
struct peer_noise_state {
    double len_us;
    timer_t timer;
    int on;
};
static inline struct peer_noise_state *peer_noise_state(void) {
    static struct peer_noise_state s;
    return &s;
}

static inline void peer_noise_handler(int sig) {
    (void)sig;
    peer_spin_us(peer_noise_state()->len_us); /* clock_gettime is async-signal-safe */
}

/* Starts this rank's noise; 0 on success (or with no noise asked for). */
static inline int peer_noise_start(const struct peer_noise *n, int rank, unsigned seed) {
    if (!n || n->period_us <= 0) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = peer_noise_handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    const int sig = SIGRTMIN + 5;
    if (sigaction(sig, &sa, NULL) != 0) return -1;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID; /* the main thread: the one running rounds */
    sev.sigev_signo = sig;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid); /* glibc 2.36 names no sigev_notify_thread_id */
    struct peer_noise_state *st = peer_noise_state();
    if (timer_create(CLOCK_MONOTONIC, &sev, &st->timer) != 0) return -1;
    /* A phase from the rank and the seed (splitmix64), in [0, period). */
    uint64_t x = (uint64_t)rank * 0x9E3779B97F4A7C15ULL + seed + 1;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    const double phase_us = (double)(x % 1000000) / 1e6 * n->period_us + 1;
    struct itimerspec its;
    its.it_value.tv_sec = (time_t)(phase_us / 1e6);
    its.it_value.tv_nsec = (long)((phase_us - (double)its.it_value.tv_sec * 1e6) * 1e3);
    its.it_interval.tv_sec = (time_t)(n->period_us / 1e6);
    its.it_interval.tv_nsec = (long)((n->period_us - (double)its.it_interval.tv_sec * 1e6) * 1e3);
    st->len_us = n->len_us;
    if (timer_settime(st->timer, 0, &its, NULL) != 0) return -1;
    st->on = 1;
    return 0;
}

static inline void peer_noise_stop(void) {
    struct peer_noise_state *st = peer_noise_state();
    if (st->on) timer_delete(st->timer);
    st->on = 0;
}

/* Before round `round`'s send (rounds counted from 0). */
static inline void peer_late_wait(const struct peer_late *l, int me, long round) {
    if (l && l->us > 0 && me == l->rank && round % l->every == 0) peer_spin_us(l->us);
}

static inline int peer_cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct peer_stats {
    double mean, p99, p999;
};
/* Of n round times (sorted here). */
static inline struct peer_stats peer_stats_of(double *t, size_t n) {
    struct peer_stats s = {0, 0, 0};
    if (!n) return s;
    for (size_t i = 0; i < n; ++i) s.mean += t[i] / (double)n;
    qsort(t, n, sizeof *t, peer_cmp_double);
    s.p99 = t[(size_t)((double)(n - 1) * 0.99)];
    s.p999 = t[(size_t)((double)(n - 1) * 0.999)];
    return s;
}

#endif
