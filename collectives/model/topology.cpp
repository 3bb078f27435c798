// Topology parsing, routes (dimension order, or a switch's ports) and per-link message counts.
#include "topology.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <unordered_map>

namespace acpx::collectives::model {
namespace {

constexpr const char *kDimNames = "XYZABC";

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

bool parse_uint(const std::string &s, uint64_t *v) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

int dim_index(char c) {
    for (int i = 0; kDimNames[i]; ++i)
        if (c == kDimNames[i] || c == kDimNames[i] + ('a' - 'A')) return i;
    if (c >= '0' && c <= '9') return c - '0';
    return -1;
}

uint64_t link_key(const Link &l) { return (l.node << 8) | (uint64_t{l.dim} << 1) | (l.dir > 0 ? 1 : 0); }

// Walks dimension-order routes with no allocation per message: the
// collision count routes every message of a step twice, and a step of an
// allgather over 1,024 members has hundreds of thousands of them.
class Router {
  public:
    explicit Router(const Topology &t) : t_(t), stride_(t.dims.size(), 1), at_(t.dims.size()), to_(t.dims.size()) {
        for (size_t d = 1; d < t.dims.size(); ++d) stride_[d] = stride_[d - 1] * t.dims[d - 1];
    }

    // f(link) for each link from node a to node b, in order: dimension by
    // dimension in t.order, the shorter way around a ring (ties: +).
    template <typename F>
    void each(uint64_t a, uint64_t b, F &&f) {
        if (t_.switched) {  // up from a's port, down to b's
            if (a != b) f(Link{a, 0, 1}), f(Link{b, 0, -1});
            return;
        }
        coords(a, &at_);
        coords(b, &to_);
        uint64_t node = a;
        for (uint32_t d : t_.order) {
            const int64_t n = t_.dims[d], from = at_[d], dest = to_[d];
            if (from == dest) continue;
            int64_t up = dest - from;  // hops in the + direction without wrapping (may be < 0)
            int dir = up > 0 ? 1 : -1;
            int64_t hops = up > 0 ? up : -up;
            if (t_.wrap[d]) {
                const int64_t plus = ((dest - from) % n + n) % n, minus = n - plus;
                dir = plus <= minus ? 1 : -1;
                hops = plus <= minus ? plus : minus;
            }
            for (int64_t h = 0; h < hops; ++h) {
                f(Link{node, d, dir});
                int64_t next = static_cast<int64_t>(at_[d]) + dir;
                next = next == n ? 0 : next < 0 ? n - 1 : next;
                node = node - uint64_t{at_[d]} * stride_[d] + static_cast<uint64_t>(next) * stride_[d];
                at_[d] = static_cast<uint32_t>(next);
            }
        }
    }

  private:
    void coords(uint64_t node, std::vector<uint32_t> *c) const {
        for (size_t d = 0; d < t_.dims.size(); ++d) {
            (*c)[d] = static_cast<uint32_t>(node % t_.dims[d]);
            node /= t_.dims[d];
        }
    }

    const Topology &t_;
    std::vector<uint64_t> stride_;
    std::vector<uint32_t> at_, to_;
};

// n nodes on a switch: one dimension, so that a node's two ports are its
// links (dim 0, up and down) wherever links are counted.
Topology switch_of(uint32_t n) {
    Topology t;
    t.dims = {n};
    t.wrap = {false};
    t.order = {0};
    t.switched = true;
    return t;
}

bool parse_switch(const std::vector<std::string> &parts, Topology *out, std::string *why) {
    uint64_t n = 0;
    if (parts.size() != 2) return *why = "switch:N takes no options ('" + parts[2] + "')", false;
    if (!parse_uint(parts[1], &n) || n == 0 || n > (uint64_t{1} << 24))
        return *why = "switch:N: '" + parts[1] + "' is not a number of nodes in 1..2^24", false;
    *out = switch_of(static_cast<uint32_t>(n));
    return true;
}

}  // namespace

uint64_t Topology::nodes() const {
    uint64_t n = 1;
    for (uint32_t d : dims) n *= d;
    return n;
}

uint32_t Topology::node_of(uint32_t rank) const {
    if (rank < map.size()) return map[rank];
    return static_cast<uint32_t>(rank % nodes());
}

std::vector<uint32_t> Topology::coords(uint64_t node) const {
    std::vector<uint32_t> c(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
        c[d] = static_cast<uint32_t>(node % dims[d]);
        node /= dims[d];
    }
    return c;
}

std::string Topology::describe() const {
    if (switched) return "switch of " + std::to_string(nodes()) + " nodes";
    const bool all = std::all_of(wrap.begin(), wrap.end(), [](bool w) { return w; });
    const bool none = std::none_of(wrap.begin(), wrap.end(), [](bool w) { return w; });
    std::string s = all ? "torus " : none ? "mesh " : "grid ";
    for (size_t d = 0; d < dims.size(); ++d) s += (d ? "x" : "") + std::to_string(dims[d]);
    if (!all && !none) {
        s += " wrap ";
        for (bool w : wrap) s += w ? '1' : '0';
    }
    s += " order ";
    for (uint32_t d : order) s += d < 6 ? kDimNames[d] : static_cast<char>('0' + d);
    if (ports != 1) s += ports == kAllPorts ? " ports all" : " ports " + std::to_string(ports);
    return s;
}

bool is_no_topology(const std::string &spec) { return spec.empty() || spec == "none"; }

bool parse_topology(const std::string &spec, Topology *out, std::string *why) {
    const auto parts = split(spec, ':');
    if (parts.size() >= 2 && parts[0] == "switch") return parse_switch(parts, out, why);
    if (parts.size() < 2 || (parts[0] != "torus" && parts[0] != "mesh"))
        return *why = "'" + spec +
                      "': want torus:AxBx... or mesh:AxBx... (then :order=..., :wrap=..., :ports=...), switch:N, "
                      "or none",
               false;
    Topology t;
    for (const std::string &d : split(parts[1], 'x')) {
        uint64_t v = 0;
        if (!parse_uint(d, &v) || v == 0 || v > 65536)
            return *why = "'" + parts[1] + "': dimension '" + d + "' is not a size in 1..65536", false;
        t.dims.push_back(static_cast<uint32_t>(v));
    }
    if (t.dims.size() > 10) return *why = "more than 10 dimensions", false;
    if (t.nodes() > (uint64_t{1} << 24)) return *why = "more than 2^24 nodes", false;
    t.wrap.assign(t.dims.size(), parts[0] == "torus");
    for (uint32_t d = 0; d < t.dims.size(); ++d) t.order.push_back(d);
    for (size_t i = 2; i < parts.size(); ++i) {
        const std::string &opt = parts[i];
        if (opt.rfind("order=", 0) == 0) {
            const std::string o = opt.substr(6);
            std::vector<uint32_t> order;
            for (char c : o) {
                const int d = dim_index(c);
                if (d < 0 || d >= static_cast<int>(t.dims.size()) ||
                    std::find(order.begin(), order.end(), static_cast<uint32_t>(d)) != order.end())
                    return *why = "order '" + o + "': '" + std::string(1, c) +
                                  "' is not a dimension of this network or comes twice",
                           false;
                order.push_back(static_cast<uint32_t>(d));
            }
            if (order.size() != t.dims.size())
                return *why = "order '" + o + "' names " + std::to_string(order.size()) + " of " +
                              std::to_string(t.dims.size()) + " dimensions",
                       false;
            t.order = order;
        } else if (opt.rfind("wrap=", 0) == 0) {
            const std::string w = opt.substr(5);
            if (w.size() != t.dims.size() || w.find_first_not_of("01") != std::string::npos)
                return *why = "wrap '" + w + "': one 0 or 1 per dimension", false;
            for (size_t d = 0; d < w.size(); ++d) t.wrap[d] = w[d] == '1';
        } else if (opt.rfind("ports=", 0) == 0) {
            const std::string n = opt.substr(6);
            uint64_t v = 0;
            if (n == "all")
                t.ports = Topology::kAllPorts;
            else if (parse_uint(n, &v) && v >= 1 && v <= 64)
                t.ports = static_cast<uint32_t>(v);
            else
                return *why = "ports '" + n + "': a number in 1..64, or all", false;
        } else {
            return *why = "'" + opt + "' is not order=..., wrap=... or ports=...", false;
        }
    }
    *out = std::move(t);
    return true;
}

bool read_node_map(const std::string &path, Topology *t, std::string *why) {
    std::ifstream f(path);
    if (!f) return *why = path + ": cannot be read", false;
    std::vector<uint32_t> map;
    std::string line;
    for (int lineno = 1; std::getline(f, line); ++lineno) {
        if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
        line.erase(0, line.find_first_not_of(" \t\r"));
        line.erase(line.find_last_not_of(" \t\r") + 1);
        if (line.empty()) continue;
        uint64_t v = 0;
        if (!parse_uint(line, &v) || v >= t->nodes())
            return *why = path + ":" + std::to_string(lineno) + ": '" + line + "' is not a node index below " +
                          std::to_string(t->nodes()),
                   false;
        map.push_back(static_cast<uint32_t>(v));
    }
    t->map = std::move(map);
    return true;
}

Topology switch_of_nodes(const std::vector<uint64_t> &node_id) {
    std::vector<uint32_t> map;
    std::unordered_map<uint64_t, uint32_t> index;
    for (const uint64_t id : node_id)
        map.push_back(index.emplace(id, static_cast<uint32_t>(index.size())).first->second);
    Topology t = switch_of(std::max<uint32_t>(1, static_cast<uint32_t>(index.size())));
    t.map = std::move(map);
    return t;
}

std::vector<Link> route(const Topology &t, uint64_t a, uint64_t b) {
    std::vector<Link> links;
    Router(t).each(a, b, [&](const Link &l) { links.push_back(l); });
    return links;
}

namespace {

// What the messages sharing one port or link put on it.
struct Load {
    uint32_t messages = 0;
    uint64_t bytes = 0;
    Load &operator+=(const Load &o) {
        messages += o.messages;
        bytes += o.bytes;
        return *this;
    }
};
// Each part's largest (the busiest resource by count and by bytes, which
// may be two resources).
Load widest(const Load &a, const Load &b) { return {std::max(a.messages, b.messages), std::max(a.bytes, b.bytes)}; }

// For each message, the widest Load of its source's port, its
// destination's port and the links of its route (bytes: the messages'
// sizes; empty, none counted).
std::vector<Load> busiest_share(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                                const std::vector<uint64_t> &bytes, const std::vector<uint32_t> &node) {
    auto weight = [&](size_t i) { return Load{1, bytes.empty() ? 0 : bytes[i]}; };
    std::vector<Load> c(msgs.size());
    if (t && t->ports == Topology::kAllPorts) {  // no port shared: each message its own
        for (size_t i = 0; i < msgs.size(); ++i) c[i] = weight(i);
    } else {
        std::unordered_map<uint32_t, Load> sends, recvs;
        sends.reserve(msgs.size());
        recvs.reserve(msgs.size());
        for (size_t i = 0; i < msgs.size(); ++i) {
            sends[msgs[i].first] += weight(i);
            recvs[msgs[i].second] += weight(i);
        }
        // With P ports a rank's messages at once go P at a time (Topology::per_port).
        auto per_port = [&](const Load &l) {
            return !t ? l : Load{static_cast<uint32_t>(t->per_port(l.messages)), t->per_port(l.bytes)};
        };
        for (size_t i = 0; i < msgs.size(); ++i)
            c[i] = widest(per_port(sends[msgs[i].first]), per_port(recvs[msgs[i].second]));
    }
    if (!t) return c;
    // Routed twice rather than kept: a step of an allgather tree over
    // 1,024 members has 500,000 messages, whose routes took 80 MB.
    // Load per link: in an array of every link where the step has
    // messages enough to touch a good part of them (an allgather's), else
    // in a map (a pipeline's step: a few messages on a large network).
    Router r(*t);
    const uint64_t links = t->nodes() * t->dims.size() * 2;
    if (links <= 8 * msgs.size()) {
        std::vector<Load> load(links);
        auto slot = [&](const Link &l) { return (l.node * t->dims.size() + l.dim) * 2 + (l.dir > 0); };
        for (size_t i = 0; i < msgs.size(); ++i)
            r.each(node[i * 2], node[i * 2 + 1], [&](const Link &l) { load[slot(l)] += weight(i); });
        for (size_t i = 0; i < msgs.size(); ++i)
            r.each(node[i * 2], node[i * 2 + 1], [&](const Link &l) { c[i] = widest(c[i], load[slot(l)]); });
        return c;
    }
    std::unordered_map<uint64_t, Load> load;
    load.reserve(msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i)
        r.each(node[i * 2], node[i * 2 + 1], [&](const Link &l) { load[link_key(l)] += weight(i); });
    for (size_t i = 0; i < msgs.size(); ++i)
        r.each(node[i * 2], node[i * 2 + 1],
               [&](const Link &l) { c[i] = widest(c[i], load.find(link_key(l))->second); });
    return c;
}

}  // namespace

StepShares step_shares(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                       const std::vector<uint64_t> &bytes, unsigned cores) {
    // Each message's source and destination node, looked up once.
    const uint64_t nodes = t ? t->nodes() : 1;
    auto node_of = [&](uint32_t rank) {
        return !t ? 0u : rank < t->map.size() ? t->map[rank] : static_cast<uint32_t>(rank % nodes);
    };
    std::vector<uint32_t> node(msgs.size() * 2);
    std::unordered_map<uint32_t, uint32_t> on_node;
    for (size_t i = 0; i < msgs.size(); ++i) {
        node[i * 2] = node_of(msgs[i].first);
        node[i * 2 + 1] = node_of(msgs[i].second);
        if (node[i * 2] == node[i * 2 + 1]) ++on_node[node[i * 2]];
    }
    const std::vector<Load> loads = busiest_share(t, msgs, bytes, node);
    StepShares s;
    s.collisions.resize(msgs.size());
    s.on_node.assign(msgs.size(), 0);
    if (!bytes.empty()) s.bytes.resize(msgs.size());
    for (size_t i = 0; i < msgs.size(); ++i) {
        s.collisions[i] = loads[i].messages;
        if (!bytes.empty()) s.bytes[i] = loads[i].bytes;
        if (node[i * 2] != node[i * 2 + 1]) continue;
        const uint32_t m = on_node[node[i * 2]];
        if (cores) s.collisions[i] = std::max(s.collisions[i], (m + cores - 1) / cores);
        s.on_node[i] = m;
    }
    return s;
}

std::vector<uint32_t> collisions(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                                 unsigned cores, std::vector<uint32_t> *on_node_copies) {
    StepShares s = step_shares(t, msgs, {}, cores);
    if (on_node_copies) *on_node_copies = std::move(s.on_node);
    return std::move(s.collisions);
}

std::vector<uint64_t> shared_bytes(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                                   const std::vector<uint64_t> &bytes) {
    return step_shares(t, msgs, bytes, 0).bytes;
}

}  // namespace acpx::collectives::model
