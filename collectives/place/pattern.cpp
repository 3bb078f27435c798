#include "pattern.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "log_cut.hpp"

namespace acpx::collectives::place {
namespace {

bool is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

uint32_t log2_of(uint64_t v) {
    uint32_t k = 0;
    while (v > 1) v >>= 1, ++k;
    return k;
}

// A decimal count with an optional K, M or G (powers of 1024).
bool parse_count(const std::string &s, uint64_t *out) {
    if (s.empty() || s[0] < '0' || s[0] > '9') return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno) return false;
    uint64_t mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1 << 10, ++end;
    else if (*end == 'M' || *end == 'm')
        mult = 1 << 20, ++end;
    else if (*end == 'G' || *end == 'g')
        mult = 1 << 30, ++end;
    if (*end) return false;
    if (v > UINT64_MAX / mult) return false;
    *out = v * mult;
    return true;
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + 1)
        parts.push_back(s.substr(start, at - start));
    parts.push_back(s.substr(start));
    return parts;
}

// "bcast:binomial:64[:BYTES]", "allgather:bruck:64[:BYTES]": one CCS per
// step of the model's schedule of the round (predict.hpp), each member on
// a node of its own (a switch: copies between nodes leave at once), the
// messages the steps start at once.
bool collective_pattern(const std::vector<std::string> &parts, Pattern *out, std::string *why) {
    namespace cm = model;
    const std::string &op = parts[0];
    if (parts.size() < 3 || parts.size() > 5) return *why = op + ": want " + op + ":ALGO:P[:BYTES]", false;
    // knomial and pipeline take their parameter here (knomial:4:64): with
    // it optional, bcast:knomial:16:1M could be K 16 over 1M tasks.
    std::string algo = parts[1];
    size_t next = 2;
    if (algo == "knomial" || algo == "pipeline") {
        if (parts.size() < 4) return *why = op + ": want " + op + ":" + algo + ":PARAMETER:P[:BYTES]", false;
        algo += ":" + parts[next++];
    }
    uint64_t procs = 0, bytes = kDefaultBytes;
    if (next >= parts.size() || !parse_count(parts[next], &procs) || procs < 1 || procs > (1u << 16))
        return *why = op + ": want a task count of 1..65536 after the algorithm", false;
    if (next + 1 < parts.size() && (!parse_count(parts[next + 1], &bytes) || bytes == 0))
        return *why = op + ": '" + parts[next + 1] + "' is not a message size (bytes, e.g. 1M)", false;
    if (next + 2 < parts.size()) return *why = op + ": want " + op + ":ALGO:P[:BYTES]", false;
    cm::Case c;
    c.members = static_cast<uint32_t>(procs);
    c.bytes = bytes;
    if (op == "bcast") {
        const auto b = parse_bcast_algo(algo);
        if (!b) return *why = "bcast: '" + algo + "' is no bcast algorithm (" + bcast_algo_names() + ")", false;
        c.op = cm::Op::kBcast;
        c.algo = static_cast<uint8_t>(b->algo);
        c.radix = b->radix;
    } else {
        const auto g = parse_allgather_algo(algo);
        if (!g)
            return *why = "allgather: '" + algo + "' is no allgather algorithm (" + allgather_algo_names() + ")", false;
        if (const std::string no = allgather_applies(*g, c.members); !no.empty())
            return *why = "allgather: " + no, false;
        if (c.members > cm::kMaxModelledAllgather)
            return *why = "allgather: up to " + std::to_string(cm::kMaxModelledAllgather) + " tasks", false;
        c.op = cm::Op::kAllgather;
        c.algo = static_cast<uint8_t>(*g);
    }
    cm::Topology own_nodes;
    std::string bad;
    cm::parse_topology("switch:" + std::to_string(c.members), &own_nodes, &bad);
    *out = pattern_of_steps(cm::predict(c, cm::builtin_calibration(), &own_nodes).steps, c.members);
    return true;
}

}  // namespace

std::vector<Message> traffic_of(uint32_t tasks, const std::vector<Ccs> &ccs) {
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sum;
    for (const Ccs &c : ccs)
        for (const Message &m : c)
            if (m.src != m.dst && m.src < tasks && m.dst < tasks) sum[{m.src, m.dst}] += m.bytes;
    std::vector<Message> out;
    out.reserve(sum.size());
    for (const auto &[pair, bytes] : sum) out.push_back({pair.first, pair.second, bytes});
    return out;
}

Pattern pattern_of_steps(const std::vector<model::Step> &steps, uint32_t tasks) {
    Pattern p;
    p.tasks = tasks;
    for (const model::Step &s : steps) {
        Ccs ccs;
        for (const model::Message &m : s.msgs) ccs.push_back({m.src, m.dst, m.bytes ? m.bytes : 1});
        if (!ccs.empty()) p.ccs.push_back(std::move(ccs));
    }
    p.traffic = traffic_of(p.tasks, p.ccs);
    return p;
}

bool cg_pattern(uint32_t n, uint64_t bytes, Pattern *out, std::string *why) {
    if (!is_pow2(n) || n < 2) return *why = "cg:" + std::to_string(n) + ": N must be a power of two, at least 2", false;
    const uint32_t k = log2_of(n);
    // NPB: npcols = nprows for an even log2(n), else npcols = 2 * nprows.
    const uint32_t npcols = 1u << ((k + 1) / 2), nprows = n / npcols;
    Pattern p;
    p.tasks = n;
    for (uint32_t span = npcols >> 1; span > 0; span >>= 1) {  // step s = 1..: npcols >> s
        Ccs ccs;
        for (uint32_t t = 0; t < n; ++t) {
            const uint32_t row = t / npcols, col = t % npcols;
            ccs.push_back({t, row * npcols + (col ^ span), bytes});
        }
        p.ccs.push_back(std::move(ccs));
    }
    Ccs transpose;
    for (uint32_t me = 0; me < n; ++me) {
        const uint32_t exch = npcols == nprows ? (me % nprows) * nprows + me / nprows
                                               : 2 * ((me / 2 % nprows) * nprows + me / 2 / nprows) + me % 2;
        if (exch != me) transpose.push_back({me, exch, bytes});
    }
    if (!transpose.empty()) p.ccs.push_back(std::move(transpose));
    p.traffic = traffic_of(p.tasks, p.ccs);
    *out = std::move(p);
    return true;
}

std::string single_port_problem(const Pattern &p) {
    for (size_t t = 0; t < p.ccs.size(); ++t) {
        std::vector<uint8_t> sends(p.tasks, 0), recvs(p.tasks, 0);
        for (const Message &m : p.ccs[t]) {
            if (sends[m.src]++)
                return "CCS " + std::to_string(t) + ": task " + std::to_string(m.src) + " sends twice; use tac3-ports";
            if (recvs[m.dst]++)
                return "CCS " + std::to_string(t) + ": task " + std::to_string(m.dst) +
                       " receives twice; use tac3-ports";
        }
    }
    return "";
}

bool read_words(const std::string &path, const std::function<std::string(int, const std::vector<std::string> &)> &take,
                std::string *why) {
    std::ifstream f(path);
    if (!f) return *why = path + ": cannot be read", false;
    std::string line;
    for (int lineno = 1; std::getline(f, line); ++lineno) {
        if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
        std::istringstream in(line);
        std::vector<std::string> words;
        for (std::string w; in >> w;) words.push_back(w);
        if (words.empty()) continue;
        if (const std::string bad = take(lineno, words); !bad.empty())
            return *why = path + ":" + std::to_string(lineno) + ": " + bad, false;
    }
    return true;
}

bool read_matrix(const std::string &path, Pattern *out, std::string *why) {
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sum;
    uint32_t tasks = 0;
    const bool read = read_words(
        path,
        [&](int, const std::vector<std::string> &w) -> std::string {
            uint64_t src = 0, dst = 0, bytes = 0;
            if (w.size() != 3 || !parse_count(w[0], &src) || !parse_count(w[1], &dst) || !parse_count(w[2], &bytes) ||
                src >= (1u << 24) || dst >= (1u << 24))
                return "want SRC DST BYTES (tasks below 2^24)";
            tasks = std::max<uint32_t>(tasks, static_cast<uint32_t>(std::max(src, dst)) + 1);
            if (src != dst) sum[{static_cast<uint32_t>(src), static_cast<uint32_t>(dst)}] += bytes;
            return "";
        },
        why);
    if (!read) return false;
    if (tasks == 0) return *why = path + ": no pairs", false;
    Pattern p;
    p.tasks = tasks;
    for (const auto &[pair, bytes] : sum) p.traffic.push_back({pair.first, pair.second, bytes});
    *out = std::move(p);
    return true;
}

bool read_ccs(const std::string &path, Pattern *out, std::string *why) {
    Pattern p;
    Ccs cur;
    const bool read = read_words(
        path,
        [&](int, const std::vector<std::string> &w) -> std::string {
            if (w.size() == 1 && w[0] == "--") {
                if (!cur.empty()) p.ccs.push_back(std::move(cur));
                cur.clear();
                return "";
            }
            uint64_t src = 0, dst = 0, bytes = kDefaultBytes;
            if (w.size() < 2 || w.size() > 3 || !parse_count(w[0], &src) || !parse_count(w[1], &dst) ||
                (w.size() == 3 && !parse_count(w[2], &bytes)) || src >= (1u << 24) || dst >= (1u << 24))
                return "want SRC DST [BYTES] or -- (tasks below 2^24)";
            p.tasks = std::max<uint32_t>(p.tasks, static_cast<uint32_t>(std::max(src, dst)) + 1);
            cur.push_back({static_cast<uint32_t>(src), static_cast<uint32_t>(dst), bytes});
            return "";
        },
        why);
    if (!read) return false;
    if (!cur.empty()) p.ccs.push_back(std::move(cur));
    if (p.ccs.empty()) return *why = path + ": no messages", false;
    p.traffic = traffic_of(p.tasks, p.ccs);
    *out = std::move(p);
    return true;
}

std::vector<model::flowsim::Step> flow_steps(const Pattern &p) {
    std::vector<model::flowsim::Step> steps;
    for (const Ccs &c : p.ccs) {
        model::flowsim::Step s;
        for (const Message &m : c) s.push_back({m.src, m.dst, m.bytes});
        steps.push_back(std::move(s));
    }
    return steps;
}

bool parse_pattern(const std::string &spec, Pattern *out, std::string *why) {
    const auto colon = spec.find(':');
    const std::string kind = spec.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (kind == "log") {
        if (rest.empty()) return *why = "log: want log:FILE", false;
        return read_log_pattern(rest, out, why);
    }
    if (kind == "ccs") {
        if (rest.empty()) return *why = "ccs: want ccs:FILE", false;
        return read_ccs(rest, out, why);
    }
    if (kind == "matrix") {
        if (rest.empty()) return *why = "matrix: want matrix:FILE", false;
        return read_matrix(rest, out, why);
    }
    const std::vector<std::string> parts = split(spec, ':');
    if (kind == "cg") {
        uint64_t n = 0, bytes = kDefaultBytes;
        if (parts.size() < 2 || parts.size() > 3 || !parse_count(parts[1], &n) || n > (1u << 24))
            return *why = "cg: want cg:N[:BYTES], N a power of two", false;
        if (parts.size() == 3 && (!parse_count(parts[2], &bytes) || bytes == 0))
            return *why = "cg: '" + parts[2] + "' is not a message size (bytes, e.g. 1M)", false;
        return cg_pattern(static_cast<uint32_t>(n), bytes, out, why);
    }
    if (kind == "bcast" || kind == "allgather") return collective_pattern(parts, out, why);
    return *why =
               "'" + spec + "' is no pattern (cg:N, bcast:ALGO:P, allgather:ALGO:P, log:FILE, ccs:FILE, matrix:FILE)",
           false;
}

}  // namespace acpx::collectives::place
