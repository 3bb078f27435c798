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
//   comm_footprint: a 1 MiB entry of a 2-member direct bcast whose round
//           offset walks arrays of 1 to 128 MiB, by the bytes the two
//           arrays span: how much slower a copy gets once a round's data
//           outgrows the caches (a 4 MiB allgather on 3 ranks spans 36 MiB
//           and ran at 0.75x the speed its copies predicted).
// On more ranks than the CPUs they may run on (acprun -n CORES+1 after
// the 2-rank run; on a large node a few CPUs: taskset -c 0,1 acprun -n 3,
// written as crowd_cores; at most 64 ranks) it adds to that file:
//   comm_crowded: a step of a chain bcast over every rank (its round time
//           / (ranks - 1)): one entry while ranks wait for CPUs;
//   comm_fanout: a copy of a flat tree over every rank (knomial:ranks,
//           the root copies to all others; round time / (ranks - 1));
//   comm_crowded_direct, comm_fanout_direct: both again with
//           ACP_COL_INLINE=0 up to the inline size (above it, the same):
//           what a multi-block bcast's blocks cost on the crowded node;
//   comm_crowded_overlap, comm_fanout_overlap: the chain and the flat
//           tree again through the slots (1 byte to the inline size),
//           back to back at the ring depth a handle of that size gets
//           (not 2): its root runs rounds ahead, and the model prices
//           such rounds by the busiest core's copies (model/overlap.hpp);
//   comm_crowd_stream: a block of a pipeline:16 over every rank (round
//           time / (16 + ranks - 2)), by block size, blocks of 64 bytes
//           up to a quarter of the largest size (pipeline:4's blocks).
//   comm_crowd_stream4: the same blocks in pipeline:4 rounds (round
//           time / (4 + ranks - 2)): with the above, what a pipeline's
//           round costs beyond its blocks; both kept rising (blocks
//           read out of order are kept at their mean, and said);
//   comm_crowd_gather: a block of a Bruck allgather over every rank
//           (round time / (ranks - 1)), by block size, from the first
//           size above the allgather's inline slots: how much slower an
//           allgather's copies are, whose arrays hold every block;
//   comm_crowd_ring: the same of a ring allgather, from the smallest
//           size: above the inline slots, what an allgather's copy costs
//           more when its receiver forwards it from another core (the
//           chain's forward cost does not carry over); up to them, what
//           its inline copy across cores costs more;
//   comm_crowd_scatter: a scatter_ring bcast over every rank (round time
//           / (ranks - 1)), by round size from 32 KiB: likewise for its
//           forwards, whose copies run on both cores at once;
//   comm_crowd_tree: a binomial bcast over every rank (round time /
//           (ranks - 1)), by size above the inline slots, from 4 ranks
//           (on 3 it is the flat tree): the one calibrated bcast whose
//           copies run on two cores at once, what such copies cost;
//   converge_slow: how many times longer puts from ranks 0 and 1 (two
//           cores) into adjacent ranges of rank 2's array take at once
//           than each alone: under Cross-Memory Attach the two writers
//           contend in the receiver's page tables when their ranges share
//           a 2 MiB span (on the 2-core VM 1.2-1.4x at 64 KiB-1 MiB, 1.05-
//           1.1 at 2-4 MiB; ranges 2 MiB apart, or into two ranks: 1.0).
// and prints what the model derives from them (model::crowd_costs).
// Every round here but the _overlap ones runs with ACP_COL_RING_DEPTH=2
// (see run_calibrate).
// On 2 ranks of two nodes (after the run on one), it adds to that file
// the network's:
//   comm_net, comm_net_stream: comm and comm_stream, measured alike
//           between the two nodes (what a copy across nodes costs).
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
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "acp.h"
#include "basic/layer.hpp"
#include "bench_common.hpp"
#include "placement.hpp"
#include "collectives/model/calibration.hpp"
#include "collectives/model/overlap.hpp"
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

// The crowded scatter_ring is measured from this size: on the 2-core VM
// its 4-rank rounds took 1.6-1.9x the best algorithm's at 32 KiB and 3-5x
// at 16 KiB (8 model checks), and the model keeps the chain's forward
// cost below it.
constexpr size_t kScatterFrom = 32768;

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
            std::fprintf(stderr, "acpx-bench calibrate: the %.0f-byte sample read %.3f us, above its "
                         "neighbours; measured again, its median is %.3f us\n", x[bumped[j]], kept * 1e6,
                         settled * 1e6);
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

// Rounds measured without the inline slots (ACP_COL_INLINE=0) while it
// lives: create reads it.
struct WithoutInlineSlots {
    WithoutInlineSlots() { setenv("ACP_COL_INLINE", "0", 1); }
    ~WithoutInlineSlots() { unsetenv("ACP_COL_INLINE"); }
    WithoutInlineSlots(const WithoutInlineSlots &) = delete;
    WithoutInlineSlots &operator=(const WithoutInlineSlots &) = delete;
};

// Rounds at the ring depth a handle of their size gets (ACP_COL_RING_
// DEPTH unset: back to back, they overlap) while it lives; then one slot
// ahead again, as the rest of calibrate measures (run_calibrate).
struct AtDefaultRingDepth {
    AtDefaultRingDepth() { unsetenv("ACP_COL_RING_DEPTH"); }
    ~AtDefaultRingDepth() { setenv("ACP_COL_RING_DEPTH", "2", 1); }
    AtDefaultRingDepth(const AtDefaultRingDepth &) = delete;
    AtDefaultRingDepth &operator=(const AtDefaultRingDepth &) = delete;
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

// converge_slow (see the top), per size: ranks 0 and 1's puts into
// adjacent ranges of rank 2's array at once, over each one's alone.
// Both copy back to back the same count of times, so their copies
// overlap but at the ends. Collective; empty on failure.
std::vector<std::pair<double, double>> converge_factors(const Options &o, Placement &place,
                                                        const std::vector<size_t> &sz) {
    const int me = acp_rank();
    // Whether two ranges share the receiver's page-table spans (2 MiB
    // each on x86-64) depends on where the array starts, which a user's
    // allocation leaves to chance: each size is measured at four offsets
    // spread over one span, and the times summed (one offset alone read
    // 0.99-1.57x at 512 KiB from launch to launch).
    constexpr size_t kSpan = 2u << 20, kOffsets = 4;
    std::vector<char> array(2 * sz.back() + kSpan, static_cast<char>(me));
    const acp_atkey_t key = acp_register_memory(array.data(), array.size(), 0);
    const acp_ga_t mine = key == ACP_ATKEY_NULL ? ACP_GA_NULL : acp_query_ga(key, array.data());
    const std::vector<acp_ga_t> ga = gather_ga(mine);
    if (std::count(ga.begin(), ga.end(), ACP_GA_NULL) > 0) {
        if (key != ACP_ATKEY_NULL) acp_unregister_memory(key);
        return {};
    }
    // Per rank, seconds of a put of `bytes` into rank 2, `count` times
    // back to back, by the ranks in `who` at once (the others: 0).
    const auto puts = [&](size_t bytes, size_t offset, std::initializer_list<int> who, int count) {
        double mine_us = 0;
        acp_sync();
        if (std::find(who.begin(), who.end(), me) != who.end()) {
            const acp_ga_t dst = ga[2] + offset + static_cast<acp_ga_t>(me) * bytes;
            acp_complete(acp_copy(dst, mine, bytes, ACP_HANDLE_NULL));  // the pages touched once
            const double start = now_us();
            for (int k = 0; k < count; ++k) acp_complete(acp_copy(dst, mine, bytes, ACP_HANDLE_NULL));
            mine_us = (now_us() - start) / count;
        }
        return gather(mine_us);
    };
    // Each writer's time beside the other over its time alone, summed
    // over both: the slower of the two would read high on noise alone.
    const Measure measure = [&](size_t i, double *s) {
        const int count = model_rounds(o, sz[i], 2);
        double alone = 0, beside = 0;
        for (size_t k = 0; k < kOffsets; ++k) {
            const size_t at = k * kSpan / kOffsets;
            alone += puts(sz[i], at, {0}, count)[0] + puts(sz[i], at, {1}, count)[1];
            const std::vector<double> both = puts(sz[i], at, {0, 1}, count);
            beside += both[0] + both[1];
        }
        *s = alone > 0 ? beside / alone : 1;
        return true;
    };
    // Three passes even when quick: a ratio of two short timings, on a
    // core the third rank shares. One quick pass read 0.50 at 32 KiB in
    // a CI run (two writers at once twice as fast as apart), where three
    // reruns of that suite in the same build read above 0.5.
    std::vector<double> factors;
    const bool ok = median_of_passes(3, sz.size(), measure, &factors, &place);
    acp_unregister_memory(key);
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; ok && i < sz.size(); ++i) out.emplace_back(static_cast<double>(sz[i]), factors[i]);
    return out;
}

// The 2-rank file at path, which the crowded and network runs add to;
// false (said on rank 0, naming what the run adds) if there is none.
bool read_two_rank_file(const std::string &path, const char *adds, cm::Calibration *c) {
    std::string why;
    std::ifstream in(path);
    std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool have = in.good() || in.eof();
    if (have && cm::parse_calibration(json, c, &why)) return true;
    if (acp_rank() == 0)
        std::fprintf(stderr, "acpx-bench calibrate: on %d ranks%s it adds %s to %s, which %s; run it on 2 ranks "
                     "of one node first\n", acp_procs(), acp_procs() == 2 ? " of two nodes" : "", adds, path.c_str(),
                     have ? why.c_str() : "cannot be read");
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

// Whether `bytes` is one of s's sample sizes.
bool sampled(const cm::Samples &s, double bytes) {
    const auto &p = s.points();
    return std::any_of(p.begin(), p.end(), [bytes](const auto &x) { return x.first == bytes; });
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
        return true;
    };
    if (!median_of_sweeps(o, c, measure, &c)) return 1;
    if (acp_rank() != 0) return 0;
    std::printf("# acpx calibration, across nodes: 2 ranks on two nodes, transport %s%s\n", transport_label().c_str(),
                sweeps_note(o).c_str());
    std::printf("%-10s %14s %14s\n", "# Size", "net(us)", "comm(us)");
    for (const auto &[b, t] : c.comm_net.points())
        std::printf("%-10.0f %14.3f %14.3f\n", b, t * 1e6, c.comm.at(b) * 1e6);
    std::printf("# a block right behind another across nodes (2-member pipeline:16 round / 16)\n%-10s %14s\n",
                "# Block", "stream(us)");
    for (const auto &[b, t] : c.comm_net_stream.points()) std::printf("%-10.0f %14.3f\n", b, t * 1e6);
    return write_calibration(c, path, "added to");
}

// The crowded curves (see the top) over every rank, which crowd `crowd`
// CPUs, into *c. Collective; false if a measurement fails.
bool measure_crowded(const Options &o, Placement &place, const std::vector<size_t> &sz, unsigned crowd,
                     cm::Calibration *c) {
    const int np = acp_procs();
    std::vector<int> all(np);
    for (int i = 0; i < np; ++i) all[i] = i;
    // The chain's and the flat tree's rounds (the root copies to every
    // other rank, nobody forwards) of these sizes; false if one failed.
    const std::string flat = "knomial:" + std::to_string(np);
    auto chain_and_flat = [&](const std::vector<size_t> &sizes, std::vector<double> *chain_s,
                              std::vector<double> *flat_s) {
        acp_set_col_algorithm("chain", nullptr);
        *chain_s = round_seconds(o, place, all, sizes);
        acp_set_col_algorithm(flat.c_str(), nullptr);
        *flat_s = round_seconds(o, place, all, sizes);
        return chain_s->size() == sizes.size() && flat_s->size() == sizes.size();
    };
    // A binomial tree above the inline slots, from 4 ranks (on 3 it is
    // the flat tree): the one calibrated bcast whose copies run on two
    // cores at once. First: measured after the other curves, at 4 ranks
    // on the 2-core VM the check right after read it at a median 0.80 of
    // its calibrated time at 512 KiB-1 MiB (0.65-1.05, 6 launches) and the
    // flat tree at 1.00, the binomial 0.15 below the flat tree; measured
    // first, 0.92 and 1.05, 0.04 below (6 launches). Why the order
    // matters, we do not know.
    const uint32_t inline_max = middle::inline_bytes_for(middle::Kind::kBcast, static_cast<uint32_t>(np), 1);
    std::vector<size_t> tree_sz;
    if (np >= 4)
        for (size_t b : sz)
            if (b > inline_max) tree_sz.push_back(b);
    std::vector<double> treed;
    if (!tree_sz.empty()) {
        acp_set_col_algorithm("binomial", nullptr);
        treed = round_seconds(o, place, all, tree_sz);
        if (treed.size() != tree_sz.size()) return false;
    }
    std::vector<double> chain, fan;
    if (!chain_and_flat(sz, &chain, &fan)) return false;
    const auto steps = per_copy(sz, chain, np - 1);
    const auto fans = per_copy(sz, fan, np - 1);
    // Both again without the inline slots, up to their size (above it
    // they are the same rounds): what a multi-block bcast's blocks cost.
    std::vector<size_t> small;
    for (size_t b : sz)
        if (b <= inline_max) small.push_back(b);
    std::vector<double> chain_direct, fan_direct;
    {
        const WithoutInlineSlots no_slots;
        if (!chain_and_flat(small, &chain_direct, &fan_direct)) return false;
    }
    // Both again through the slots, back to back as a handle runs them.
    std::vector<size_t> slotted;
    for (size_t b : small)
        if (b > 0) slotted.push_back(b);
    std::vector<double> chain_overlap, fan_overlap;
    {
        const AtDefaultRingDepth deep;
        if (!chain_and_flat(slotted, &chain_overlap, &fan_overlap)) return false;
    }
    // A pipeline down the chain: its blocks follow each other.
    constexpr unsigned kS = cm::kCrowdStreamSegments;
    std::vector<size_t> piped_sz;
    for (size_t s = kS * 64; s <= sz.back() / 4 * kS; s *= 2) piped_sz.push_back(s);
    acp_set_col_algorithm(("pipeline:" + std::to_string(kS)).c_str(), nullptr);
    const std::vector<double> piped = round_seconds(o, place, all, piped_sz);
    if (piped.size() != piped_sz.size()) return false;
    // A short one of the same blocks: what a round costs beyond them.
    constexpr unsigned kShort = cm::kCrowdShortStreamSegments;
    std::vector<size_t> short_sz;
    for (size_t s : piped_sz) short_sz.push_back(s / kS * kShort);
    acp_set_col_algorithm(("pipeline:" + std::to_string(kShort)).c_str(), nullptr);
    const std::vector<double> short_piped = round_seconds(o, place, all, short_sz);
    if (short_piped.size() != short_sz.size()) return false;
    // An allgather, whose arrays hold every rank's block: Bruck above its
    // inline slots (the model prices inline rounds by their switches);
    // the ring at every size, as below them every one of its copies
    // crosses cores, where Bruck's and the tree's half do
    // (gather_cross_s).
    const uint32_t gather_inline = middle::inline_bytes_for(middle::Kind::kAllgather, static_cast<uint32_t>(np), 1);
    std::vector<size_t> gather_sz, ring_sz;
    for (size_t b : sz) {
        if (b > gather_inline) gather_sz.push_back(b);
        if (b > 0) ring_sz.push_back(b);
    }
    acp_set_col_algorithm(nullptr, "bruck");
    const std::vector<double> gathered = round_seconds(o, place, all, gather_sz, false);
    std::vector<double> ringed;
    if (gathered.size() == gather_sz.size()) {
        acp_set_col_algorithm(nullptr, "ring");
        ringed = round_seconds(o, place, all, ring_sz, false);
    }
    // A scatter_ring bcast, from the sizes where it may be picked.
    std::vector<size_t> scatter_sz;
    for (size_t b : sz)
        if (b >= kScatterFrom) scatter_sz.push_back(b);
    std::vector<double> scattered;
    if (ringed.size() == ring_sz.size()) {
        acp_set_col_algorithm("scatter_ring", nullptr);
        scattered = round_seconds(o, place, all, scatter_sz);
    }
    acp_set_col_algorithm("", "");
    if (gathered.size() != gather_sz.size() || ringed.size() != ring_sz.size() ||
        scattered.size() != scatter_sz.size())
        return false;
    // Two writers into one receiver from two cores (rank r runs on core
    // r mod cores): ranks 0 and 1 into rank 2.
    std::vector<std::pair<double, double>> converge;
    if (crowd >= 2 && np >= 3) {
        converge = converge_factors(o, place, sz);
        if (converge.empty()) return false;
    }
    c->comm_crowded_overlap = cm::Samples(per_copy(slotted, chain_overlap, np - 1));
    c->comm_fanout_overlap = cm::Samples(per_copy(slotted, fan_overlap, np - 1));
    c->comm_crowded = cm::Samples(steps);
    c->comm_fanout = cm::Samples(fans);
    c->comm_crowded_direct = cm::Samples(cm::slotless_curve(per_copy(small, chain_direct, np - 1), steps));
    c->comm_fanout_direct = cm::Samples(cm::slotless_curve(per_copy(small, fan_direct, np - 1), fans));
    c->comm_crowd_stream = cm::Samples(per_copy(piped_sz, piped, kS + np - 2, kS));
    c->comm_crowd_stream4 = cm::Samples(per_copy(short_sz, short_piped, kShort + np - 2, kShort));
    for (const cm::Settled &r : cm::settle_block_curves(c))
        if (acp_rank() == 0)
            std::fprintf(stderr, "acpx-bench calibrate: %s: the %.0f-byte block read %.3f us, out of order "
                         "with its neighbours; kept at %.3f us, their mean\n", r.curve, r.bytes, r.measured * 1e6,
                         r.kept * 1e6);
    c->comm_crowd_gather = cm::Samples(per_copy(gather_sz, gathered, np - 1));
    c->comm_crowd_ring = cm::Samples(per_copy(ring_sz, ringed, np - 1));
    c->comm_crowd_scatter = cm::Samples(per_copy(scatter_sz, scattered, np - 1));
    c->comm_crowd_tree = cm::Samples(per_copy(tree_sz, treed, np - 1));
    c->converge_slow = cm::Samples(converge);
    return true;
}

// The crowded curves of c at sizes sz, and what the model derives from
// them (rank 0).
void print_crowded(const Options &o, const cm::Calibration &c, const std::vector<size_t> &sz) {
    const int np = acp_procs();
    const unsigned crowd = c.crowd_core_count();
    constexpr unsigned kS = cm::kCrowdStreamSegments, kShort = cm::kCrowdShortStreamSegments;
    const uint32_t inline_max = middle::inline_bytes_for(middle::Kind::kBcast, static_cast<uint32_t>(np), 1);
    const uint32_t gather_inline = middle::inline_bytes_for(middle::Kind::kAllgather, static_cast<uint32_t>(np), 1);
    std::printf("# acpx calibration, crowded: %d ranks on %u cores%s: a chain bcast step, a flat tree's copy, a\n"
                "# pipeline:%u's block, a Bruck and a ring allgather's block, and what the model derives from\n"
                "# them: the switch between ranks on a core, how much slower a copy is, the share of an inline\n"
                "# copy that holds its sender's core, what a forwarded copy costs more, how much slower a block\n"
                "# in a stream is, and an allgather's copy; how much slower two copies from two cores into one\n"
                "# rank are; ring: the ring allgather's block, and gfwd what an allgather's forwarded copy costs\n"
                "# more, from it; scatter: a scatter_ring round / (ranks - 1), and sfwd what its forwarded copy\n"
                "# costs more, from it (at its blocks' size, size / (ranks - 1)); gcross, up to the allgather's\n"
                "# inline size, what its copy across cores costs more, from the ring;\n"
                "# _d: up to the inline size, the same without the inline slots (a multi-block bcast's blocks);\n"
                "# pipe%u: the pipeline:%u's block, and what a pipeline's round costs beyond its blocks (start);\n"
                "# tree: a binomial bcast round / (ranks - 1), from 4 ranks above the inline size, and concur how\n"
                "# much slower two copies from two cores into two ranks are, from it\n",
                np, crowd, sweeps_note(o).c_str(), kS, kShort, kShort);
    std::printf("%-10s %10s %10s %10s %10s %10s %10s %10s %10s %6s %6s %10s %10s %6s %6s %8s %10s %10s %10s %10s "
                "%11s %10s %10s %10s %6s\n",
                "# Size", "chain(us)", "fanout(us)", "chain_d", "fanout_d", "pipe(us)", "gather(us)", "comm(us)",
                "switch(us)", "slow", "busy", "fwd(us)", "fwd_d(us)", "stream", "gather", "converge", "pipe4(us)",
                "start(us)", "ring(us)", "gfwd(us)", "scatter(us)", "sfwd(us)", "gcross(us)", "tree(us)", "concur");
    cm::CrowdCache costs;  // the switch is solved once, not for every row
    // The crowd costs a round of `algo` over every rank of `bytes` is
    // predicted with: the costs solved for one kind of round only.
    auto round_costs = [&](cm::Op op, uint8_t algo, size_t bytes, uint32_t inline_bytes) {
        cm::Case round;
        round.op = op;
        round.algo = algo;
        round.members = static_cast<uint32_t>(np);
        round.bytes = bytes;
        round.inline_bytes = inline_bytes;
        return cm::predict(round, c, nullptr, &costs).crowd;
    };
    for (size_t i = 0; i < sz.size(); ++i) {
        const auto b = static_cast<double>(sz[i]);
        const cm::CrowdCosts k = costs.get(c, b, sz[i] > 0 && sz[i] <= inline_max);
        char pipe[32] = "-", stream[32] = "-", pipe4[32] = "-", start[32] = "-";
        if (sampled(c.comm_crowd_stream, b)) {  // blocks are never inline: theirs is the non-inline factor
            std::snprintf(pipe, sizeof pipe, "%.3f", c.comm_crowd_stream.at(b) * 1e6);
            std::snprintf(stream, sizeof stream, "%.2f", costs.get(c, b, false).stream_slow);
            std::snprintf(pipe4, sizeof pipe4, "%.3f", c.comm_crowd_stream4.at(b) * 1e6);
            std::snprintf(start, sizeof start, "%.3f", costs.get(c, b, false).stream_start_s * 1e6);
        }
        char gather[32] = "-", gslow[32] = "-", ring[32] = "-", gfwd[32] = "-", gcross[32] = "-";
        if (sampled(c.comm_crowd_gather, b)) {  // above an allgather's inline slots, maybe not a bcast's
            const cm::CrowdCosts g = costs.get(c, b, false);
            std::snprintf(gather, sizeof gather, "%.3f", c.comm_crowd_gather.at(b) * 1e6);
            std::snprintf(gslow, sizeof gslow, "%.2f", g.gather_slow);
            std::snprintf(gfwd, sizeof gfwd, "%.3f", g.gather_forward_s * 1e6);
        }
        if (sampled(c.comm_crowd_ring, b)) {
            std::snprintf(ring, sizeof ring, "%.3f", c.comm_crowd_ring.at(b) * 1e6);
            if (sz[i] <= gather_inline) {  // an inline ring allgather's
                const auto ring_algo = static_cast<uint8_t>(collectives::AllgatherAlgo::kRing);
                const double x = round_costs(cm::Op::kAllgather, ring_algo, sz[i], gather_inline).gather_cross_s;
                std::snprintf(gcross, sizeof gcross, "%.3f", x * 1e6);
            }
        }
        char scatter[32] = "-", sfwd[32] = "-";
        if (sampled(c.comm_crowd_scatter, b)) {  // the forward cost its round's blocks get
            const auto scatter_algo = static_cast<uint8_t>(collectives::BcastAlgo::kScatterRing);
            std::snprintf(scatter, sizeof scatter, "%.3f", c.comm_crowd_scatter.at(b) * 1e6);
            const double f = round_costs(cm::Op::kBcast, scatter_algo, sz[i], 0).forward_s;
            std::snprintf(sfwd, sizeof sfwd, "%.3f", f * 1e6);
        }
        char tree[32] = "-", concur[32] = "-";
        if (sampled(c.comm_crowd_tree, b)) {
            std::snprintf(tree, sizeof tree, "%.3f", c.comm_crowd_tree.at(b) * 1e6);
            std::snprintf(concur, sizeof concur, "%.2f", k.concurrent);
        }
        char conv[32] = "-";
        if (sampled(c.converge_slow, b)) std::snprintf(conv, sizeof conv, "%.2f", c.converge_slow.at(b));
        char chain_d[32] = "-", fan_d[32] = "-", fwd_d[32] = "-";
        if (sz[i] <= inline_max) {
            std::snprintf(chain_d, sizeof chain_d, "%.3f", c.comm_crowded_direct.at(b) * 1e6);
            std::snprintf(fan_d, sizeof fan_d, "%.3f", c.comm_fanout_direct.at(b) * 1e6);
            std::snprintf(fwd_d, sizeof fwd_d, "%.3f", costs.get(c, b, false).forward_s * 1e6);
        }
        std::printf("%-10zu %10.3f %10.3f %10s %10s %10s %10s %10.3f %10.3f %6.2f %6.2f %10.3f %10s %6s %6s %8s %10s "
                    "%10s %10s %10s %11s %10s %10s %10s %6s\n",
                    sz[i], c.comm_crowded.at(b) * 1e6, c.comm_fanout.at(b) * 1e6, chain_d, fan_d, pipe, gather,
                    c.comm.at(b) * 1e6, k.switch_s * 1e6, k.slow, k.busy, k.forward_s * 1e6, fwd_d, stream, gslow, conv,
                    pipe4, start, ring, gfwd, scatter, sfwd, gcross, tree, concur);
    }
    std::printf("# inline rounds back to back at a handle's own ring depth: a chain's step and a flat tree's\n"
                "# copy, and what a copy takes of a core's time then: across cores (on both), within one\n"
                "%-10s %10s %10s %10s %10s\n", "# Size", "chain(us)", "fanout(us)", "cross(us)", "same(us)");
    for (const auto &[b, step] : c.comm_crowded_overlap.points()) {
        const double fan = c.comm_fanout_overlap.at(b);
        const cm::OverlapCosts k = cm::overlap_costs(c.crowd_ranks, crowd, step * (np - 1), fan * (np - 1));
        std::printf("%-10.0f %10.3f %10.3f %10.3f %10.3f\n", b, step * 1e6, fan * 1e6, k.cross_s * 1e6,
                    k.same_s * 1e6);
    }
}

// More ranks than cores: the crowded curves, added to the 2-rank file.
int calibrate_crowded(const Options &o, Placement &place, const std::vector<size_t> &sz, const std::string &path) {
    const int me = acp_rank(), np = acp_procs();
    cm::Calibration c;
    if (!read_two_rank_file(path, "the crowded curve", &c)) return 2;
    place.prefer(c.pair_ns);  // as near a pair as the 2-rank curves had
    for (int r = 1; r < np; ++r)
        if (basic::layer::node_id(r) != basic::layer::node_id(0)) {
            if (me == 0)
                std::fprintf(stderr, "acpx-bench calibrate: the crowded curve is measured on one node; rank %d runs "
                             "on another node than rank 0\n", r);
            return 2;
        }
    // The CPUs these ranks may run on, which they crowd: the node's, or
    // on a large node a few of them (taskset -c 0,1 acprun -n 3 ...).
    const unsigned crowd = basic::layer::node_cpus();
    if (crowd == 0 || static_cast<unsigned>(np) <= crowd) {
        if (me == 0)
            std::fprintf(stderr, "acpx-bench calibrate: %d ranks do not crowd the %u CPUs they may run on; use 2 "
                         "ranks, or more ranks than CPUs\n", np, crowd);
        return 2;
    }
    if (np > static_cast<int>(collectives::kMaxRadix)) {  // the flat tree below is knomial:np
        if (me == 0)
            std::fprintf(stderr, "acpx-bench calibrate: the crowded curves take at most %u ranks; on a node of "
                         "more cores, crowd a few of them: taskset -c 0,1 acprun -n 3 acpx-bench calibrate\n",
                         collectives::kMaxRadix);
        return 2;
    }
    c.crowd_ranks = static_cast<unsigned>(np);
    c.crowd_cores = crowd == c.cores ? 0 : crowd;  // 0: the node's (the file as before)
    const auto measure = [&](cm::Calibration *k) { return measure_crowded(o, place, sz, crowd, k); };
    if (!median_of_sweeps(o, c, measure, &c)) return 1;
    if (me != 0) return 0;
    print_crowded(o, c, sz);
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
        if (s <= middle::kDefaultInlineMax) small.push_back(s);
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
        if (s > 0) (s > middle::kAllgatherInlineMax ? large : slotted).push_back(s);
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
    if (acp_rank() == 0) c->memcpy = cm::Samples(memcpy_samples(o, sz));
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
        const cm::Samples &pair = sz[i] > middle::kAllgatherInlineMax ? c.comm_pair : c.comm_pair_inline;
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
    if (np < 2) {
        std::fprintf(stderr, "acpx-bench calibrate: runs on 2 ranks (acprun -n 2)\n");
        return 2;
    }
    Placement place(!o.quick);
    int rc;
    if (np > 2) rc = calibrate_crowded(o, place, sz, out);
    else if (basic::layer::node_id(0) != basic::layer::node_id(1)) rc = calibrate_network(o, place, sz, out);
    else rc = calibrate_pair(o, place, sz, out);
    if (me == 0 && rc == 0) std::printf("# placement: %s\n", place.summary().c_str());
    return rc;
}

}  // namespace acpx::bench
