// Uses internal headers (basic/config.hpp) for parse_size only: --sizes
// takes sizes as the ACP_* variables do (K/M/G).
#include "bench_common.hpp"

#include "peers/peer_noise.h"

#include <getopt.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../basic/config.hpp"
#include "acp.h"
#include "placement.hpp"

namespace acpx::bench {

namespace {

bool bad(const char *opt, const char *what) {
    std::fprintf(stderr, "acpx-bench: --%s: '%s' is not %s\n", opt, optarg, what);
    return false;
}

// optarg is one of the two words; *out = optarg.
bool one_of(const char *opt, const char *a, const char *b, std::string *out) {
    if (std::strcmp(optarg, a) != 0 && std::strcmp(optarg, b) != 0)
        return bad(opt, (std::string(a) + " or " + b).c_str());
    *out = optarg;
    return true;
}

// optarg is a whole number in [lo, hi].
bool count(const char *opt, long lo, long hi, long *out) {
    char *end = nullptr;
    *out = std::strtol(optarg, &end, 10);
    if (end != optarg && !*end && *out >= lo && *out <= hi) return true;
    return bad(opt, ("a count from " + std::to_string(lo) + " to " + std::to_string(hi)).c_str());
}

// MIN:MAX, or one size.
bool sizes(Options *o) {
    const char *colon = std::strchr(optarg, ':');
    const std::string lo = colon ? std::string(optarg, static_cast<size_t>(colon - optarg)) : std::string(optarg);
    const char *hi = colon ? colon + 1 : optarg;
    if (!basic::parse_size(lo.c_str(), &o->min_size) || !basic::parse_size(hi, &o->max_size) || o->min_size == 0 ||
        o->min_size > o->max_size)
        return bad("sizes", "MIN:MAX (e.g. 8:4M)");
    return true;
}

// A size in bytes (K, M, G suffixes), at most 1 GiB.
bool size_of(const char *opt, size_t *out) {
    if (!basic::parse_size(optarg, out) || *out > (size_t{1} << 30)) return bad(opt, "a size up to 1G (e.g. 64K)");
    return true;
}

// ucx | ofi[:PROVIDER], set for acp_init in every rank (each parses the
// same argv).
bool transport() {
    const std::string t = optarg;
    const size_t colon = t.find(':');
    const std::string name = t.substr(0, colon);
    if (name != "ucx" && name != "ofi") return bad("transport", "ucx or ofi[:PROVIDER]");
    setenv("ACP_TRANSPORT", name.c_str(), 1);
    if (colon != std::string::npos) setenv("FI_PROVIDER", t.c_str() + colon + 1, 1);
    return true;
}

bool near(Options *o) {
    char *end = nullptr;
    o->near_ns = std::strtod(optarg, &end);
    if (end == optarg || *end || !(o->near_ns > 0) || !std::isfinite(o->near_ns))
        return bad("near", "a time in ns > 0");
    return true;
}

// One option; false (reported) if its value is not what it takes.
bool take(int c, Options *o) {
    long n = 0;
    std::string word;
    switch (c) {
        case 's': return sizes(o);
        case 'i': return count("iters", 1, 1L << 30, &n) && (o->iters = static_cast<int>(n), true);
        case 'w': return count("window", 1, 1L << 20, &n) && (o->window = static_cast<int>(n), true);
        case 'c': o->csv = optarg; return true;
        case 'q': o->quick = true; return true;
        case 'm':
            word = optarg;
            if (word != "user" && word != "starter" && word != "malloc")
                return bad("memory", "user, starter or malloc");
            o->starter = word == "starter";
            o->malloc_memory = word == "malloc";
            return true;
        case 'M':
            word = optarg;
            if (word != "direct" && word != "buffered" && word != "one-call")
                return bad("mode", "direct, buffered or one-call");
            o->storage = word;
            return true;
        case 'e': return one_of("exec", "root", "delegated", &o->exec);
        case 't': return transport();
        case 'o': o->out = optarg; return true;
        case 'P': o->predict_only = true; return true;
        case 'n': return near(o);
        case 'S': return count("sweeps", 1, kMaxSweeps, &n) && (o->sweeps = static_cast<int>(n), true);
        case 'K': return count("skew", 0, 4095, &n) && (o->skew = static_cast<size_t>(n), true);
        case 'N': {
            peer_noise v;
            if (peer_parse_noise(optarg, &v) != 0) return bad("noise", "PERIOD:LEN in us, LEN < PERIOD");
            o->noise = optarg;
            return true;
        }
        case 'L': {
            peer_late v;
            if (peer_parse_late(optarg, &v) != 0) return bad("late", "RANK:US:EVERY");
            o->late = optarg;
            return true;
        }
        case 'D': return count("noise-seed", 0, 1L << 30, &n) && (o->noise_seed = static_cast<unsigned>(n), true);
        case 'R': return count("rounds", 1, 1L << 30, &n) && (o->rounds = n, true);
        case 'H': return size_of("handle", &o->handle);
        default: return false;
    }
}

}  // namespace

bool parse_options(int argc, char **argv, Options *o) {
    static const option longs[] = {{"sizes", required_argument, nullptr, 's'},
                                   {"iters", required_argument, nullptr, 'i'},
                                   {"window", required_argument, nullptr, 'w'},
                                   {"csv", required_argument, nullptr, 'c'},
                                   {"quick", no_argument, nullptr, 'q'},
                                   {"memory", required_argument, nullptr, 'm'},
                                   {"mode", required_argument, nullptr, 'M'},
                                   {"exec", required_argument, nullptr, 'e'},
                                   {"transport", required_argument, nullptr, 't'},
                                   {"out", required_argument, nullptr, 'o'},
                                   {"predict-only", no_argument, nullptr, 'P'},
                                   {"near", required_argument, nullptr, 'n'},
                                   {"sweeps", required_argument, nullptr, 'S'},
                                   {"skew", required_argument, nullptr, 'K'},
                                   {"noise", required_argument, nullptr, 'N'},
                                   {"late", required_argument, nullptr, 'L'},
                                   {"noise-seed", required_argument, nullptr, 'D'},
                                   {"rounds", required_argument, nullptr, 'R'},
                                   {"handle", required_argument, nullptr, 'H'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:i:w:c:qm:M:e:t:o:", longs, nullptr)) != -1)
        if (!take(c, o)) return false;
    if (o->skew && (o->starter || o->malloc_memory)) {
        std::fprintf(stderr,
                     "acpx-bench: --skew places the ranks' own arrays; it does not apply to --memory starter or "
                     "malloc\n");
        return false;
    }
    if (o->sweeps == 0) o->sweeps = o->quick ? 1 : kDefaultSweeps;
    if (o->quick) {
        o->iters = 50;
        o->warmup = 5;
    }
    return true;
}

std::vector<double> gather(double mine) {
    const int me = acp_rank(), np = acp_procs();
    auto *s = static_cast<char *>(acp_query_address(acp_query_starter_ga(me)));
    std::memcpy(s, &mine, 8);
    acp_sync();
    std::vector<double> all(np);
    for (int r = 0; r < np; ++r) {
        acp_complete(acp_copy(acp_query_starter_ga(me) + 64 + 8 * r, acp_query_starter_ga(r), 8, ACP_HANDLE_NULL));
        std::memcpy(&all[r], s + 64 + 8 * r, 8);
    }
    acp_sync();
    return all;
}

Stats over_ranks(double mine) {
    const auto all = gather(mine);
    Stats s{0, all[0], all[0]};
    for (double v : all) {
        s.avg += v / all.size();
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    return s;
}

std::vector<acp_ga_t> gather_ga(acp_ga_t mine) {
    static_assert(sizeof(acp_ga_t) == sizeof(double), "a GA travels as a double's bits");
    double bits;
    std::memcpy(&bits, &mine, sizeof bits);
    const std::vector<double> all = gather(bits);
    std::vector<acp_ga_t> out(all.size());
    std::memcpy(out.data(), all.data(), all.size() * sizeof bits);
    return out;
}

bool wrong_data(const char *what, const RoundTimes &t, size_t size) {
    if (acp_rank() == 0)
        std::fprintf(stderr, "acpx-bench %s: %s rounds of %zu bytes ended with wrong bytes on %d ranks (see above)\n",
                     what, t.algo.c_str(), size, t.wrong_ranks);
    return false;
}

namespace {
// A "Name: N kB" line of /proc/self/status, bytes (0 if missing).
size_t status_kb(const char *format) {
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    size_t kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, format, &kb) == 1) break;
    std::fclose(f);
    return kb * 1024;
}
}  // namespace

size_t rss_bytes() { return status_kb("VmRSS: %zu kB"); }
size_t hwm_bytes() { return status_kb("VmHWM: %zu kB"); }

std::string transport_label() {
    const char *t = std::getenv("ACP_TRANSPORT");
    const std::string name = t && *t ? t : "ucx";
    const char *detail = std::getenv(name == "ofi" ? "FI_PROVIDER" : "UCX_TLS");
    return name + (detail && *detail ? std::string(":") + detail : "");
}

std::vector<size_t> sizes(const Options &o) {
    if (o.quick) return {o.min_size, o.max_size > o.min_size ? o.max_size : o.min_size};
    std::vector<size_t> out;
    for (size_t s = o.min_size; s <= o.max_size; s *= 2) out.push_back(s);
    if (out.back() != o.max_size) out.push_back(o.max_size);
    return out;
}

int iterations_for(const Options &o, size_t size) {
    if (size <= 8192) return o.iters;
    const long scaled = static_cast<long>(o.iters) * 8192 / static_cast<long>(size);
    return scaled < 20 ? 20 : static_cast<int>(scaled);
}

int model_rounds(const Options &o, size_t size, int ranks) {
    if (o.quick) return 20;
    const long n = size <= 16384 ? 2000 : std::max(20L, 2000L * 16384 / static_cast<long>(size));
    const bool crowded = ranks > sysconf(_SC_NPROCESSORS_ONLN);
    return static_cast<int>(crowded ? n / 4 + 10 : n + 10);
}

double model_min_ms(const Options &o) { return o.quick ? 0 : 50; }

int rounds_for_min_ms(int rounds, double my_round_us, double min_ms) {
    if (!(min_ms > 0)) return rounds;
    const std::vector<double> all = gather(my_round_us);
    const double slowest = *std::max_element(all.begin(), all.end());
    if (!(slowest > 0)) return rounds;
    return std::max(rounds, static_cast<int>(std::min<double>(kMaxTimedRounds, std::ceil(min_ms * 1e3 / slowest))));
}

double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

Csv::Csv(const std::string &path) {
    if (path.empty()) return;
    struct stat st;
    const bool fresh = stat(path.c_str(), &st) != 0 || st.st_size == 0;
    f_ = std::fopen(path.c_str(), "a");
    if (!f_) {
        std::fprintf(stderr, "acpx-bench: --csv: cannot open %s\n", path.c_str());
        return;
    }
    if (fresh) std::fprintf(f_, "benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport\n");
}

Csv::~Csv() {
    if (f_) std::fclose(f_);
}

void Csv::row(const std::string &benchmark, const std::string &op, size_t size, double latency_us,
              double bandwidth_mbps, int iterations, int ranks, const std::string &transport) {
    if (!f_) return;
    std::fprintf(f_, "%s,%s,%zu,%.4f,%.6g,%d,%d,%s\n", benchmark.c_str(), op.c_str(), size, latency_us, bandwidth_mbps,
                 iterations, ranks, transport.c_str());
}

bool median_of_passes(int passes, size_t items, const std::function<bool(size_t, double *)> &measure,
                      std::vector<double> *out, Placement *placement) {
    std::vector<std::vector<double>> runs(items);
    for (int pass = 0; pass < passes; ++pass)
        for (size_t i = 0; i < items; ++i) {
            double v = 0;
            const auto one = [&](double *x) { return measure(i, x); };
            if (!(placement ? placement->measure(one, &v) : one(&v))) return false;
            runs[i].push_back(v);
        }
    out->clear();
    for (auto &r : runs) {
        std::sort(r.begin(), r.end());
        out->push_back(r[r.size() / 2]);
    }
    return true;
}

}  // namespace acpx::bench
