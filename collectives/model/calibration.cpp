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

std::vector<std::pair<double, double>> slotless_curve(std::vector<std::pair<double, double>> measured,
                                                      const std::vector<std::pair<double, double>> &slotted) {
    const double last = measured.empty() ? -1 : measured.back().first;
    for (const auto &pt : slotted)
        if (pt.first > last) measured.push_back(pt);
    return measured;
}

Calibration builtin_calibration() {
    Calibration c;
    // The reference VM (2 cores, UCX, user arrays), 2026-11-25: the
    // per-sample medians of bench/model_check's 3-rank calibrations (3
    // launches), rounds one slot ahead (ACP_COL_RING_DEPTH=2), waits
    // yielding at once on the crowded node (ACP_IDLE=auto), fewer sizes.
    // A 2-member round up to 16 KiB through the inline slots (plain
    // stores; measured while a bcast tree's slots stopped there: its 32
    // and 64 KiB samples are copies, which now price those rounds, inline
    // since, high), above it process_vm_writev into the user's array, which is
    // also what a round costs without inline slots (comm_direct: ~1 us for
    // the system call and signals); a block right behind another
    // (comm_stream); 3 ranks on the 2 cores: a chain's step
    // (comm_crowded), a flat tree's copy (comm_fanout), a pipeline:16's
    // block (comm_crowd_stream), a Bruck and a ring allgather's block
    // (comm_crowd_gather, comm_crowd_ring; below); a 1 MiB entry by the
    // bytes its rounds span (comm_footprint); memcpy there.
    c.comm = Samples({{0, 4.63e-7}, {8, 1.53e-7}, {256, 2.64e-7}, {1024, 4.71e-7}, {4096, 6.47e-7}, {16384, 1.72e-6},
                      {32768, 2.04e-6}, {65536, 3.38e-6}, {262144, 9.45e-6}, {1 << 20, 4.99e-5}, {4 << 20, 3.47e-4}});
    c.comm_direct =
        Samples(slotless_curve({{0, 4.91e-7}, {8, 9.25e-7}, {4096, 1.08e-6}, {16384, 1.39e-6}}, c.comm.points()));
    c.comm_stream = Samples({{64, 8.35e-7}, {1024, 8.49e-7}, {4096, 9.36e-7}, {16384, 1.45e-6}, {32768, 2.06e-6},
                             {65536, 3.98e-6}, {262144, 2.24e-5}});
    c.comm_crowded = Samples({{0, 1.02e-6}, {8, 4.82e-7}, {1024, 6.57e-7}, {4096, 9.39e-7}, {16384, 1.69e-6},
                              {32768, 5.49e-6}, {65536, 8.94e-6}, {262144, 2.17e-5}, {1 << 20, 8.5e-5},
                              {4 << 20, 3.98e-4}});
    c.comm_fanout = Samples({{0, 1e-6}, {8, 4.59e-7}, {1024, 5.44e-7}, {4096, 7.12e-7}, {16384, 1.46e-6},
                             {32768, 2.78e-6}, {65536, 3.81e-6}, {262144, 9.82e-6}, {1 << 20, 6.81e-5},
                             {4 << 20, 4e-4}});
    // The chain and the flat tree without the inline slots (2026-11-26,
    // the same way): up to 16 KiB what a block costs; above, the same
    // rounds as the curves above.
    c.comm_crowded_direct = Samples(slotless_curve(
        {{0, 1.08e-6}, {8, 1.98e-6}, {1024, 2.3e-6}, {4096, 2.8e-6}, {16384, 4.32e-6}}, c.comm_crowded.points()));
    c.comm_fanout_direct = Samples(slotless_curve(
        {{0, 1.09e-6}, {8, 1.75e-6}, {1024, 1.85e-6}, {4096, 1.92e-6}, {16384, 2.45e-6}}, c.comm_fanout.points()));
    // Both through the slots back to back, at the ring depth a handle of
    // each size gets (2026-11-26, one 3-rank calibration, bound to cores).
    c.comm_crowded_overlap = Samples({{8, 1.04e-7}, {256, 1.31e-7}, {512, 1.52e-7}, {1024, 2.45e-7},
                                      {2048, 4.51e-7}, {4096, 5.7e-7}, {8192, 1.06e-6}, {16384, 1.91e-6}});
    c.comm_fanout_overlap = Samples({{8, 1.1e-7}, {256, 1.36e-7}, {512, 1.45e-7}, {1024, 2.37e-7}, {2048, 4.37e-7},
                                     {4096, 5.18e-7}, {8192, 8.97e-7}, {16384, 1.73e-6}});
    c.comm_crowd_stream = Samples({{64, 1.3e-6}, {1024, 1.51e-6}, {4096, 1.83e-6}, {16384, 3e-6}, {32768, 4.61e-6},
                                   {65536, 7.83e-6}, {131072, 1.67e-5}, {262144, 3.34e-5}, {524288, 6.37e-5},
                                   {1 << 20, 1.37e-4}});
    // A block of a pipeline:4 over the 3 ranks (2026-11-26, one 3-rank
    // calibration, bound to cores): with the pipeline:16 above, what a
    // pipeline's round costs beyond its blocks.
    c.comm_crowd_stream4 = Samples({{64, 1.76e-6}, {1024, 1.85e-6}, {4096, 2.04e-6}, {16384, 4.35e-6}, {32768, 5.72e-6},
                                    {65536, 7.77e-6}, {131072, 1.42e-5}, {262144, 2.68e-5}, {524288, 6.09e-5},
                                    {1 << 20, 1.09e-4}});
    // A block of a Bruck and of a ring allgather over the 3 ranks (2026-
    // 11-26, the per-sample medians of the main job's six 3-rank
    // calibrations, bound to cores; the Bruck samples of 2026-11-25 were
    // half of what every calibration since has read): from the two, an
    // allgather's forward cost.
    c.comm_crowd_gather = Samples({{32768, 1.21e-5}, {65536, 1.95e-5}, {131072, 2.99e-5}, {262144, 5.27e-5},
                                   {524288, 1.05e-4}, {1 << 20, 2.23e-4}, {2 << 20, 7.46e-4}, {4 << 20, 1.91e-3}});
    c.comm_crowd_ring = Samples({{32768, 1.42e-5}, {65536, 2.23e-5}, {131072, 3.63e-5}, {262144, 6.09e-5},
                                 {524288, 1.1e-4}, {1 << 20, 2.17e-4}, {2 << 20, 7.37e-4}, {4 << 20, 2.1e-3}});
    // No scatter_ring round (comm_crowd_scatter): its forwards cost the
    // chain's. These curves come from a faster state of the VM than
    // today's (a 3-rank binomial of 64 KiB: 8.5 us here, 19 in the check
    // of 2026-11-27), and that check's scatter_ring samples beside them
    // would price it 1.3-1.8x.
    c.crowd_ranks = 3;
    c.crowd_cores = 2;
    c.comm_footprint = Samples({{2 << 20, 5.24e-5}, {4 << 20, 8.44e-5}, {8 << 20, 8.99e-5}, {16 << 20, 9.04e-5},
                                {32 << 20, 9.28e-5}, {64 << 20, 1.7e-4}, {128 << 20, 2.14e-4}, {256 << 20, 2.26e-4}});
    c.memcpy = Samples({{0, 1.37e-9}, {1024, 2.26e-7}, {4096, 4.82e-7}, {16384, 2.08e-6}, {65536, 8.13e-6},
                        {262144, 3.3e-5}, {1 << 20, 1.35e-4}, {4 << 20, 6.05e-4}});
    c.cores = 2;
    c.machine = "reference VM (2 cores)";
    c.transport = "ucx";
    c.source = kBuiltinSource;
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
        {"comm_footprint", &c->comm_footprint},
        {"comm_pair", &c->comm_pair},
        {"converge_slow", &c->converge_slow},
        {"comm_net", &c->comm_net},
        {"comm_net_stream", &c->comm_net_stream}};
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
    auto all = optional_curves(&c);
    all.insert(all.begin(), {{"comm", &c.comm}, {"memcpy", &c.memcpy}});
    for (const auto &[name, s] : all) {
        if (s->empty()) continue;
        nlohmann::json arr = nlohmann::json::array();
        for (const auto &[b, t] : s->points()) arr.push_back({b, t});
        j[name] = arr;
    }
    return j.dump(2) + "\n";
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

bool load_calibration(Calibration *out, std::string *why, unsigned node_cores) {
    std::string json;
    auto load = [&](const std::string &path) {
        if (!parse_calibration(json, out, why)) return *why = path + ": " + *why, false;
        out->source = path;
        return true;
    };
    if (const char *env = std::getenv("ACP_CALIBRATION"); env && *env) {
        if (!read_file(env, &json)) return *why = std::string(env) + ": cannot be read", false;
        return load(env);
    }
    for (const std::string &path : {user_calibration_path(), std::string(ACPX_DATADIR "/calibration.json")})
        if (!path.empty() && read_file(path, &json)) return load(path);
    *out = builtin_calibration_for(node_cores ? node_cores : online_cores());
    return true;
}

}  // namespace acpx::collectives::model
