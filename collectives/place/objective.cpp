#include "objective.hpp"

#include <algorithm>

namespace acpx::collectives::place {
namespace {

// Routes kept in a dense table up to this many nodes (512^2 routes), in
// a hash map above.
constexpr uint64_t kDenseRouteNodes = 512;
// Routes kept on a larger network before the cache starts over: a search
// visits the pairs its placements make, a few per move.
constexpr size_t kSparseRoutes = size_t{1} << 20;

}  // namespace

Evaluator::Evaluator(const model::Topology &t, const Pattern &p, double bandwidth)
    : t_(t), p_(p), bandwidth_(bandwidth), nodes_(t.nodes()) {
    t_.map.clear();
    sends_.assign(p.tasks, 0);
    recvs_.assign(p.tasks, 0);
    const uint64_t links = nodes_ * t_.dims.size() * 2;
    load_.assign(links, 0);
    link_bytes_.assign(links, 0);
    if (nodes_ <= kDenseRouteNodes) {
        routes_.resize(nodes_ * nodes_);
        routed_.assign(nodes_ * nodes_, 0);
    }
    // eq. (2) is at most every byte over the longest route, which crosses
    // no more links than the sizes of the dimensions add up to (a switch:
    // 2); the tie-break stays under half of the smallest message's M / B.
    double hops = t_.switched ? 2 : 0, bytes = 0;
    if (!t_.switched)
        for (const uint32_t d : t_.dims) hops += d;
    for (const Message &m : p_.traffic) bytes += static_cast<double>(m.bytes);
    uint64_t smallest = 0;
    for (const Ccs &c : p_.ccs)
        for (const Message &m : c)
            if (m.bytes && (!smallest || m.bytes < smallest)) smallest = m.bytes;
    if (smallest && bytes > 0) tie_scale_ = static_cast<double>(smallest) / bandwidth_ / 2 / (bytes * hops + 1);
}

const std::vector<uint32_t> &Evaluator::route(uint32_t a, uint32_t b) {
    const uint64_t key = uint64_t{a} * nodes_ + b;
    auto fill = [&](std::vector<uint32_t> &r) {
        for (const model::Link &l : model::route(t_, a, b))
            r.push_back(static_cast<uint32_t>((l.node * t_.dims.size() + l.dim) * 2 + (l.dir > 0)));
    };
    if (nodes_ <= kDenseRouteNodes) {
        if (!routed_[key]) fill(routes_[key]), routed_[key] = 1;
        return routes_[key];
    }
    if (auto it = sparse_.find(key); it != sparse_.end()) return it->second;
    if (sparse_.size() >= kSparseRoutes) sparse_.clear();  // no caller holds a route across calls
    std::vector<uint32_t> &r = sparse_[key];
    fill(r);
    return r;
}

uint64_t Evaluator::ccs_cost(size_t c, const std::vector<uint32_t> &pi, bool ports, uint32_t *coll_out) {
    const Ccs &ccs = p_.ccs[c];
    for (const Message &m : ccs) {
        for (uint32_t l : route(pi[m.src], pi[m.dst])) ++load_[l];
        if (ports) ++sends_[m.src], ++recvs_[m.dst];
    }
    uint64_t slowest = 0;
    uint32_t here = 1;
    for (const Message &m : ccs) {
        uint32_t coll = ports ? port_share(std::max(sends_[m.src], recvs_[m.dst])) : 1;
        for (uint32_t l : route(pi[m.src], pi[m.dst])) coll = std::max(coll, load_[l]);
        here = std::max(here, coll);
        slowest = std::max(slowest, m.bytes * coll);
    }
    for (const Message &m : ccs) {
        for (uint32_t l : route(pi[m.src], pi[m.dst])) load_[l] = 0;
        if (ports) sends_[m.src] = recvs_[m.dst] = 0;
    }
    if (coll_out) *coll_out = here;
    return slowest;
}

// Summed as integers (bytes x coll), divided by B once: a search that
// updates the sum move by move (place/moves.hpp) gets the same figure.
double Evaluator::eq1_of(const std::vector<uint32_t> &pi, bool ports, uint32_t *max_coll,
                         std::vector<uint32_t> *per_ccs) {
    unsigned __int128 total = 0;
    uint32_t most = 1;
    for (size_t c = 0; c < p_.ccs.size(); ++c) {
        uint32_t here = 1;
        total += ccs_cost(c, pi, ports, &here);
        most = std::max(most, here);
        if (per_ccs) per_ccs->push_back(here);
    }
    if (max_coll) *max_coll = most;
    return static_cast<double>(total) / bandwidth_;
}

double Evaluator::eq1(const std::vector<uint32_t> &pi) { return eq1_of(pi, false, nullptr); }

std::vector<uint32_t> Evaluator::coll_per_ccs(const std::vector<uint32_t> &pi) {
    std::vector<uint32_t> per;
    eq1_of(pi, false, nullptr, &per);
    return per;
}

// model::collisions() with its ports (a task's sends and receives in the
// CCS) and no core limit, counted in the evaluator's arrays: collisions()
// builds hash maps on every call, 20x the cost of a move of the search
// (place_test holds the two equal).
double Evaluator::eq1_ports(const std::vector<uint32_t> &pi) { return eq1_of(pi, true, nullptr); }

double Evaluator::with_tiebreak(const std::vector<uint32_t> &pi, bool ports) {
    return (ports ? eq1_ports(pi) : eq1(pi)) + (tie_scale_ > 0 ? tie_scale_ * eq2(pi) : 0);
}

double Evaluator::eq2(const std::vector<uint32_t> &pi) {
    unsigned __int128 total = 0;  // exact, as place/moves.hpp updates it
    for (const Message &m : p_.traffic) total += route(pi[m.src], pi[m.dst]).size() * m.bytes;
    return static_cast<double>(total);
}

double Evaluator::eq3(const std::vector<uint32_t> &pi) {
    double hop_bytes = 0;
    uint64_t max_link = 0;
    for (const Message &m : p_.traffic) {
        const std::vector<uint32_t> &r = route(pi[m.src], pi[m.dst]);
        hop_bytes += static_cast<double>(r.size()) * static_cast<double>(m.bytes);
        for (uint32_t l : r) max_link = std::max(max_link, link_bytes_[l] += m.bytes);
    }
    for (const Message &m : p_.traffic)
        for (uint32_t l : route(pi[m.src], pi[m.dst])) link_bytes_[l] = 0;
    return hop_bytes * static_cast<double>(max_link);
}

Scores Evaluator::all(const std::vector<uint32_t> &pi) {
    Scores s;
    s.eq1 = p_.ccs.empty() ? 0 : eq1_of(pi, false, &s.max_coll);
    s.eq2 = eq2(pi);
    s.eq3 = eq3(pi);
    return s;
}

}  // namespace acpx::collectives::place
