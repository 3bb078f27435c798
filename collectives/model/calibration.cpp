// Calibration samples: interpolation, the JSON file, where it is looked for.
#include "calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "collectives/algorithms.hpp"

namespace acpx::collectives::model {
namespace {

constexpr const char *kSchema = "acpx-calibration/1";

// `unit`: what the second of each pair is, for the messages.
bool read_samples(const nlohmann::json &j, const char *name, Samples *out, std::string *why,
                  const char *unit = "seconds") {
    if (!j.contains(name) || !j[name].is_array() || j[name].empty())
        return *why = std::string("\"") + name + "\": missing or not a non-empty array", false;
    std::vector<std::pair<double, double>> pts;
    for (const auto &e : j[name]) {
        if (!e.is_array() || e.size() != 2 || !e[0].is_number() || !e[1].is_number())
            return *why = std::string("\"") + name + "\": every sample is [bytes, " + unit + "]", false;
        const double b = e[0].get<double>(), t = e[1].get<double>();
        if (!(b >= 0) || !std::isfinite(b) || !(t >= 0) || !std::isfinite(t))
            return *why = std::string("\"") + name + "\": sample [" + e[0].dump() + ", " + e[1].dump() +
                          "] is negative or not finite",
                   false;
        pts.emplace_back(b, t);
    }
    std::sort(pts.begin(), pts.end());
    for (size_t i = 1; i < pts.size(); ++i)
        if (pts[i].first == pts[i - 1].first)
            return *why = std::string("\"") + name + "\": two samples for " +
                          std::to_string(static_cast<long long>(pts[i].first)) + " bytes",
                   false;
    *out = Samples(std::move(pts));
    return true;
}

std::string text(const nlohmann::json &j, const char *key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool read_file(const std::string &path, std::string *out) {
    std::ifstream f(path);
    if (!f) return false;
    std::ostringstream s;
    s << f.rdbuf();
    *out = s.str();
    return true;
}

}  // namespace

Samples::Samples(std::vector<std::pair<double, double>> points) : pts_(std::move(points)) {
    std::sort(pts_.begin(), pts_.end());
}

double Samples::at(double bytes) const {
    if (pts_.empty()) return 0;
    const auto &first = pts_.front(), &last = pts_.back();
    // Outside the samples: the smallest one's time below them; above them
    // the largest one's bandwidth (a noisy last pair could slope down).
    if (bytes <= first.first) return first.second;
    if (bytes >= last.first) return last.first > 0 ? last.second * bytes / last.first : last.second;
    const auto hi = std::upper_bound(pts_.begin(), pts_.end(), std::make_pair(bytes, -1.0));
    const auto lo = hi - 1;
    return lo->second + (hi->second - lo->second) * (bytes - lo->first) / (hi->first - lo->first);
}

Samples rising(const Samples &s) {
    // Pool adjacent violators: each run of samples out of order becomes
    // one value, their mean, until the runs' values rise.
    struct Run {
        double sum;
        size_t n;
        double mean() const { return sum / static_cast<double>(n); }
    };
    std::vector<Run> runs;
    for (const auto &p : s.points()) {
        runs.push_back({p.second, 1});
        while (runs.size() > 1 && runs[runs.size() - 2].mean() > runs.back().mean()) {
            const Run last = runs.back();
            runs.pop_back();
            runs.back().sum += last.sum;
            runs.back().n += last.n;
        }
    }
    std::vector<std::pair<double, double>> pts = s.points();
    size_t i = 0;
    for (const Run &r : runs)
        for (size_t k = 0; k < r.n; ++k) pts[i++].second = r.mean();
    return Samples(std::move(pts));
}

std::vector<Settled> settle_block_curves(Calibration *c) {
    std::vector<Settled> out;
    for (auto [name, curve] : {std::pair<const char *, Samples *>{"comm_crowd_stream", &c->comm_crowd_stream},
                               {"comm_crowd_stream4", &c->comm_crowd_stream4}}) {
        Samples kept = rising(*curve);
        for (size_t i = 0; i < kept.points().size(); ++i)
            if (kept.points()[i].second != curve->points()[i].second)
                out.push_back({name, kept.points()[i].first, curve->points()[i].second, kept.points()[i].second});
        *curve = std::move(kept);
    }
    return out;
}

std::vector<size_t> bumps(const std::vector<std::pair<double, double>> &points, double factor) {
    std::vector<size_t> out;
    for (size_t i = 1; i + 1 < points.size(); ++i) {
        const auto [x0, y0] = points[i - 1];
        const auto [x1, y1] = points[i];
        const auto [x2, y2] = points[i + 1];
        if (!(x0 < x1 && x1 < x2)) continue;
        const double chord = y0 + (y2 - y0) * (x1 - x0) / (x2 - x0);
        if (y1 > factor * chord) out.push_back(i);
    }
    return out;
}

double median(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t h = values.size() / 2;
    return values.size() % 2 ? values[h] : (values[h - 1] + values[h]) / 2;
}

double Samples::clamped(double bytes) const {
    if (!pts_.empty() && bytes >= pts_.back().first) return pts_.back().second;
    return at(bytes);
}

namespace {

// The seconds a byte of an entry of `bytes` takes beyond the entry's
// latency (its time for a few bytes: at its smallest sampled size above
// 0, or at 64 bytes if that is larger; a 0-byte round copies nothing):
// what a block of a round of `bytes` is charged for its share of them.
// Without the latency taken out, a 1-byte block of an 8-byte round paid
// an eighth of a whole entry.
double per_byte(const Samples &entry, double bytes) {
    if (bytes <= 0 || entry.empty()) return 0;
    constexpr double kFew = 64;
    const auto &pts = entry.points();
    const auto first = std::find_if(pts.begin(), pts.end(), [](const auto &p) { return p.first > 0; });
    const double latency = entry.at(first == pts.end() ? kFew : std::min(first->first, kFew));
    return std::max(0.0, entry.at(bytes) - latency) / bytes;
}

}  // namespace

double stream_overhead(const Samples &stream, const Samples &entry, double block) {
    if (stream.empty()) return 0;
    const double b = std::min(block, stream.points().back().first);
    constexpr double kSegments = 16;  // calibrate's pipeline:16 (bench/calibrate_bench.cpp)
    return std::max(0.0, stream.at(b) - b * per_byte(entry, kSegments * b));
}

Calibration::CopyPrice Calibration::copy_price(bool inline_round, bool streamed, bool across_nodes, double bytes,
                                               double round_bytes) const {
    const Samples &whole = copy(inline_round, false, across_nodes);
    const Samples &curve = copy(inline_round, streamed, across_nodes);
    CopyPrice p;
    if (round_bytes <= 0) return p.seconds = curve.at(bytes), p;
    // No block of a multi-block round is faster than its share of the
    // whole round's entry: its bytes are part of the round's arrays.
    p.share = bytes / round_bytes * whole.at(round_bytes);
    p.own = whole.at(bytes);
    if (&curve == &whole) {
        p.seconds = std::max(p.own, p.share);
    } else {
        p.adds = stream_overhead(curve, whole, bytes);
        p.seconds = std::max(p.share, p.adds + bytes * per_byte(whole, round_bytes));
    }
    return p;
}

double Calibration::concurrent_slow(double bytes) const {
    if (comm_pair.empty() || bytes < comm_pair.points().front().first) return 1;
    // Against the same copy without inline slots: a bcast tree's 2-member
    // round may still take them at a size where an allgather's does not
    // (at 64 KiB: 3.4 us through the slots, 10.5 for the allgather).
    const double alone = (comm_direct.empty() ? comm : comm_direct).at(bytes);
    return alone > 0 ? std::max(1.0, comm_pair.at(bytes) / alone) : 1;
}

double Calibration::inline_copy_out(double bytes) const {
    if (comm_pair_inline.empty() || bytes < comm_pair_inline.points().front().first ||
        bytes > comm_pair_inline.points().back().first)
        return memcpy.at(bytes);
    return std::max(0.0, comm_pair_inline.at(bytes) - comm.at(bytes));
}

std::vector<std::pair<double, double>> slotless_curve(std::vector<std::pair<double, double>> measured,
                                                      const std::vector<std::pair<double, double>> &slotted) {
    const double last = measured.empty() ? -1 : measured.back().first;
    for (const auto &pt : slotted)
        if (pt.first > last) measured.push_back(pt);
    return measured;
}

Calibration builtin_calibration() {
    Calibration c;
    // The reference VM (2 cores, UCX, user arrays), 2026-11-28, at commit
    // 35b9f6b (a bcast tree's inline slots up to 64 KiB, an allgather's
    // up to 16 KiB): the main job's 3-rank calibration, each sample the
    // median of six launches of bench/model_check (ranks bound to cores;
    // rounds one slot ahead, ACP_COL_RING_DEPTH=2; waits yielding at once
    // on the crowded node, ACP_IDLE=auto). Every curve comes from that one
    // run, so their ratios, which the picks depend on, hold together. The
    // crowd's costs are solved from differences of these curves: rounding
    // the samples to the 4 significant digits here moved some pipeline:4
    // predictions by up to 10%, and no pick of the model check.
    //
    // Two ranks: a 2-member round (through the inline slots up to 64 KiB,
    // above it process_vm_writev into the user's array), the same without
    // the slots (comm_direct), a block right behind another (comm_stream),
    // two copies at once one each way (comm_pair, above the allgather's
    // slots).
    c.comm = Samples({{0, 5.397e-7}, {8, 1.741e-7}, {16, 1.754e-7}, {32, 1.722e-7}, {64, 1.773e-7}, {128, 1.851e-7},
        {256, 1.877e-7}, {512, 2.137e-7}, {1024, 2.335e-7}, {2048, 3.045e-7}, {4096, 4.424e-7}, {8192, 6.133e-7},
        {16384, 9.041e-7}, {32768, 1.68e-6}, {65536, 3.625e-6}, {131072, 1.778e-5}, {262144, 3.34e-5},
        {524288, 6.411e-5}, {1 << 20, 1.245e-4}, {2 << 20, 2.459e-4}, {4 << 20, 5.19e-4}});
    c.comm_direct = Samples(slotless_curve({{0, 5.176e-7}, {8, 3.178e-6}, {16, 3.371e-6}, {32, 3.318e-6},
        {64, 3.326e-6}, {128, 3.322e-6}, {256, 3.337e-6}, {512, 3.488e-6}, {1024, 3.354e-6}, {2048, 3.484e-6},
        {4096, 3.938e-6}, {8192, 4.236e-6}, {16384, 5.323e-6}, {32768, 6.928e-6},
        {65536, 1.027e-5}}, c.comm.points()));
    c.comm_stream = Samples({{64, 3.002e-6}, {128, 3.115e-6}, {256, 3.02e-6}, {512, 3.183e-6}, {1024, 2.988e-6},
        {2048, 3.135e-6}, {4096, 3.559e-6}, {8192, 4.149e-6}, {16384, 5.267e-6}, {32768, 7.042e-6}, {65536, 1.103e-5},
        {131072, 1.922e-5}, {262144, 3.995e-5}});
    c.comm_pair = Samples({{32768, 7.52e-6}, {65536, 1.17e-5}, {131072, 1.952e-5}, {262144, 3.586e-5},
        {524288, 6.688e-5}, {1 << 20, 1.272e-4}, {2 << 20, 2.588e-4}, {4 << 20, 7.141e-4}});
    // The same through the slots (comm_pair_inline): two calibrations of
    // 2026-11-30, each sample their mean (added after the curves above).
    c.comm_pair_inline = Samples({{8, 2.52e-7}, {16, 2.57e-7}, {32, 2.685e-7}, {64, 2.74e-7}, {128, 2.78e-7},
        {256, 2.945e-7}, {512, 3.205e-7}, {1024, 4.08e-7}, {2048, 5.905e-7}, {4096, 9.55e-7}, {8192, 1.422e-6},
        {16384, 2.389e-6}});
    // 3 ranks on the 2 cores: a chain's step and a flat tree's copy, with
    // the slots and without them (up to 64 KiB; above, the same rounds),
    // and through the slots back to back at a handle's own ring depth.
    c.comm_crowded = Samples({{0, 3.15e-6}, {8, 1.374e-6}, {16, 1.457e-6}, {32, 1.46e-6}, {64, 1.421e-6},
        {128, 1.45e-6}, {256, 1.393e-6}, {512, 1.411e-6}, {1024, 1.51e-6}, {2048, 1.662e-6}, {4096, 1.536e-6},
        {8192, 1.884e-6}, {16384, 2.15e-6}, {32768, 3.278e-6}, {65536, 5.173e-6}, {131072, 2.123e-5},
        {262144, 3.985e-5}, {524288, 7.444e-5}, {1 << 20, 1.317e-4}, {2 << 20, 2.831e-4}, {4 << 20, 7.068e-4}});
    c.comm_fanout = Samples({{0, 2.989e-6}, {8, 1.4e-6}, {16, 1.397e-6}, {32, 1.4e-6}, {64, 1.387e-6}, {128, 1.398e-6},
        {256, 1.423e-6}, {512, 1.443e-6}, {1024, 1.494e-6}, {2048, 1.434e-6}, {4096, 1.709e-6}, {8192, 1.944e-6},
        {16384, 2.2e-6}, {32768, 3.427e-6}, {65536, 5.5e-6}, {131072, 1.849e-5}, {262144, 3.567e-5},
        {524288, 6.615e-5}, {1 << 20, 1.279e-4}, {2 << 20, 2.695e-4}, {4 << 20, 6.706e-4}});
    c.comm_crowded_direct = Samples(slotless_curve({{0, 2.499e-6}, {8, 5.621e-6}, {16, 5.831e-6}, {32, 5.881e-6},
        {64, 5.834e-6}, {128, 6.06e-6}, {256, 5.631e-6}, {512, 5.742e-6}, {1024, 5.881e-6}, {2048, 5.944e-6},
        {4096, 6.322e-6}, {8192, 7.033e-6}, {16384, 8.282e-6}, {32768, 1.004e-5},
        {65536, 1.503e-5}}, c.comm_crowded.points()));
    c.comm_fanout_direct = Samples(slotless_curve({{0, 3.066e-6}, {8, 5.907e-6}, {16, 6.208e-6}, {32, 6.565e-6},
        {64, 6.317e-6}, {128, 6.399e-6}, {256, 6.36e-6}, {512, 6.486e-6}, {1024, 6.162e-6}, {2048, 6.561e-6},
        {4096, 6.687e-6}, {8192, 6.988e-6}, {16384, 8.11e-6}, {32768, 1.057e-5},
        {65536, 1.45e-5}}, c.comm_fanout.points()));
    c.comm_crowded_overlap = Samples({{8, 1.861e-7}, {16, 1.928e-7}, {32, 1.888e-7}, {64, 1.908e-7}, {128, 1.923e-7},
        {256, 2.045e-7}, {512, 2.192e-7}, {1024, 2.472e-7}, {2048, 3.928e-7}, {4096, 6.639e-7}, {8192, 1.223e-6},
        {16384, 2.33e-6}, {32768, 3.429e-6}, {65536, 5.422e-6}});
    c.comm_fanout_overlap = Samples({{8, 2.228e-7}, {16, 2.177e-7}, {32, 2.222e-7}, {64, 2.124e-7}, {128, 2.245e-7},
        {256, 2.255e-7}, {512, 2.431e-7}, {1024, 3.023e-7}, {2048, 4.68e-7}, {4096, 7.705e-7}, {8192, 1.365e-6},
        {16384, 2.561e-6}, {32768, 3.705e-6}, {65536, 6.157e-6}});
    // A pipeline:16's and a pipeline:4's block (from the two, what a
    // pipeline's round costs beyond its blocks); a Bruck and a ring
    // allgather's block (from the two, an allgather's forward cost); a
    // scatter_ring round / 2; two copies from two cores into one rank,
    // over each alone.
    c.comm_crowd_stream = Samples({{64, 4.267e-6}, {128, 4.485e-6}, {256, 4.161e-6}, {512, 4.12e-6}, {1024, 4.349e-6},
        {2048, 4.635e-6}, {4096, 4.97e-6}, {8192, 5.818e-6}, {16384, 7.049e-6}, {32768, 1.015e-5}, {65536, 1.566e-5},
        {131072, 2.829e-5}, {262144, 6.086e-5}, {524288, 1.244e-4}, {1 << 20, 2.81e-4}});
    c.comm_crowd_stream4 = Samples({{64, 4.831e-6}, {128, 4.853e-6}, {256, 4.921e-6}, {512, 5.271e-6},
        {1024, 5.524e-6}, {2048, 5.412e-6}, {4096, 5.872e-6}, {8192, 6.634e-6}, {16384, 7.998e-6}, {32768, 1.021e-5},
        {65536, 1.595e-5}, {131072, 2.544e-5}, {262144, 4.402e-5}, {524288, 9.082e-5}, {1 << 20, 2.163e-4}});
    c.comm_crowd_gather = Samples({{32768, 1.794e-5}, {65536, 2.706e-5}, {131072, 4.516e-5}, {262144, 7.969e-5},
        {524288, 1.513e-4}, {1 << 20, 3.061e-4}, {2 << 20, 8.312e-4}, {4 << 20, 2.022e-3}});
    c.comm_crowd_ring = Samples({{8, 2.029e-6}, {16, 1.867e-6}, {32, 1.99e-6}, {64, 1.952e-6}, {128, 1.914e-6},
        {256, 1.921e-6}, {512, 2.077e-6}, {1024, 2.11e-6}, {2048, 2.303e-6}, {4096, 2.607e-6}, {8192, 3.13e-6},
        {16384, 4.676e-6}, {32768, 1.74e-5}, {65536, 2.741e-5}, {131072, 4.072e-5}, {262144, 7.37e-5},
        {524288, 1.4e-4}, {1 << 20, 2.913e-4}, {2 << 20, 8.086e-4}, {4 << 20, 1.903e-3}});
    c.comm_crowd_scatter = Samples({{32768, 1.108e-5}, {65536, 1.428e-5}, {131072, 2.086e-5}, {262144, 3.635e-5},
        {524288, 6.422e-5}, {1 << 20, 1.199e-4}, {2 << 20, 2.259e-4}, {4 << 20, 4.895e-4}});
    c.converge_slow = Samples({{0, 1.049}, {8, 1.039}, {16, 1.042}, {32, 1.079}, {64, 1.069}, {128, 1.07},
        {256, 1.055}, {512, 1.069}, {1024, 1.076}, {2048, 1.046}, {4096, 1.08}, {8192, 1.101}, {16384, 1.086},
        {32768, 1.109}, {65536, 1.151}, {131072, 1.159}, {262144, 1.158}, {524288, 1.146}, {1 << 20, 1.084},
        {2 << 20, 1.07}, {4 << 20, 1.154}});
    c.crowd_ranks = 3;
    c.crowd_cores = 2;
    // A 1 MiB entry by the bytes its rounds span; memcpy there.
    c.comm_footprint = Samples({{2 << 20, 1.309e-4}, {4 << 20, 1.322e-4}, {8 << 20, 1.431e-4}, {16 << 20, 1.964e-4},
        {32 << 20, 2.192e-4}, {64 << 20, 2.393e-4}, {128 << 20, 2.358e-4}, {256 << 20, 2.473e-4}});
    c.memcpy = Samples({{0, 6.769e-9}, {8, 4.913e-8}, {16, 3.34e-8}, {32, 2.819e-8}, {64, 3.029e-8}, {128, 3.961e-8},
        {256, 4.846e-8}, {512, 8.442e-8}, {1024, 1.714e-7}, {2048, 3.486e-7}, {4096, 4.932e-7}, {8192, 9.737e-7},
        {16384, 1.835e-6}, {32768, 3.782e-6}, {65536, 7.182e-6}, {131072, 1.421e-5}, {262144, 2.803e-5},
        {524288, 6.043e-5}, {1 << 20, 1.182e-4}, {2 << 20, 2.323e-4}, {4 << 20, 4.586e-4}});
    c.cores = 2;
    c.machine = "reference VM (2 cores)";
    c.transport = "ucx";
    c.source = kBuiltinSource;
    settle_block_curves(&c);  // as calibrate does
    return c;
}

Calibration builtin_calibration_for(unsigned node_cores) {
    Calibration c = builtin_calibration();
    if (node_cores > 0) c.cores = node_cores;
    return c;
}

namespace {

// The curves a file may leave out, by their names in it (Cal: a
// Calibration, const or not).
template <typename Cal>
auto optional_curves(Cal *c) {
    return std::vector<std::pair<const char *, decltype(&c->comm)>>{
        {"comm_direct", &c->comm_direct},
        {"comm_stream", &c->comm_stream},
        {"comm_crowded", &c->comm_crowded},
        {"comm_fanout", &c->comm_fanout},
        {"comm_crowded_direct", &c->comm_crowded_direct},
        {"comm_fanout_direct", &c->comm_fanout_direct},
        {"comm_crowded_overlap", &c->comm_crowded_overlap},
        {"comm_fanout_overlap", &c->comm_fanout_overlap},
        {"comm_crowd_stream", &c->comm_crowd_stream},
        {"comm_crowd_stream4", &c->comm_crowd_stream4},
        {"comm_crowd_gather", &c->comm_crowd_gather},
        {"comm_crowd_ring", &c->comm_crowd_ring},
        {"comm_crowd_scatter", &c->comm_crowd_scatter},
        {"comm_crowd_tree", &c->comm_crowd_tree},
        {"comm_footprint", &c->comm_footprint},
        {"comm_pair", &c->comm_pair},
        {"comm_pair_inline", &c->comm_pair_inline},
        {"converge_slow", &c->converge_slow},
        {"comm_net", &c->comm_net},
        {"comm_net_stream", &c->comm_net_stream}};
}

// Every curve of c, by its name in a file (Cal: const or not).
template <typename Cal>
auto all_curves(Cal *c) {
    auto all = optional_curves(c);
    all.insert(all.begin(), {{"comm", &c->comm}, {"memcpy", &c->memcpy}});
    return all;
}

}  // namespace

bool parse_calibration(const std::string &json, Calibration *out, std::string *why) {
    nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return *why = "not a JSON object", false;
    if (text(j, "schema") != kSchema)
        return *why = std::string("\"schema\" is not \"") + kSchema + "\"", false;
    Calibration c;
    if (!read_samples(j, "comm", &c.comm, why) || !read_samples(j, "memcpy", &c.memcpy, why)) return false;
    for (const auto &[name, curve] : optional_curves(&c))
        if (j.contains(name) && !read_samples(j, name, curve, why)) return false;
    if (j.contains("crowd_ranks")) {
        // calibrate's flat tree spans them all; and each solve simulates
        // rounds over them (create took 2 s a size at 64 ranks, 9 at 256).
        if (!j["crowd_ranks"].is_number_unsigned() || j["crowd_ranks"].get<uint64_t>() > kMaxRadix)
            return *why = "\"crowd_ranks\": want a count of ranks, at most " + std::to_string(kMaxRadix), false;
        c.crowd_ranks = j["crowd_ranks"].get<unsigned>();
    }
    if (j.contains("crowd_cores")) {
        if (!j["crowd_cores"].is_number_unsigned() || j["crowd_cores"].get<uint64_t>() > 1u << 20)
            return *why = "\"crowd_cores\": want a count of cores (0: as \"cores\")", false;
        c.crowd_cores = j["crowd_cores"].get<unsigned>();
    }
    // "crowd_parallel" (files before the crowded simulation): no longer used.
    if (j.contains("cores")) {
        if (!j["cores"].is_number_unsigned() || j["cores"].get<uint64_t>() > 1u << 20)
            return *why = "\"cores\": want a count of cores (0: no limit)", false;
        c.cores = j["cores"].get<unsigned>();
    }
    if (j.contains("pair_ns")) {
        const nlohmann::json &v = j["pair_ns"];
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
            return *why = "\"pair_ns\": want nanoseconds, finite and >= 0", false;
        c.pair_ns = j["pair_ns"].get<double>();
    }
    settle_block_curves(&c);  // files written before calibrate settled them
    c.machine = text(j, "machine");
    c.created = text(j, "created");
    c.transport = text(j, "transport");
    *out = std::move(c);
    return true;
}

std::string to_json(const Calibration &c) {
    nlohmann::json j;
    j["schema"] = kSchema;
    j["machine"] = c.machine;
    j["created"] = c.created;
    j["transport"] = c.transport;
    j["cores"] = c.cores;
    if (c.pair_ns > 0) j["pair_ns"] = c.pair_ns;
    if (!c.comm_crowded.empty()) {
        j["crowd_ranks"] = c.crowd_ranks;
        if (c.crowd_cores) j["crowd_cores"] = c.crowd_cores;
    }
    for (const auto &[name, s] : all_curves(&c)) {
        if (s->empty()) continue;
        nlohmann::json arr = nlohmann::json::array();
        for (const auto &[b, t] : s->points()) arr.push_back({b, t});
        j[name] = arr;
    }
    return j.dump(2) + "\n";
}

Calibration median_calibration(const std::vector<Calibration> &runs) {
    if (runs.empty()) return {};
    Calibration m = runs.front();
    const auto out = all_curves(&m);
    std::vector<decltype(all_curves(&runs.front()))> in;  // each run's, in the same order
    for (const Calibration &r : runs) in.push_back(all_curves(&r));
    for (size_t i = 0; i < out.size(); ++i) {
        std::vector<std::pair<double, std::vector<double>>> by_size;  // Samples sorts them
        for (const auto &curves : in)
            for (const auto &[b, t] : curves[i].second->points()) {
                auto it = std::find_if(by_size.begin(), by_size.end(), [b = b](const auto &e) { return e.first == b; });
                if (it == by_size.end()) it = by_size.insert(by_size.end(), {b, {}});
                it->second.push_back(t);
            }
        std::vector<std::pair<double, double>> merged;
        for (auto &[b, v] : by_size) merged.emplace_back(b, median(std::move(v)));
        *out[i].second = merged.empty() ? Samples() : Samples(std::move(merged));
    }
    // The nearest pair any run had: what samples taken with it wait for.
    for (const Calibration &r : runs)
        if (r.pair_ns > 0 && (m.pair_ns == 0 || r.pair_ns < m.pair_ns)) m.pair_ns = r.pair_ns;
    return m;
}

bool mergeable(const Calibration &a, const Calibration &b, std::string *why) {
    const auto differ = [why](const char *what, unsigned x, unsigned y) {
        *why = std::string("its ") + what + " are " + std::to_string(y) + ", the first's " + std::to_string(x);
        return false;
    };
    if (a.cores != b.cores) return differ("cores", a.cores, b.cores);
    if (a.crowd_ranks != b.crowd_ranks) return differ("crowded ranks", a.crowd_ranks, b.crowd_ranks);
    if (a.crowd_cores != b.crowd_cores) return differ("crowded CPUs", a.crowd_cores, b.crowd_cores);
    return true;
}

unsigned online_cores() {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : 0;
}

std::string cores_in_use(const Calibration &c, unsigned node_cores) {
    std::string s = c.cores ? std::to_string(c.cores) + " cores" : "no limit of cores";
    if (c.source != kBuiltinSource && node_cores > 0 && c.cores != 0 && c.cores != node_cores)
        s += " (this node has " + std::to_string(node_cores) + ": acpx-bench calibrate here measures it)";
    return s;
}

std::string user_calibration_path() {
    if (const char *x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/acpx/calibration.json";
    if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/acpx/calibration.json";
    return "";
}

bool builtin_asked(const char *setting) { return setting && std::string(setting) == kBuiltinName; }

namespace {

// The file at path's text, json, parsed into *out (source: path).
bool parse_file(const std::string &path, const std::string &json, Calibration *out, std::string *why) {
    if (!parse_calibration(json, out, why)) return *why = path + ": " + *why, false;
    out->source = path;
    return true;
}

}  // namespace

bool read_calibration(const std::string &path, Calibration *out, std::string *why) {
    std::string json;
    if (!read_file(path, &json)) return *why = path + ": cannot be read", false;
    return parse_file(path, json, out, why);
}

bool load_calibration(Calibration *out, std::string *why, unsigned node_cores, const char *setting) {
    if (setting && *setting && !builtin_asked(setting)) return read_calibration(setting, out, why);
    std::string json;
    if (!builtin_asked(setting))
        for (const std::string &path : {user_calibration_path(), std::string(ACPX_DATADIR "/calibration.json")})
            if (!path.empty() && read_file(path, &json)) return parse_file(path, json, out, why);
    *out = builtin_calibration_for(node_cores ? node_cores : online_cores());
    return true;
}

}  // namespace acpx::collectives::model
