// acpx-bench calibrate: the samples of the collectives' model (seed 003,
// section IV-A) on this machine, written as a calibration file.
//   comm:   rounds of a 2-member direct bcast between ranks 0 and 1 on
//           their user arrays: what one command-list entry costs (the
//           receiver's ready signal, the data, its arrival signal). The
//           seed's ping-pong measures the transport alone; this measures
//           the copy as the collectives make it.
//   comm_direct: the same rounds with ACP_COL_INLINE=0, so small ones
//           also go through the data path (what a multi-block bcast's
//           blocks cost); above the inline size it is comm.
//   comm_stream: per block of 2-member pipeline:16 rounds: a block that
//           follows another between the same pair (no ready signal to
//           wait for; 3.2 us, not 4.3, for small ones on the 2-core VM).
//   comm_pair: rounds of a 2-member direct allgather, sizes above the
//           inline slots: both ranks copy a block to each other at once,
//           each on its core, and share the node's memory while they do;
//   comm_pair_inline: the same rounds through the inline slots (sizes up
//           to them): what a block's copy out of the slots adds to an
//           allgather's round (Calibration::inline_copy_out);
//   memcpy: rank 0 alone, from and to addresses that change every
//           iteration, so sizes below the cache do not hit it.
//   switch_s: rank 0 and a child process on rank 0's CPU hand the core
//           to each other through a shared flag, each yielding until its
//           turn, as acpx's waits do on a node of more ranks than cores
//           (ACP_IDLE=auto): what the model adds to a step there.
//   comm_footprint: a 1 MiB entry of a 2-member direct bcast whose round
//           offset walks arrays of 1 to 128 MiB, by the bytes the two
//           arrays span: how much slower a copy gets once a round's data
//           outgrows the caches (a 4 MiB allgather on 3 ranks spans 36 MiB
//           and ran at 0.75x the speed its copies predicted).
// Every round here runs with ACP_COL_RING_DEPTH=2 (see run_calibrate).
// On 2 ranks of two nodes (after the run on one), it adds to that file
// the network's:
//   comm_net, comm_net_stream: comm and comm_stream, measured alike
//           between the two nodes (what a copy across nodes costs);
//   comm_net_pair: rounds of a 2-member direct allgather between the
//           nodes, a copy each way at once (a full-duplex link carries
//           both; two emulated hosts on one machine's cores do not).
// Every curve but memcpy is the median of three interleaved passes, each
// sample timed for at least 50 ms, and a sample standing over 1.25x
// above the line between its neighbours is measured again
// (remeasure_bumps); --quick: one pass, short, nothing measured again.
// All of that is one sweep; the file holds each sample's median over
// --sweeps of them (3; --quick: 1), so that every curve is measured in
// each of the machine's slow and fast stretches (median_of_sweeps).
// Every sample is taken while ranks 0 and 1 run on a near pair of cores
// (placement.hpp): on this VM a far pair made calibrations 2-4x slower at
// 1-16 KiB than the checks they were judged by.
//
// Uses internal headers (collectives/model, middle/, basic/layer.hpp):
// calibrating the model is measuring the library's own internals.
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "acp.h"
#include "basic/layer.hpp"
#include "bench_common.hpp"
#include "placement.hpp"
#include "collectives/model/calibration.hpp"
#include "collectives/model/predict.hpp"
#include "middle/params.hpp"
#include "middle/plan.hpp"

namespace acpx::bench {
namespace {

namespace cm = collectives::model;

using Measure = std::function<bool(size_t, double *)>;

// A sample standing this far above the line between its neighbours is
// measured again (cm::bumps). One launch on the 2-core VM read its
// 512 KiB entry at 49 us, between 18 at 256 KiB and 69 at 1 MiB (1.39x
// the line; 0.98x in the other launches), and predicted the trees
// there at 1.4x what its check measured right after. A real step (the
// inline slots' end, 64 KiB: 128 KiB stands 1.2-1.6x the line) stays
// when measured again.
constexpr double kBump = 1.25;
constexpr int kBumpRetries = 2;

// secs[i] was measured (median_of_passes) at x[i]: each bump among them
// is measured kBumpRetries more times and keeps the median of its
// readings (cm::median). It kept the least of them until
// 2026-11-29, and a real step is a bump every time: 128 KiB, past the
// inline slots, stood 1.24-1.57x the line in every 4-rank calibration of
// seven stored main jobs and model checks, and the 4-rank chain there
// read 1.10x its calibrated time in their checks (median of 38 launches),
// where 64 and 256 KiB read 1.03 and 1.01. Every rank sees the same
// times (the max over ranks), so all take the same turns. False if a
// measurement fails.
bool remeasure_bumps(const Options &o, Placement &place, const std::vector<double> &x, const Measure &measure,
                     std::vector<double> *secs) {
    if (o.quick) return true;
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < x.size(); ++i) pts.emplace_back(x[i], (*secs)[i]);
    const std::vector<size_t> bumped = cm::bumps(pts, kBump);
    if (bumped.empty()) return true;
    std::vector<std::vector<double>> readings;
    for (size_t i : bumped) readings.push_back({(*secs)[i]});
    const auto one = [&](size_t j, double *s) { return measure(bumped[j], s); };
    for (int retry = 0; retry < kBumpRetries; ++retry) {
        std::vector<double> again;
        if (!median_of_passes(3, bumped.size(), one, &again, &place)) return false;
        for (size_t j = 0; j < bumped.size(); ++j) readings[j].push_back(again[j]);
    }
    for (size_t j = 0; j < bumped.size(); ++j) {
        double &kept = (*secs)[bumped[j]];
        const double settled = cm::median(readings[j]);
        if (acp_rank() == 0 && std::abs(settled - kept) > 0.1 * kept)
            std::fprintf(stderr,
                         "acpx-bench calibrate: the %.0f-byte sample read %.3f us, above its "
                         "neighbours; measured again, its median is %.3f us\n",
                         x[bumped[j]], kept * 1e6, settled * 1e6);
        kept = settled;
    }
    return true;
}

// Seconds of a direct bcast (or allgather) round over `group` (the max
// over ranks, as acpx-bench bcast reports), per size: the median of three passes over
// all sizes (one with --quick), bumps measured again. A single pass left
// dents of 20% in the curves, and the model reads their shape. Empty on
// failure.
std::vector<double> round_seconds(const Options &o, Placement &place, std::vector<int> &group,
                                  const std::vector<size_t> &sz, bool bcast = true) {
    const Measure measure = [&](size_t i, double *s) {
        RoundTimes t;
        const int rounds = model_rounds(o, sz[i], static_cast<int>(group.size()));
        if (!time_rounds(bcast, false, group, sz[i], rounds, &t, model_min_ms(o))) return false;
        if (t.wrong_ranks > 0) return wrong_data("calibrate", t, sz[i]);
        *s = t.max_us * 1e-6;
        return true;
    };
    std::vector<double> out;
    const bool ok = median_of_passes(o.quick ? 1 : 3, sz.size(), measure, &out, &place) &&
                    remeasure_bumps(o, place, std::vector<double>(sz.begin(), sz.end()), measure, &out);
    return ok ? out : std::vector<double>{};
}

// A curve of what one copy (or block) of these rounds costs: (size /
// blocks, round time / copies) for each size measured.
std::vector<std::pair<double, double>> per_copy(const std::vector<size_t> &sizes, const std::vector<double> &rounds,
                                                double copies, double blocks = 1) {
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i < sizes.size(); ++i)
        out.emplace_back(static_cast<double>(sizes[i]) / blocks, rounds[i] / copies);
    return out;
}

// One command-list entry between two members, per size: the round of a
// 2-member direct bcast (the receiver's ready signal, the data, its
// arrival signal). On rank 0.
std::vector<std::pair<double, double>> entry_times(const Options &o, Placement &place, const std::vector<size_t> &sz) {
    std::vector<int> pair = {0, 1};
    acp_set_col_algorithm("binomial", nullptr);
    const std::vector<double> secs = round_seconds(o, place, pair, sz);
    acp_set_col_algorithm("", nullptr);
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i < secs.size(); ++i) out.emplace_back(static_cast<double>(sz[i]), secs[i]);
    return out;
}

// The inline cap of a 2-member handle on one node, as create sets it by
// default: the rounds of the pair's curves up to it go through the slots.
uint32_t inline_cap(middle::Kind kind) { return middle::inline_bytes_for(kind, 2, 1, false, middle::kInlineAuto); }

// Rounds measured without the inline slots (ACP_COL_INLINE=0) while it
// lives: create reads it.
struct WithoutInlineSlots {
    WithoutInlineSlots() { setenv("ACP_COL_INLINE", "0", 1); }
    ~WithoutInlineSlots() { unsetenv("ACP_COL_INLINE"); }
    WithoutInlineSlots(const WithoutInlineSlots &) = delete;
    WithoutInlineSlots &operator=(const WithoutInlineSlots &) = delete;
};

// A block right behind another between ranks 0 and 1: 2-member
// pipeline:16 rounds / 16, per block of at least 64 bytes (the blocks'
// alignment). False if a measurement fails.
bool stream_times(const Options &o, Placement &place, const std::vector<size_t> &sz,
                  std::vector<std::pair<double, double>> *out) {
    std::vector<size_t> rounds;
    for (size_t s : sz)
        if (s >= 16 * 64) rounds.push_back(s);
    std::vector<int> pair = {0, 1};
    acp_set_col_algorithm("pipeline:16", nullptr);
    const std::vector<double> piped = round_seconds(o, place, pair, rounds);
    acp_set_col_algorithm("", nullptr);
    if (piped.size() != rounds.size()) return false;
    *out = per_copy(rounds, piped, 16, 16);
    return true;
}

// comm_footprint (see the top): seconds of a 1 MiB entry against the
// bytes both ranks' arrays span. Each pass walks the array at least twice,
// so the largest ones are out of every cache when they are read again.
std::vector<std::pair<double, double>> footprint_times(const Options &o, Placement &place) {
    constexpr size_t kEntry = 1u << 20;
    std::vector<size_t> arrays;
    for (size_t a = kEntry; a <= (o.quick ? 16u : 128u) << 20; a *= o.quick ? 16 : 2) arrays.push_back(a);
    std::vector<int> pair = {0, 1};
    acp_set_col_algorithm("binomial", nullptr);
    const Measure measure = [&](size_t i, double *s) {
        const size_t bytes = arrays[i], slots = bytes / kEntry;
        std::vector<char> array(bytes, 1);
        const acp_col_t h = acp_create_bcast_direct(0, 2, pair.data(), array.data(), bytes);
        if (h == ACP_COL_NULL) return false;
        int rounds = std::max(model_rounds(o, kEntry, 2), static_cast<int>(2 * slots));
        bool sent = true;
        const double warm_start = now_us();
        for (size_t k = 0; k < slots && sent; ++k)  // warm-up: the whole array once
            sent = acp_wait_col(acp_send_bcast_direct(h, k * kEntry, kEntry)) == 0;
        // At least model_min_ms, as the round samples: the spans up to
        // 8 MiB are every factor's base, and their 41 rounds took 3 ms.
        rounds = rounds_for_min_ms(rounds, (now_us() - warm_start) / static_cast<double>(slots), model_min_ms(o));
        acp_sync();
        const double start = now_us();
        for (int k = 0; k < rounds && sent; ++k)
            sent = acp_wait_col(acp_send_bcast_direct(h, (k % slots) * kEntry, kEntry)) == 0;
        const double mine = (now_us() - start) / rounds;
        if (acp_free_col(h) != 0 || !sent) return false;
        const std::vector<double> all = gather(mine);
        *s = *std::max_element(all.begin(), all.end()) * 1e-6;
        return true;
    };
    std::vector<double> secs, spans;
    for (size_t a : arrays) spans.push_back(2.0 * static_cast<double>(a));
    const bool ok = median_of_passes(o.quick ? 1 : 3, arrays.size(), measure, &secs, &place) &&
                    remeasure_bumps(o, place, spans, measure, &secs);
    acp_set_col_algorithm("", nullptr);
    std::vector<std::pair<double, double>> out;
    if (!ok) return out;
    for (size_t i = 0; i < arrays.size(); ++i) out.emplace_back(spans[i], secs[i]);
    return out;
}

std::vector<std::pair<double, double>> memcpy_samples(const Options &o, const std::vector<size_t> &sz) {
    constexpr size_t kRegion = 256u << 20;  // well above any last-level cache
    std::vector<char> region(kRegion + 2 * sz.back(), 1);
    std::vector<std::pair<double, double>> out;
    for (size_t size : sz) {
        const size_t stride = (size + 4095) / 4096 * 4096;
        const int iters = model_rounds(o, size, 1) * 2;
        size_t at = 0;
        const double start = now_us();
        for (int i = 0; i < iters; ++i) {
            if (at + stride + size > kRegion) at = 0;
            std::memcpy(region.data() + at + stride, region.data() + at, size);
            at += 2 * stride;
        }
        out.emplace_back(static_cast<double>(size), (now_us() - start) / iters * 1e-6);
    }
    return out;
}

// switch_s (see the top): seconds per handover of rank 0's CPU between
// it and a child process; 0 if it cannot be measured (said on stderr).
// The child only spins on the shared flag and leaves by _exit: it runs
// no code of the library it was forked from.
double switch_seconds(const Options &o) {
    const int cpu = sched_getcpu();
    cpu_set_t before, one;
    if (cpu < 0 || sched_getaffinity(0, sizeof before, &before) != 0) return 0;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    void *mem = mmap(nullptr, sizeof(std::atomic<uint64_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return 0;
    auto *turn = new (mem) std::atomic<uint64_t>(0);
    const uint64_t handovers = o.quick ? 4000 : 40000;  // 5-50 ms at 1.2 us each
    // Even turns are this process's, odd ones the child's.
    const auto play = [turn, handovers](uint64_t first) {
        for (uint64_t k = first; k < handovers; k += 2) {
            while (turn->load(std::memory_order_acquire) != k) sched_yield();
            turn->store(k + 1, std::memory_order_release);
        }
    };
    double secs = 0;
    if (sched_setaffinity(0, sizeof one, &one) == 0) {
        const pid_t child = fork();
        if (child == 0) {
            play(1);
            _exit(0);
        }
        if (child > 0) {
            const double start = now_us();
            play(0);
            while (turn->load(std::memory_order_acquire) != handovers) sched_yield();
            secs = (now_us() - start) * 1e-6 / static_cast<double>(handovers);
            int status = 0;
            if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) secs = 0;
        }
        sched_setaffinity(0, sizeof before, &before);
    }
    munmap(mem, sizeof(std::atomic<uint64_t>));
    if (secs == 0)
        std::fprintf(stderr, "acpx-bench calibrate: the core's handover could not be timed: %s\n",
                     std::strerror(errno));
    return secs;
}

std::string machine() {
    char host[256] = "?";
    gethostname(host, sizeof host - 1);
    std::ifstream f("/proc/cpuinfo");
    std::string line, cpu;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) {
            cpu = line.substr(line.find(':') + 2);
            break;
        }
    return std::string(host) + ", " + cpu + ", " + std::to_string(cm::online_cores()) + " cpus";
}

std::string utc_now() {
    char buf[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

bool mkdirs_for(const std::string &file) {
    for (size_t i = 1; (i = file.find('/', i)) != std::string::npos; ++i)
        if (mkdir(file.substr(0, i).c_str(), 0755) != 0 && errno != EEXIST) return false;
    return true;
}

// The 2-rank file at path, which the network run adds to;
// false (said on rank 0, naming what the run adds) if there is none.
bool read_two_rank_file(const std::string &path, const char *adds, cm::Calibration *c) {
    std::string why;
    std::ifstream in(path);
    std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool have = in.good() || in.eof();
    if (have && cm::parse_calibration(json, c, &why)) return true;
    if (acp_rank() == 0)
        std::fprintf(stderr,
                     "acpx-bench calibrate: on 2 ranks of two nodes it adds %s to %s, which %s; run it "
                     "on 2 ranks of one node first\n",
                     adds, path.c_str(), have ? why.c_str() : "cannot be read");
    return false;
}

// What a table's heading says of its samples' sweeps ("" for one).
std::string sweeps_note(const Options &o) {
    return o.sweeps > 1 ? ", each sample the median of " + std::to_string(o.sweeps) + " sweeps" : "";
}

// o.sweeps runs of `measure`, each into a copy of `base`, spread over the
// calibration's whole time; *out gets their per-sample median (rank 0's
// is the one written). A run measures every curve once (each sample the
// median of its passes), so every curve is measured in each stretch of
// the machine, not one curve in a fast stretch and another in a slow
// one. False as soon as a run fails.
bool median_of_sweeps(const Options &o, const cm::Calibration &base,
                      const std::function<bool(cm::Calibration *)> &measure, cm::Calibration *out) {
    std::vector<cm::Calibration> runs;
    const double start = now_us();
    for (int s = 1; s <= o.sweeps; ++s) {
        cm::Calibration c = base;
        if (!measure(&c)) return false;
        runs.push_back(std::move(c));
        if (acp_rank() == 0 && o.sweeps > 1) {
            std::printf("# sweep %d of %d measured (%.0f s)\n", s, o.sweeps, (now_us() - start) * 1e-6);
            std::fflush(stdout);
        }
    }
    *out = cm::median_calibration(runs);
    return true;
}

// c written to path, said on stdout as `what` path `after` (rank 0); 1
// if it cannot be.
int write_calibration(const cm::Calibration &c, const std::string &path, const char *what, const char *after = "") {
    std::ofstream f(path);
    f << cm::to_json(c);
    if (!f) return std::fprintf(stderr, "acpx-bench calibrate: cannot write '%s'\n", path.c_str()), 1;
    std::printf("# %s %s%s\n", what, path.c_str(), after);
    return 0;
}

// 2 ranks on two nodes: the network's copies, added to the 2-rank file.
int calibrate_network(const Options &o, Placement &place, const std::vector<size_t> &sz, const std::string &path) {
    cm::Calibration c;
    if (!read_two_rank_file(path, "the network's curves", &c)) return 2;
    const auto measure = [&](cm::Calibration *k) {
        const std::vector<std::pair<double, double>> entry = entry_times(o, place, sz);
        std::vector<std::pair<double, double>> stream;
        if (entry.size() != sz.size() || !stream_times(o, place, sz, &stream)) return false;
        k->comm_net = cm::Samples(entry);
        k->comm_net_stream = cm::Samples(stream);
        std::vector<size_t> nonzero;
        for (size_t s : sz)
            if (s > 0) nonzero.push_back(s);
        std::vector<int> pair = {0, 1};
        const std::vector<double> both = round_seconds(o, place, pair, nonzero, false);
        if (both.size() != nonzero.size()) return false;
        k->comm_net_pair = cm::Samples(per_copy(nonzero, both, 1));
        return true;
    };
    if (!median_of_sweeps(o, c, measure, &c)) return 1;
    if (acp_rank() != 0) return 0;
    std::printf("# acpx calibration, across nodes: 2 ranks on two nodes, transport %s%s\n", transport_label().c_str(),
                sweeps_note(o).c_str());
    std::printf("%-10s %14s %14s %14s\n", "# Size", "net(us)", "comm(us)", "net pair(us)");
    for (const auto &[b, t] : c.comm_net.points())
        std::printf("%-10.0f %14.3f %14.3f %14.3f\n", b, t * 1e6, c.comm.at(b) * 1e6,
                    b > 0 ? c.comm_net_pair.at(b) * 1e6 : 0.0);
    std::printf("# a block right behind another across nodes (2-member pipeline:16 round / 16)\n%-10s %14s\n",
                "# Block", "stream(us)");
    for (const auto &[b, t] : c.comm_net_stream.points()) std::printf("%-10.0f %14.3f\n", b, t * 1e6);
    return write_calibration(c, path, "added to");
}

// The pair's curves and memcpy (rank 0's) into *c. Collective; false if a
// measurement fails.
bool measure_pair(const Options &o, Placement &place, const std::vector<size_t> &sz, cm::Calibration *c) {
    // First: it touches 128 MiB arrays, and the samples after it should
    // see the memory as the jobs after calibrate will.
    const auto footprint = footprint_times(o, place);
    if (footprint.empty()) return false;
    c->comm_footprint = cm::Samples(footprint);
    c->comm = cm::Samples(entry_times(o, place, sz));
    if (c->comm.points().size() != sz.size()) return false;
    std::vector<size_t> small;
    for (size_t s : sz)
        if (s <= inline_cap(middle::Kind::kBcast)) small.push_back(s);
    std::vector<std::pair<double, double>> direct;
    {
        const WithoutInlineSlots no_slots;
        direct = entry_times(o, place, small);
    }
    if (direct.size() != small.size()) return false;
    c->comm_direct = cm::Samples(cm::slotless_curve(direct, c->comm.points()));
    std::vector<std::pair<double, double>> stream;
    if (!stream_times(o, place, sz, &stream)) return false;
    c->comm_stream = cm::Samples(stream);
    std::vector<size_t> large, slotted;
    for (size_t s : sz)
        if (s > 0) (s > inline_cap(middle::Kind::kAllgather) ? large : slotted).push_back(s);
    std::vector<int> pair = {0, 1};
    if (!large.empty()) {
        const std::vector<double> both = round_seconds(o, place, pair, large, false);
        if (both.size() != large.size()) return false;
        c->comm_pair = cm::Samples(per_copy(large, both, 1));
    }
    if (!slotted.empty()) {
        const std::vector<double> both = round_seconds(o, place, pair, slotted, false);
        if (both.size() != slotted.size()) return false;
        c->comm_pair_inline = cm::Samples(per_copy(slotted, both, 1));
    }
    if (acp_rank() == 0) {
        c->memcpy = cm::Samples(memcpy_samples(o, sz));
        c->switch_s = switch_seconds(o);
    }
    return true;
}

// 2 ranks of one node: the pair's curves and memcpy, a new file at path.
int calibrate_pair(const Options &o, Placement &place, const std::vector<size_t> &sz, const std::string &out) {
    const int me = acp_rank(), np = acp_procs();
    cm::Calibration c;
    const auto measure = [&](cm::Calibration *k) { return measure_pair(o, place, sz, k); };
    if (!median_of_sweeps(o, c, measure, &c)) return 1;
    if (me != 0) return 0;
    c.machine = machine();
    c.created = utc_now();
    c.transport = transport_label();
    c.cores = cm::online_cores();
    c.pair_ns = place.floor_ns();
    std::printf("# acpx calibration, %d processes, transport %s, %u cores%s\n", np, c.transport.c_str(), c.cores,
                sweeps_note(o).c_str());
    std::printf("%-10s %14s %14s %14s %14s\n", "# Size", "comm(us)", "direct(us)", "memcpy(us)", "pair(us)");
    for (size_t i = 0; i < sz.size(); ++i) {
        char both[32] = "-";  // a 2-member allgather round (through the slots up to them), where measured
        const cm::Samples &pair = sz[i] > inline_cap(middle::Kind::kAllgather) ? c.comm_pair : c.comm_pair_inline;
        if (!pair.empty() && sz[i] >= pair.points().front().first)
            std::snprintf(both, sizeof both, "%.3f", pair.at(static_cast<double>(sz[i])) * 1e6);
        std::printf("%-10zu %14.3f %14.3f %14.3f %14s\n", sz[i], c.comm.points()[i].second * 1e6,
                    c.comm_direct.points()[i].second * 1e6, c.memcpy.points()[i].second * 1e6, both);
    }
    std::printf("# a block right behind another (2-member pipeline:16 round / 16)\n%-10s %14s\n", "# Block",
                "stream(us)");
    for (const auto &[b, t] : c.comm_stream.points()) std::printf("%-10.0f %14.3f\n", b, t * 1e6);
    std::printf("# a 1 MiB entry whose rounds walk arrays spanning this many bytes (both ranks)\n%-10s %14s\n",
                "# Span", "entry(us)");
    for (const auto &[b, t] : c.comm_footprint.points()) std::printf("%-10.0f %14.3f\n", b, t * 1e6);
    std::printf("# a core handed over between two processes (sched_yield): %.3f us\n", c.switch_s * 1e6);
    if (out.empty() || !mkdirs_for(out))
        return std::fprintf(stderr, "acpx-bench calibrate: cannot write '%s'\n", out.c_str()), 1;
    return write_calibration(c, out, "written to", " (the library reads it at create; ACP_CALIBRATION overrides)");
}

}  // namespace

int run_calibrate(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    // The model prices one round, from start to end on every member
    // (seed 003). Back-to-back small bcast rounds would overlap (a root
    // runs up to 63 of them ahead, acp.h), so a sample would be a share
    // of a round, and allgathers, whose members move in step, would be
    // priced by it. One slot ahead: the rounds of the seed's measure.
    setenv("ACP_COL_RING_DEPTH", "2", 1);
    std::vector<size_t> sz;
    // Every size even with --quick (sizes(o) would keep two): the model
    // interpolates between these.
    for (size_t s = o.min_size; s <= o.max_size; s *= 2) sz.push_back(s);
    sz.insert(sz.begin(), 0);  // the zero-byte entry: its signals alone
    const std::string out = o.out.empty() ? cm::user_calibration_path() : o.out;
    // Each rank on a core of its own: a node running more ranks than
    // cores is priced from these by time slicing (collectives/model/predict.hpp).
    if (np != 2) {
        if (me == 0)
            std::fprintf(stderr,
                         "acpx-bench calibrate: runs on 2 ranks, of one node or of two (acprun -n 2), not "
                         "%d\n",
                         np);
        return 2;
    }
    Placement place(!o.quick);
    int rc;
    if (basic::layer::node_id(0) != basic::layer::node_id(1))
        rc = calibrate_network(o, place, sz, out);
    else
        rc = calibrate_pair(o, place, sz, out);
    if (me == 0 && rc == 0) std::printf("# placement: %s\n", place.summary().c_str());
    return rc;
}

}  // namespace acpx::bench
