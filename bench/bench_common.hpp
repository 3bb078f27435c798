// Shared pieces of acpx-bench: options, timing, OSU-style output, CSV.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "acp.h"

namespace acpx::bench {

// calibrate's sweeps (runs over every curve, merged by their median).
// Three: per-launch calibrations of four model checks on the 2-core VM,
// merged three at a time, picked within 10% of the best at 195 of 208
// (3- and 4-rank points), against 190 alone; the points under the 90%
// target went from 4 of 8 checks to 1. They take three times as long.
inline constexpr int kDefaultSweeps = 3;
inline constexpr int kMaxSweeps = 9;

struct Options {
    size_t min_size = 8;
    size_t max_size = 4u << 20;
    int iters = 10000;  // per size, small messages; large ones scale down
    int warmup = 200;
    int window = 64;                 // copies in flight for bandwidth
    std::string csv;                 // CSV file; "" = none
    bool quick = false;              // 2 sizes, few iterations (make check)
    bool starter = false;            // --memory starter: buffers in starter memory (acpx-allocated)
    bool malloc_memory = false;      // --memory malloc: buffers from acp_malloc (acpx-allocated)
    std::string storage = "direct";  // --mode direct|buffered|one-call (collectives)
    std::string exec;                // --exec root|delegated (collectives; "" = the default)
    std::string out;                 // --out FILE: calibrate's JSON, model-check's CSV
    bool predict_only = false;       // --predict-only: model-check writes predictions alone
    double near_ns = 0;              // --near NS: placement waits for a pair within 2.5x (0: no wait)
    int sweeps = 0;                  // --sweeps K: calibrate's runs, merged by median (0: 3, quick: 1)
    size_t skew = 0;                 // --skew B: copy: rank r's buffer r x B bytes past a page start
    std::string noise, late;         // --noise PERIOD:LEN, --late RANK:US:EVERY (allreduce; peers/peer_noise.h)
    unsigned noise_seed = 1;         // --noise-seed S: the timers' phases
    long rounds = 0;                 // --rounds N: timed rounds per size (0: the usual counts)
    size_t handle = 0;               // --handle B: bcast/allgather handles of at least B bytes (0: a round's size)
};

// Parses the options after the subcommand; false (with a message) on error.
bool parse_options(int argc, char **argv, Options *o);

// Sizes from min to max by powers of two (quick: just min and max).
std::vector<size_t> sizes(const Options &o);

// Iterations for one size: fewer for big messages, so a run stays short.
int iterations_for(const Options &o, size_t size);

double now_us();

// Every rank's value, gathered on every rank through starter memory (its
// first 64 + 8 x np bytes). Collective: every rank calls it.
std::vector<double> gather(double mine);
// The mean, least and most of every rank's value (gather).
struct Stats {
    double avg = 0, min = 0, max = 0;
};
Stats over_ranks(double mine);
// Every rank's GA, gathered as gather() does (the 64 bits carried whole).
std::vector<acp_ga_t> gather_ga(acp_ga_t mine);

// VmRSS of this process, bytes.
size_t rss_bytes();
// VmHWM (its peak VmRSS since start or /proc/self/clear_refs "5"), bytes.
size_t hwm_bytes();

// "ucx", "ucx:tcp" (UCX_TLS), "ofi", "ofi:shm" (FI_PROVIDER): for tables and CSV.
std::string transport_label();

// Appends rows to the CSV file (header written when the file is new).
class Csv {
  public:
    explicit Csv(const std::string &path);
    ~Csv();
    void row(const std::string &benchmark, const std::string &op, size_t size, double latency_us, double bandwidth_mbps,
             int iterations, int ranks, const std::string &transport);

  private:
    FILE *f_ = nullptr;
};

// One persistent handle over `group` timed OSU style: create, warm up,
// barrier, `iters` rounds of `size` bytes; per-rank averages over ranks
// (collective: every rank calls it). The handle's algorithm is the
// process's current choice (acp_set_col_algorithm / ACP_COL_*_ALGO / model).
// With min_ms > 0 it times at least that long: more than `iters` rounds
// if the warm-up (iters / 10 + 1 rounds, the slowest rank's) says they
// take less (at most kMaxTimedRounds). Then two untimed rounds of fresh
// bytes are checked on every member (wrong_ranks).
struct RoundTimes {
    double avg_us = 0, min_us = 0, max_us = 0, create_us = 0, free_us = 0;
    std::string algo;
    int wrong_ranks = 0;  // members that ended a checked round (after timing) with wrong bytes
};
inline constexpr int kMaxTimedRounds = 100000;
// Says on rank 0 that `what`'s rounds of `size` bytes (algorithm t.algo)
// ended with wrong bytes on t.wrong_ranks members; returns false.
bool wrong_data(const char *what, const RoundTimes &t, size_t size);
// malloc_arrays: a direct handle's arrays from acp_malloc (--memory malloc);
// handle_bytes: the handle is of max(size, handle_bytes) bytes (--handle).
bool time_rounds(bool bcast, bool buffered, std::vector<int> &group, size_t size, int iters, RoundTimes *out,
                 double min_ms = 0, bool malloc_arrays = false, size_t handle_bytes = 0);
// Rounds per size: the same counts as the peers (bench/peers/*.c).
int rounds_for(const Options &o, size_t size);
// Rounds per size for the model's samples (calibrate) and for what it is
// checked against (model-check): the same counts on both sides, else a
// 10-round check sample takes scheduling hiccups a 40-round calibration
// averages away. 2000 up to 16 KiB, then fewer (at least 20); a quarter
// of that (plus 10) when `ranks` outnumber the cores.
int model_rounds(const Options &o, size_t size, int ranks);
// The least time time_rounds times those rounds for (its min_ms:
// calibrate's round samples and model-check; the footprint walk takes
// it too, the memcpy samples keep model_rounds' counts), so that large rounds on a
// crowded node span many scheduler slices: 15 rounds of a 3-rank
// pipeline:16 of 4 MiB last ~10 ms, and its calibration and its check in
// one launch differed by up to 1.5x (once 2.9x). 0 with --quick.
double model_min_ms(const Options &o);
// `rounds`, or more if min_ms > 0 and rounds of the slowest rank's
// `my_round_us` (its warm-up's) would time less than min_ms; at most
// kMaxTimedRounds. Collective when min_ms > 0: every rank gets the same.
int rounds_for_min_ms(int rounds, double my_round_us, double min_ms);

// Interleaved passes: `passes` times, measure(i, &value) for each item i
// in turn; *out gets each item's median. A burst of noise on this shared
// machine then hits one sample of an item, not all of them. With a
// placement, each sample is taken on a near pair (placement.hpp). False
// as soon as a measurement fails.
class Placement;
bool median_of_passes(int passes, size_t items, const std::function<bool(size_t, double *)> &measure,
                      std::vector<double> *out, Placement *placement = nullptr);

int run_copy(const Options &o);
int run_calibrate(const Options &o);
int run_model_check(const Options &o);
int run_collective(const Options &o, bool bcast);
// acp_bcast / acp_allgather timed as time_rounds times a handle's rounds
// (its first call, which creates the cached handle, is create_us).
bool time_one_call(bool bcast, std::vector<int> &group, size_t size, int iters, RoundTimes *out);
int run_allreduce(const Options &o);
int run_overlap(const Options &o);
int run_placement(const Options &o);
int run_memory(const Options &o);
int run_channel(const Options &o);

}  // namespace acpx::bench
