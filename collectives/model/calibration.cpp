// Calibration samples: interpolation, the JSON file, where it is looked for.
#include "calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

double Calibration::copy_seconds(bool inline_round, bool streamed, bool across_nodes, double bytes,
                                 double round_bytes) const {
    const Samples &whole = copy(inline_round, false, across_nodes);
    const Samples &curve = copy(inline_round, streamed, across_nodes);
    if (round_bytes <= 0) return curve.at(bytes);
    // No block of a multi-block round is faster than its share of the
    // whole round's entry: its bytes are part of the round's arrays.
    const double share = bytes / round_bytes * whole.at(round_bytes);
    if (&curve == &whole) return std::max(whole.at(bytes), share);
    return std::max(share, stream_overhead(curve, whole, bytes) + bytes * per_byte(whole, round_bytes));
}

double Calibration::concurrent_slow(double bytes) const {
    if (comm_pair.empty() || bytes < comm_pair.points().front().first) return 1;
    // Against the same copy without inline slots: a bcast tree's 2-member
    // round may still take them at a size where an allgather's does not
    // (at 64 KiB: 3.4 us through the slots, 10.5 for the allgather).
    const double alone = (comm_direct.empty() ? comm : comm_direct).at(bytes);
    return alone > 0 ? std::max(1.0, comm_pair.at(bytes) / alone) : 1;
}

double Calibration::net_pair_slow(double bytes) const {
    if (comm_net_pair.empty() || comm_net.empty()) return 1;
    const double alone = comm_net.at(bytes);
    return alone > 0 ? std::max(1.0, comm_net_pair.at(bytes) / alone) : 1;
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
    // share/acpx/builtin-calibration.json, compiled in (collectives/local.mk)
    // so that a library that is not installed has it too; how it was
    // measured: doc/measurements/2026-11-28-builtin-calibration.md.
    static const char kText[] =
#include "collectives/model/builtin_calibration.inc"
        ;
    Calibration c;
    std::string why;
    if (!parse_calibration(kText, &c, &why)) {  // a build defect: the tests parse it
        std::fprintf(stderr, "acpx: internal error: share/acpx/builtin-calibration.json: %s\n", why.c_str());
        std::abort();
    }
    c.source = c.net_source = kBuiltinSource;
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
        {"comm_direct", &c->comm_direct},           {"comm_stream", &c->comm_stream},
        {"comm_footprint", &c->comm_footprint},     {"comm_pair", &c->comm_pair},
        {"comm_pair_inline", &c->comm_pair_inline}, {"comm_net", &c->comm_net},
        {"comm_net_stream", &c->comm_net_stream},   {"comm_net_pair", &c->comm_net_pair}};
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
    if (text(j, "schema") != kSchema) return *why = std::string("\"schema\" is not \"") + kSchema + "\"", false;
    Calibration c;
    if (!read_samples(j, "comm", &c.comm, why) || !read_samples(j, "memcpy", &c.memcpy, why)) return false;
    for (const auto &[name, curve] : optional_curves(&c))
        if (j.contains(name) && !read_samples(j, name, curve, why)) return false;
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
    if (j.contains("switch_s")) {
        const nlohmann::json &v = j["switch_s"];
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
            return *why = "\"switch_s\": want seconds, finite and >= 0", false;
        c.switch_s = v.get<double>();
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
    if (c.switch_s > 0) j["switch_s"] = c.switch_s;
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
    std::vector<double> switches;
    for (const Calibration &r : runs) {
        if (r.pair_ns > 0 && (m.pair_ns == 0 || r.pair_ns < m.pair_ns)) m.pair_ns = r.pair_ns;
        if (r.switch_s > 0) switches.push_back(r.switch_s);
    }
    m.switch_s = median(std::move(switches));
    return m;
}

bool mergeable(const Calibration &a, const Calibration &b, std::string *why) {
    const auto differ = [why](const char *what, unsigned x, unsigned y) {
        *why = std::string("its ") + what + " are " + std::to_string(y) + ", the first's " + std::to_string(x);
        return false;
    };
    if (a.cores != b.cores) return differ("cores", a.cores, b.cores);
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
    out->net_source = out->comm_net.empty() ? "" : path;
    return true;
}

// A file's calibration as the library uses it: the built-in curves
// between nodes where it has none.
bool with_net_curves(bool parsed, Calibration *c) {
    if (!parsed || !c->comm_net.empty()) return parsed;
    const Calibration b = builtin_calibration();
    c->comm_net = b.comm_net;
    c->comm_net_stream = b.comm_net_stream;
    c->comm_net_pair = b.comm_net_pair;
    c->net_source = kBuiltinSource;
    return true;
}

}  // namespace

bool read_calibration(const std::string &path, Calibration *out, std::string *why) {
    std::string json;
    if (!read_file(path, &json)) return *why = path + ": cannot be read", false;
    return parse_file(path, json, out, why);
}

bool load_calibration(Calibration *out, std::string *why, unsigned node_cores, const char *setting) {
    if (setting && *setting && !builtin_asked(setting))
        return with_net_curves(read_calibration(setting, out, why), out);
    std::string json;
    if (!builtin_asked(setting))
        for (const std::string &path : {user_calibration_path(), std::string(ACPX_DATADIR "/calibration.json")})
            if (!path.empty() && read_file(path, &json)) return with_net_curves(parse_file(path, json, out, why), out);
    *out = builtin_calibration_for(node_cores ? node_cores : online_cores());
    return true;
}

}  // namespace acpx::collectives::model
