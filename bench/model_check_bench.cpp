// acpx-bench model-check: measured against predicted time of one round,
// for every algorithm and size, on this machine (seed 003 Figs. 4-7).
// Each algorithm is forced with acp_set_col_algorithm and timed as
// acpx-bench bcast/allgather do (max over ranks of the per-rank average);
// the prediction comes from the same calibration and topology the library
// would use at create. CSV columns: op,algo,procs,size,measured_us,
// predicted_us,ratio (predicted / measured). The summary gives the two
// figures the model is judged by: the share of ratios within 0.8..1.25 at
// 64 KiB and above, and the share of (op, size) points where the predicted
// best algorithm is the measured best or within 10% of it (also counting
// algorithms with the same predicted time, the same schedule, as one).
// Each point is the median of three passes over all points, each
// sample taken on a near pair of cores, as calibrate's (placement.hpp).
//
// Uses internal headers (collectives/model, middle/, basic/config.hpp):
// it sets the model's predictions, from the calibration and topology a
// create would read, beside the measurements.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "acp.h"
#include "bench_common.hpp"
#include "basic/config.hpp"
#include "basic/layer.hpp"
#include "collectives/model/predict.hpp"
#include "middle/choose.hpp"
#include "middle/plan.hpp"
#include "placement.hpp"

namespace acpx::bench {
namespace {

namespace cm = collectives::model;

struct Point {
    std::string algo;
    double measured = 0, predicted = 0;
};

// What create would read: the calibration, the network (ACP_TOPOLOGY,
// else the job's nodes on a switch, as choose.cpp takes it) and the
// handles' inline cap.
struct ModelInputs {
    cm::Calibration cal;
    cm::Topology topo;
    bool has_topology = false;
    uint32_t inline_max = 0;
    bool full_caps = false;  // the job spans nodes or its node is crowded (the default inline cap, plan.hpp)
    const cm::Topology *topology() const { return has_topology ? &topo : nullptr; }
};

// False, reported on rank 0, if a variable cannot be read.
bool read_model_inputs(int me, const std::vector<int> &group, ModelInputs *in) {
    std::string why;
    const char *what = "ACP_CALIBRATION";
    if (cm::load_calibration(&in->cal, &why, 0, acpx::basic::config_env("ACP_CALIBRATION"))) {
        const char *spec = acpx::basic::config_env("ACP_TOPOLOGY");
        const bool named = spec && !cm::is_no_topology(spec);
        what = "ACP_TOPOLOGY";
        if (!named || cm::parse_topology(spec, &in->topo, &why)) {
            const cm::Topology nodes = middle::nodes_of(group);
            in->full_caps = nodes.nodes() > 1 || acpx::basic::layer::node_crowded();
            if (!named) in->topo = nodes;
            in->has_topology = named || in->topo.nodes() > 1;
            what = "ACP_COL_INLINE";
            if (middle::inline_max_from_env(&in->inline_max, &why)) return true;
        }
    }
    if (me == 0) std::fprintf(stderr, "acpx-bench model-check: %s: %s\n", what, why.c_str());
    return false;
}

// The CSV, appended to, with its header if new; nullptr (reported) if it
// cannot be written.
FILE *open_csv(const Options &o) {
    const std::string path = o.out.empty() ? "model_check.csv" : o.out;
    FILE *csv = std::fopen(path.c_str(), "a");
    if (!csv) return std::fprintf(stderr, "acpx-bench model-check: cannot write %s\n", path.c_str()), nullptr;
    std::fseek(csv, 0, SEEK_END);
    if (std::ftell(csv) == 0) std::fprintf(csv, "op,algo,procs,size,measured_us,predicted_us,ratio\n");
    return csv;
}

// What the model is judged by, counted over the points.
struct Tally {
    int in_band = 0, banded = 0;                   // ratios within 0.8..1.25, at >= 64 KiB
    int best_hits = 0, best_same = 0, points = 0;  // picks within 10%; misses with the same schedule
};

// One size's algorithms: printed, written to the CSV, counted.
void report_size(FILE *csv, const char *op, int np, size_t size, const std::vector<Point> &pts, Tally *t) {
    std::vector<double> predicted;
    for (const Point &p : pts) predicted.push_back(p.predicted);
    const size_t pbest = cm::pick_fastest(predicted);  // what create would take
    size_t mbest = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
        const Point &p = pts[i];
        const double ratio = p.measured > 0 ? p.predicted / p.measured : 0;
        std::printf("%-10s %-10zu %-12s %14.2f %14.2f %8.2f\n", op, size, p.algo.c_str(), p.measured, p.predicted,
                    ratio);
        std::fprintf(csv, "%s,%s,%d,%zu,%.3f,%.3f,%.4f\n", op, p.algo.c_str(), np, size, p.measured, p.predicted,
                     ratio);
        if (size >= 65536) {
            ++t->banded;
            t->in_band += ratio >= 0.8 && ratio <= 1.25;
        }
        if (p.measured < pts[mbest].measured) mbest = i;
    }
    ++t->points;
    const bool hit = pts[pbest].measured <= 1.10 * pts[mbest].measured;
    // The same prediction: the same schedule (at 2 ranks every tree is
    // one copy), so the measured gap between them is noise.
    const bool same = !hit && std::abs(pts[pbest].predicted - pts[mbest].predicted) <= 1e-3 * pts[mbest].predicted;
    t->best_hits += hit;
    t->best_same += same;
    std::printf("#   best: predicted %s, measured %s%s\n", pts[pbest].algo.c_str(), pts[mbest].algo.c_str(),
                hit    ? ""
                : same ? "  (same schedule, measured > 10% apart)"
                       : "  (MISS: predicted best > 10% slower)");
    std::fflush(stdout);
}

}  // namespace

int run_model_check(const Options &o) {
    const int me = acp_rank(), np = acp_procs();
    std::vector<int> group(np);
    for (int i = 0; i < np; ++i) group[i] = i;
    ModelInputs in;
    if (!read_model_inputs(me, group, &in)) return 1;
    FILE *csv = nullptr;
    if (me == 0) {
        if (!(csv = open_csv(o))) return 1;
        std::printf("# acpx model check, %d processes, transport %s, calibration %s\n", np, transport_label().c_str(),
                    in.cal.source.c_str());
        std::printf("%-10s %-10s %-12s %14s %14s %8s\n", "# op", "size", "algorithm", "measured(us)", "predicted(us)",
                    "ratio");
    }
    Tally tally;
    std::optional<Placement> place;  // samples on a near pair, as calibrate took its own
    if (!o.predict_only) {
        place.emplace(!o.quick);
        place->prefer(in.cal.pair_ns);  // as near a pair as the calibration had
    }
    for (bool bcast : {true, false}) {
        cm::Case base;
        base.op = bcast ? cm::Op::kBcast : cm::Op::kAllgather;
        base.members = static_cast<uint32_t>(np);
        base.inline_bytes = middle::inline_bytes_for(bcast ? middle::Kind::kBcast : middle::Kind::kAllgather,
                                                     base.members, 1, in.full_caps, in.inline_max);
        const std::vector<cm::Case> algos = cm::candidates(base);
        const std::vector<size_t> all_sizes = sizes(o);
        // Every (size, algorithm) once, then again: the median of three
        // passes over all of them (one with --quick). A burst of noise
        // then hits one sample of many points, not every sample of one;
        // and the samples spread over the run, as the calibration's do:
        // this VM's speed drifts by 20-30% over some seconds, and a size
        // measured in one slow stretch read 1.3x off its calibration.
        std::vector<double> all_measured(all_sizes.size() * algos.size(), 0.0);
        const size_t points = all_sizes.size() * algos.size();
        const bool ok =
            o.predict_only ||
            median_of_passes(
                o.quick ? 1 : 3, points,
                [&](size_t i, double *us) {
                    const size_t size = all_sizes[i / algos.size()];
                    const std::string name = cm::algo_name(algos[i % algos.size()]);
                    RoundTimes rt;
                    if (acp_set_col_algorithm(bcast ? name.c_str() : nullptr, bcast ? nullptr : name.c_str()) != 0 ||
                        !time_rounds(bcast, false, group, size, model_rounds(o, size, np), &rt, model_min_ms(o)))
                        return false;
                    if (rt.wrong_ranks > 0) return wrong_data("model-check", rt, size);
                    *us = rt.max_us;
                    return true;
                },
                &all_measured, place ? &*place : nullptr);
        if (!ok) return 1;
        if (me != 0) continue;
        for (size_t si = 0; si < all_sizes.size(); ++si) {
            std::vector<Point> pts;
            for (size_t a = 0; a < algos.size(); ++a) {
                cm::Case k = algos[a];
                k.bytes = all_sizes[si];
                pts.push_back({cm::algo_name(k), all_measured[si * algos.size() + a],
                               cm::predict(k, in.cal, in.topology()).total() * 1e6});
            }
            report_size(csv, bcast ? "bcast" : "allgather", np, all_sizes[si], pts, &tally);
        }
    }
    acp_set_col_algorithm("", "");
    if (me == 0 && !o.predict_only) {
        const Tally &t = tally;
        std::printf("# ratio within 0.8..1.25 at >= 64 KiB: %d of %d (%.0f%%; target: all)\n", t.in_band, t.banded,
                    t.banded ? 100.0 * t.in_band / t.banded : 0.0);
        std::printf(
            "# predicted best is the measured best or within 10%%: %d of %d points (%.0f%%; target >= 90%%); "
            "with identical schedules as one: %d (%.0f%%)\n",
            t.best_hits, t.points, t.points ? 100.0 * t.best_hits / t.points : 0.0, t.best_hits + t.best_same,
            t.points ? 100.0 * (t.best_hits + t.best_same) / t.points : 0.0);
        std::printf("# placement: %s\n", place->summary().c_str());
    }
    if (csv) std::fclose(csv);
    return 0;
}

}  // namespace acpx::bench
