// acpx-model jitter: seed 001's simulation reproduced
// (collectives/model/jitter.hpp), its lines, the gate and the report.
#include "jitter.hpp"

#include <getopt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "basic/config.hpp"
#include "collectives/model/jitter.hpp"

namespace acpx::tools {
namespace {

namespace jm = acpx::collectives::model::jitter;

struct Options {
    uint32_t max_k = 18, small_trials = 1000, big_trials = 100;  // 1000 trials up to 2^14, 100 above
    std::vector<size_t> bytes = {8};
    std::string out = ".";
    uint64_t seed = 1;
};

// Mean and 95% confidence half-width of samples.
struct Moments {
    double mean = 0, ci95 = 0;
};
Moments moments(const std::vector<double> &v) {
    Moments m;
    for (const double x : v) m.mean += x / static_cast<double>(v.size());
    double ss = 0;
    for (const double x : v) ss += (x - m.mean) * (x - m.mean);
    if (v.size() > 1) m.ci95 = 1.96 * std::sqrt(ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
    return m;
}

// One point: variant, bytes, K, M, L.
struct Key {
    char variant;
    size_t bytes;
    uint32_t k, m, l;
    bool operator<(const Key &o) const {
        return std::tie(variant, bytes, k, m, l) < std::tie(o.variant, o.bytes, o.k, o.m, o.l);
    }
};
struct Point {
    Moments max, mean;
    uint32_t trials = 0;
};

// Every trial of (variant, bytes, K) for M = 0, 1, 2 (as D allows), each
// with L up to min(20, K) in one run.
void run_k(const Options &o, char variant, size_t bytes, uint32_t k, std::map<Key, Point> *out) {
    const uint32_t trials = k <= 14 ? o.small_trials : o.big_trials;
    const uint32_t lmax = std::min<uint32_t>(20, k);
    const jm::Costs costs;
    for (uint32_t m = 0; m <= std::min<uint32_t>(2, k / 2); ++m) {
        std::vector<std::vector<double>> maxes(lmax + 1), means(lmax + 1);
        for (uint32_t t = 0; t < trials; ++t) {
            // The same phases for every M of a trial: the lines differ by method only.
            std::mt19937_64 rng(o.seed * 1000003 + (variant == 'a' ? 0 : 500009) + k * 10007 + t);
            jm::Noise n;
            n.open_at_start = variant == 'a';
            std::uniform_real_distribution<double> phase(0, n.period);
            n.phase.resize(size_t{1} << k);
            for (double &p : n.phase) p = phase(rng);
            const jm::Finish f = jm::simulate(k, m, lmax, bytes, costs, n);
            for (uint32_t l = 0; l <= lmax; ++l) maxes[l].push_back(f.max[l]), means[l].push_back(f.mean[l]);
        }
        for (uint32_t l = 0; l <= lmax; ++l)
            (*out)[{variant, bytes, k, m, l}] = {moments(maxes[l]), moments(means[l]), trials};
    }
}

bool parse(int argc, char **argv, Options *o) {
    static const option longs[] = {
        {"max-procs", required_argument, nullptr, 'p'}, {"trials", required_argument, nullptr, 't'},
        {"bytes", required_argument, nullptr, 'b'},     {"out", required_argument, nullptr, 'o'},
        {"seed", required_argument, nullptr, 's'},      {nullptr, 0, nullptr, 0}};
    optind = 2;
    for (int c; (c = getopt_long(argc, argv, "", longs, nullptr)) != -1;) {
        size_t v = 0;
        switch (c) {
            case 'p':
                if (!basic::parse_size(optarg, &v) || v < 2 || (v & (v - 1)) || v > (size_t{1} << 24))
                    return std::fprintf(stderr, "acpx-model jitter: --max-procs: a power of two from 2 to 2^24\n"),
                           false;
                o->max_k = static_cast<uint32_t>(std::countr_zero(v));
                break;
            case 't': {
                unsigned a = 0, b = 0;
                const int got = std::sscanf(optarg, "%u,%u", &a, &b);
                if (got < 1 || a == 0)
                    return std::fprintf(stderr, "acpx-model jitter: --trials: N or N,BIG (up to 2^14, above)\n"), false;
                o->small_trials = a;
                o->big_trials = got == 2 && b ? b : a;
                break;
            }
            case 'b': {
                o->bytes.clear();
                for (char *tok = std::strtok(optarg, ","); tok; tok = std::strtok(nullptr, ",")) {
                    if (!basic::parse_size(tok, &v) || v == 0)
                        return std::fprintf(stderr, "acpx-model jitter: --bytes: sizes, as 8,1K,64K\n"), false;
                    o->bytes.push_back(v);
                }
                break;
            }
            case 'o': o->out = optarg; break;
            case 's': o->seed = std::strtoull(optarg, nullptr, 10); break;
            default: return false;
        }
    }
    return true;
}

// A line at (variant, bytes, K): M fixed; L = 0 for the plain butterfly,
// else the best L >= 1 (the seed leaves L open: each line takes its best,
// named in the CSV).
struct Best {
    const Point *p = nullptr;
    uint32_t l = 0;
};
Best line(const std::map<Key, Point> &pts, char variant, size_t bytes, uint32_t k, uint32_t m, bool plain) {
    Best b;
    for (uint32_t l = plain ? 0 : 1; l <= (plain ? 0 : std::min<uint32_t>(20, k)); ++l) {
        auto it = pts.find({variant, bytes, k, m, l});
        if (it != pts.end() && (!b.p || it->second.max.mean < b.p->max.mean)) b = {&it->second, l};
    }
    return b;
}

// seed001.png by gnuplot where it is installed (as the seed's Fig. 3: mean
// time, max over processes, against P, a line per method), variant (a)
// left, (b) right; the first of --bytes.
void plot(const std::string &dir, const std::string &csv, size_t bytes) {
    FILE *gp = popen("gnuplot 2>/dev/null", "w");
    if (!gp) return;
    std::fprintf(gp,
                 "set terminal png size 1400,600\nset output '%s/seed001.png'\nset datafile separator ','\n"
                 "set logscale xy 2\nset format y '%%.0e'\nset xlabel 'processes'\nset ylabel 'mean time (s), %zu B'\n"
                 "set key top left\nset grid\nset multiplot layout 1,2\n",
                 dir.c_str(), bytes);
    // Each line's rows by grep: rows of the lines alternate in the CSV.
    auto rows = [&](char v, const char *line) {
        return "'< grep -F \"" + std::string(1, v) + "," + std::to_string(bytes) + ",\" " + csv + " | grep -F \"," +
               line + ",\"'";
    };
    for (const char v : {'a', 'b'}) {
        std::fprintf(gp, "set title 'variant (%c): %s'\nplot ", v,
                     v == 'a' ? "noise windows open at t = 0" : "no window open at t = 0");
        for (const char *line : {"butterfly", "[3]", "proposed(1)", "proposed(2)"})
            std::fprintf(gp, "%s using 3:8 with linespoints title '%s', ", rows(v, line).c_str(), line);
        std::fprintf(gp, "%s using 3:12 with lines dashtype 2 title 'noiseless'\n", rows(v, "butterfly").c_str());
    }
    std::fprintf(gp, "unset multiplot\n");
    pclose(gp);
}

}  // namespace

int run_jitter(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr,
                     "usage: acpx-model jitter [--max-procs P] [--trials N[,BIG]] [--bytes 8,1K,...] [--out DIR] "
                     "[--seed S]\n");
        return 2;
    }
    // Two threads (each its own points): the variants.
    std::map<Key, Point> pts[2];
    std::vector<std::thread> workers;
    for (int v = 0; v < 2; ++v)
        workers.emplace_back([&, v] {
            for (const size_t b : o.bytes)
                for (uint32_t k = 1; k <= o.max_k; ++k) run_k(o, v == 0 ? 'a' : 'b', b, k, &pts[v]);
        });
    for (auto &w : workers) w.join();
    std::map<Key, Point> all = pts[0];
    all.insert(pts[1].begin(), pts[1].end());

    const std::string csv_path = o.out + "/seed001.csv", md_path = o.out + "/seed001.md";
    FILE *csv = std::fopen(csv_path.c_str(), "w");
    FILE *md = std::fopen(md_path.c_str(), "w");
    if (!csv || !md) return std::fprintf(stderr, "acpx-model jitter: cannot write %s\n", o.out.c_str()), 1;
    std::fprintf(csv,
                 "variant,bytes,procs,line,M,L,trials,max_mean_s,max_ci95_s,mean_mean_s,mean_ci95_s,noiseless_s\n");
    const jm::Costs costs;
    const char *names[] = {"butterfly", "[3]", "proposed(1)", "proposed(2)"};
    std::fprintf(md, "# Seed 001 reproduced: butterfly allreduce under OS jitter (acpx-model jitter)\n\n");
    std::fprintf(md,
                 "Costs: latency %.1e s, network %.1e s/B, memory %.1e s/B; noise %.0e s every %.0e s per process, "
                 "phase uniform per trial; trials %u up to 2^14 processes, %u above; each line's L (1..min(20, K)) "
                 "is its best. Variant (a): noise windows open at t = 0; (b): none.\n\n",
                 costs.latency, costs.network, costs.memory, 1.0e-4, 1.0e-2, o.small_trials, o.big_trials);
    for (const char variant : {'a', 'b'})
        for (const size_t bytes : o.bytes) {
            std::fprintf(md,
                         "## Variant (%c), %zu B\n\n| P | noiseless | butterfly | [3] (L) | proposed(1) (L) | "
                         "proposed(2) (L) |\n|---:|---:|---:|---:|---:|---:|\n",
                         variant, bytes);
            std::map<int, uint32_t> first_over;  // line -> first P over noiseless + 5e-5 s
            bool gate_all = true, gate_any = false;
            std::string margins;  // per P above 2^14: each difference of the gate and the larger 95% CI
            for (uint32_t k = 1; k <= o.max_k; ++k) {
                // Without noise a mid or end exchange costs its compute only
                // (the pseudo-code's min keeps the process's own time).
                auto noiseless_of = [&](uint32_t m, uint32_t l) {
                    return k * costs.comm(bytes) + (k + m + l) * costs.compute(bytes);
                };
                std::fprintf(md, "| 2^%u | %.3e |", k, noiseless_of(0, 0));
                double value[4] = {NAN, NAN, NAN, NAN}, ci[4] = {NAN, NAN, NAN, NAN};
                for (int li = 0; li < 4; ++li) {
                    const uint32_t m = li <= 1 ? 0 : static_cast<uint32_t>(li - 1);
                    const Best b = line(all, variant, bytes, k, m, li == 0);
                    if (!b.p) {
                        std::fprintf(md, " - |");
                        continue;
                    }
                    value[li] = b.p->max.mean;
                    ci[li] = b.p->max.ci95;
                    const double noiseless = noiseless_of(m, b.l);
                    std::fprintf(csv, "%c,%zu,%u,%s,%u,%u,%u,%.6e,%.3e,%.6e,%.3e,%.6e\n", variant, bytes, 1u << k,
                                 names[li], m, b.l, b.p->trials, b.p->max.mean, b.p->max.ci95, b.p->mean.mean,
                                 b.p->mean.ci95, noiseless);
                    if (!first_over.count(li) && b.p->max.mean > noiseless + 5e-5) first_over[li] = 1u << k;
                    if (li == 0)
                        std::fprintf(md, " %.3e |", b.p->max.mean);
                    else
                        std::fprintf(md, " %.3e (%u) |", b.p->max.mean, b.l);
                }
                std::fprintf(md, "\n");
                if (k > 14) {
                    const bool ok = value[2] < value[1] && value[3] < value[2];
                    gate_all = gate_all && ok;
                    gate_any = true;
                    char line[200];
                    std::snprintf(line, sizeof line,
                                  "\n- 2^%u: [3] - proposed(1) = %.2e (95%% CI +-%.1e), proposed(1) - proposed(2) = "
                                  "%.2e (+-%.1e)",
                                  k, value[1] - value[2], std::max(ci[1], ci[2]), value[2] - value[3],
                                  std::max(ci[2], ci[3]));
                    margins += line;
                }
            }
            std::fprintf(md,
                         "\nFirst P whose mean time (max over processes) exceeds the noiseless one by 5e-5 s "
                         "(the seed: [3] suffers above 2^14, proposed(2) softens jitter below 2^18):");
            for (int li = 0; li < 4; ++li)
                std::fprintf(md, " %s %s;", names[li],
                             first_over.count(li) ? std::to_string(first_over[li]).c_str() : "none");
            std::fprintf(md,
                         "\n\nGate (every P > 2^14: proposed(1) < [3] and proposed(2) < proposed(1), by their "
                         "means): %s%s\n\n",
                         !gate_any  ? "not reached (no P above 2^14 run)"
                         : gate_all ? "met"
                                    : "**not met**",
                         margins.c_str());
        }
    std::fclose(csv);
    std::fclose(md);
    plot(o.out, csv_path, o.bytes.front());
    std::printf("acpx-model jitter: %s, %s\n", csv_path.c_str(), md_path.c_str());
    return 0;
}

}  // namespace acpx::tools
