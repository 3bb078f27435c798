// Uses internal headers (basic/layer.hpp): the probe's cache line is
// acpx-allocated shared memory, mapped by the pair (placement.hpp).
#include "placement.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acp.h"
#include "basic/layer.hpp"
#include "bench_common.hpp"

namespace acpx::bench {
namespace {

// A pair this much slower one way than the fastest seen is far. The
// states measured: 44-63 ns (most of the time), 199-350 (on different
// dies), and in some runs 15-36 (a floor of 26: at 2x the usual state
// counted as far and every tenth sample was measured again).
constexpr double kFar = 2.5;
// ... and over this: a pair that near shares a cache, whatever the floor.
// The main job's compare once read 15 ns (one core's two threads, it
// seems), and at 2.5x that the usual 44-50 ns counted as far.
constexpr double kNearNs = 120;
// Probes at start, 10 ms apart, for the fastest time: with a fifth of
// them far, all 8 far is a chance of 1 in 400,000.
constexpr int kFloorProbes = 8;
constexpr long kFloorGapNs = 10'000'000;
// A probe: the median of kChunks chunks of kTrips round trips (about 60 us
// near), so a chunk the scheduler interrupts does not count.
constexpr int kChunks = 5, kTrips = 100;
// While the pair is far before a sample: sleep this long and look again,
// at most kMaxSleeps times (half a second), then take it as it comes.
constexpr long kSleepNs = 20'000'000;
constexpr int kMaxSleeps = 25;
// A sample with a far pair after it is measured again, at least this
// often, and for as long as the pair has been far for less than
// kPatienceS (measured from the first far probe after a sample): most far
// stretches end within 10 s, and a calibration taken in one is what a
// job then runs by. Past that, the pair is taken as it is now. With 3
// samples in a row taken far (about 8 s) instead, 4 of 6 crowded
// calibrations of one main job were taken in a stretch that ended before
// their check a minute later, which then read 2-3x faster.
constexpr int kMaxRedos = 4;
constexpr double kPatienceS = 90;
// Before the first sample, a fastest time over kNearNs is a run that
// began in a far stretch (the 8 probes above all far: 2 of 28
// calibrations of one main job, whose floors of 209-210 ns let every
// sample through) or a pair that shares no cache (two sockets). The pair
// is probed every kSleepNs until it reads under kNearNs, for at most this
// long: most far stretches end within 10 s, and a pair that never comes
// near costs each run this once, said in its summary.
constexpr double kStartPatienceS = 30;
// What a faked far probe at the start reads (ACPX_BENCH_FAKE_FAR_START).
constexpr double kFakeStartNs = 4 * kNearNs;
// A probe gives up when its peer has not answered for this long.
constexpr double kTimeoutUs = 2e6;

void sleep_ns(long ns) {
    const timespec t{0, ns};
    nanosleep(&t, nullptr);
}

// Until *p holds v; false past the deadline. The clock is read now and
// then (a read costs a third of the time being measured), and then the
// core is yielded too: on a crowded node the peer may wait for it.
bool wait_for(const uint64_t *p, uint64_t v, double deadline_us) {
    for (unsigned spins = 1;; ++spins) {
        if (__atomic_load_n(p, __ATOMIC_ACQUIRE) == v) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (spins % 4096 == 0) {
            if (now_us() > deadline_us) return false;
            sched_yield();
        }
    }
}

}  // namespace

struct Placement::Impl {
    basic::layer::SharedMemory line;  // rank 1's: the ping at byte 0, the pong at byte 64
    basic::layer::Mapped pair;        // where rank 0 or 1 reaches it
    uint64_t seq = 0;                 // the last value sent both ways (the same on ranks 0 and 1)
    bool active = false;
    bool patient = true;  // waits for a near pair (not with --quick)
    double floor_ns = 0;
    long samples = 0, waited = 0, sleeps = 0, redone = 0, taken_far = 0;
    double far_since_us = -1;  // when a sample first found the pair far, while it stays far; -1: near
    double patience_s = kPatienceS;
    // The wait at the start (settle): done yet; seconds waited (-1: none
    // needed); the fastest time before it; whether it ended far.
    bool settled = false;
    double start_wait_s = -1, start_from_ns = 0;
    bool start_far = false;
    double start_patience_s = kStartPatienceS;
    // Tests (ACPX_BENCH_FAKE_FAR): this many more probes read fake_ns,
    // and the probes after them the floor (fake_near); with
    // ACPX_BENCH_FAKE_FAR_START the first fake_start_left read kFakeStartNs.
    long fake_left = 0, fake_start_left = 0;
    double fake_ns = 0;
    bool fake_near = false;

    // Collective: rank 0's one-way ns, on every rank. A probe past its
    // deadline (kTimeoutUs) makes the placement inactive: 0.
    double probe();
    // Probes, and while the pair is far sleeps and probes again (at most
    // kMaxSleeps times); the last probe's ns. Collective.
    double wait_near(int *slept);
    // Collective, once, before the first sample: waits (at most
    // start_patience_s) for a fastest time under kNearNs.
    void settle();
    void fake_from_env();
    void fake_start_from_env();
    bool far(double ns) const { return active && ns > std::max(kFar * floor_ns, kNearNs); }
};

double Placement::Impl::probe() {
    if (!active) return 0;
    const int me = acp_rank();
    double mine = 0;
    acp_sync();
    if (me <= 1) {
        auto *ping = reinterpret_cast<uint64_t *>(pair.ptr), *pong = ping + 8;  // 64 bytes apart: two lines
        const double deadline = now_us() + kTimeoutUs;
        std::vector<double> chunks;
        bool ok = true;
        for (int c = 0; c < kChunks && ok; ++c) {
            const double start = now_us();
            for (int i = 0; i < kTrips && ok; ++i) {
                const uint64_t v = ++seq;
                if (me == 0) {
                    __atomic_store_n(ping, v, __ATOMIC_RELEASE);
                    ok = wait_for(pong, v, deadline);
                } else {
                    ok = wait_for(ping, v, deadline);
                    __atomic_store_n(pong, v, __ATOMIC_RELEASE);
                }
            }
            chunks.push_back((now_us() - start) * 1e3 / (2.0 * kTrips));
        }
        std::sort(chunks.begin(), chunks.end());
        mine = !ok ? -1 : me == 0 ? chunks[chunks.size() / 2] : 0;
    }
    const std::vector<double> all = gather(mine);
    if (*std::min_element(all.begin(), all.end()) < 0) {
        if (me == 0)
            std::fprintf(stderr,
                         "acpx-bench: the placement probe between ranks 0 and 1 took over %.0f s "
                         "(a rank not running, or the node overloaded); samples are taken as they come\n",
                         kTimeoutUs * 1e-6);
        active = false;
        return 0;
    }
    double ns = all[0];
    if (fake_start_left > 0)
        --fake_start_left, ns = kFakeStartNs;  // tests: the same on every rank
    else if (fake_left > 0)
        --fake_left, ns = fake_ns;
    else if (fake_near)
        ns = floor_ns;
    if (ns > 0 && (floor_ns == 0 || ns < floor_ns)) floor_ns = ns;
    return ns;
}

namespace {

// The test variable `name`=COUNT[:SECONDS] into *count and *seconds (left
// as they are without SECONDS); false if unset, or bad (said on stderr).
bool fake_count(const char *name, long *count, double *seconds) {
    const char *v = std::getenv(name);
    if (!v || !*v) return false;
    char *end = nullptr;
    const long n = std::strtol(v, &end, 10);
    double s = *seconds;
    if (*end == ':') s = std::strtod(end + 1, &end);
    if (*end || n < 0 || !(s >= 0)) {
        if (acp_rank() == 0) std::fprintf(stderr, "acpx-bench: %s='%s' is not COUNT[:SECONDS]; ignored\n", name, v);
        return false;
    }
    *count = n;
    *seconds = s;
    return true;
}

}  // namespace

// ACPX_BENCH_FAKE_FAR=COUNT[:PATIENCE_S], for tests: after the floor
// probes, COUNT probes read far (4x the far rule's bound) and the probes
// after them read the floor, and a pair far for PATIENCE_S is taken as it
// is (instead of kPatienceS). The host's own far stretches are not the
// test's: CI once had its pair far for over 60 s, and a test of a short
// stretch then saw a long one. Unset: none.
void Placement::Impl::fake_from_env() {
    if (!fake_count("ACPX_BENCH_FAKE_FAR", &fake_left, &patience_s)) return;
    fake_ns = 4 * std::max(kFar * floor_ns, kNearNs);
    fake_near = true;
}

// ACPX_BENCH_FAKE_FAR_START=COUNT[:PATIENCE_S], for tests: the first
// COUNT probes, the floor probes among them, read kFakeStartNs (over
// kNearNs), and the wait at the start lasts at most PATIENCE_S (instead
// of kStartPatienceS). Unset: none.
void Placement::Impl::fake_start_from_env() {
    fake_count("ACPX_BENCH_FAKE_FAR_START", &fake_start_left, &start_patience_s);
}

Placement::Placement(bool patient) : impl_(std::make_unique<Impl>()) {
    Impl &p = *impl_;
    p.patient = patient;
    const int me = acp_rank();
    if (acp_procs() < 2 || basic::layer::node_id(0) != basic::layer::node_id(1)) return;  // the same on every rank
    acp_ga_t ga = ACP_GA_NULL;
    if (me == 1 && basic::layer::alloc_shared(128, "acpx-bench (placement probe)", &p.line)) ga = p.line.ga;
    ga = gather_ga(ga)[1];
    if (me <= 1 && ga != ACP_GA_NULL) p.pair = basic::layer::mapped(ga, 128);
    const std::vector<double> have = gather(me > 1 || p.pair.ptr ? 1 : 0);
    if (*std::min_element(have.begin(), have.end()) == 0) return;
    p.active = true;
    p.fake_start_from_env();
    for (int k = 0; k < kFloorProbes && p.active; ++k) {
        if (k > 0) sleep_ns(kFloorGapNs);
        p.probe();
    }
    p.active = p.active && p.floor_ns > 0;
    if (p.active) p.fake_from_env();
}

Placement::~Placement() {
    Impl &p = *impl_;
    if (acp_procs() < 2) return;
    p.pair = basic::layer::Mapped{};  // rank 0's mapping first: then rank 1 may unmap
    acp_sync();
    if (p.line.key != ACP_ATKEY_NULL) basic::layer::free_shared(p.line);
}

bool Placement::active() const { return impl_->active; }

double Placement::floor_ns() const { return impl_->active ? impl_->floor_ns : 0; }

void Placement::prefer(double ns) {
    if (impl_->active && ns > 0 && ns < impl_->floor_ns) impl_->floor_ns = ns;
}

double Placement::probe_now() { return impl_->probe(); }

double Placement::Impl::wait_near(int *slept) {
    double now = probe();
    for (*slept = 0; far(now) && *slept < kMaxSleeps; ++*slept) {
        sleep_ns(kSleepNs);
        now = probe();
    }
    return now;
}

void Placement::Impl::settle() {
    settled = true;
    if (!active || floor_ns <= kNearNs) return;
    start_from_ns = floor_ns;
    const double start = now_us();
    double waited = 0;
    // A test's far stretch (ACPX_BENCH_FAKE_FAR) is for the samples'
    // probes: a pair far for real at the start must not use it up here.
    const long sample_fakes = fake_left;
    const bool sample_near = fake_near;
    fake_left = 0, fake_near = false;
    while (floor_ns > kNearNs && waited < start_patience_s) {
        sleep_ns(kSleepNs);
        probe();  // lowers floor_ns
        if (!active) break;
        waited = gather((now_us() - start) * 1e-6)[0];  // rank 0's clock: every rank stops together
    }
    fake_left = sample_fakes, fake_near = sample_near;
    if (!active) return;
    start_wait_s = waited;
    start_far = floor_ns > kNearNs;
    if (start_far && acp_rank() == 0)
        std::fprintf(stderr,
                     "acpx-bench: ranks 0 and 1 stayed over %.0f ns apart (at best %.0f) for the first "
                     "%.0f s; samples are taken on the pair as it is\n",
                     kNearNs, floor_ns, waited);
}

double Placement::wait_near() {
    int slept;
    return impl_->wait_near(&slept);
}

// acpx-bench placement (acpx_bench.cpp): the probe alone, for scripts
// that run other programs (bench/compare) and take their runs by it.
int run_placement(const Options &o) {
    Placement place;
    if (!place.active()) {
        if (acp_rank() == 0) std::fprintf(stderr, "acpx-bench placement: %s\n", place.summary().c_str());
        return acp_procs() < 2 ? 2 : 1;
    }
    place.prefer(o.near_ns);
    const double now = o.near_ns > 0 ? place.wait_near() : place.probe_now();
    // The far rule too, so that scripts judge by it without a copy of it.
    if (acp_rank() == 0)
        std::printf("pair_ns now %.1f best %.1f far_over %.1fx %.0f\n", now, place.floor_ns(), kFar, kNearNs);
    return 0;
}

bool Placement::measure(const std::function<bool(double *)> &measure, double *v) {
    Impl &p = *impl_;
    if (!p.active || !p.patient) return measure(v);
    if (!p.settled) p.settle();
    ++p.samples;
    for (int redo = 0;; ++redo) {
        int slept;
        p.wait_near(&slept);
        p.sleeps += slept;
        p.waited += redo == 0 && slept > 0;
        if (!measure(v)) return false;
        const double after = p.probe();
        if (!p.far(after)) return p.far_since_us = -1, true;
        // The same on every rank: rank 0's clock decides.
        const double far_for_s = gather(p.far_since_us < 0 ? 0 : (now_us() - p.far_since_us) * 1e-6)[0];
        if (p.far_since_us < 0) p.far_since_us = now_us();
        if (redo < kMaxRedos || far_for_s < p.patience_s) {
            ++p.redone;
            continue;
        }
        ++p.taken_far;
        if (acp_rank() == 0)
            std::fprintf(stderr,
                         "acpx-bench: ranks 0 and 1 stayed %.0f ns apart (at best %.0f) for %.0f s; "
                         "samples are taken on the pair as it is now\n",
                         after, p.floor_ns, far_for_s);
        p.floor_ns = after;
        p.far_since_us = -1;
        return true;
    }
}

std::string Placement::summary() const {
    const Impl &p = *impl_;
    if (!p.active) return "ranks 0-1: no placement probe (one rank, two nodes, or the pair not mapped)";
    if (!p.patient) {
        char s[128];
        std::snprintf(s, sizeof s, "ranks 0-1: %.0f ns one way at best; samples taken as they came (--quick)",
                      p.floor_ns);
        return s;
    }
    char s[320];
    std::snprintf(s, sizeof s,
                  "ranks 0-1: %.0f ns one way at best; %ld of %ld samples waited for a near pair (%ld "
                  "sleeps of %ld ms), %ld measured again, %ld taken far (the pair far for over %.0f s)",
                  p.floor_ns, p.waited, p.samples, p.sleeps, kSleepNs / 1'000'000, p.redone, p.taken_far, p.patience_s);
    std::string out = s;
    if (p.start_wait_s >= 0) {
        std::snprintf(s, sizeof s, "; at the start %.0f ns at best, then %s under %.0f ns after %.1f s",
                      p.start_from_ns, p.start_far ? "none" : "a pair", kNearNs, p.start_wait_s);
        out += s;
    }
    return out;
}

}  // namespace acpx::bench
