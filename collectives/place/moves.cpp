#include "moves.hpp"

#include <algorithm>
#include <iterator>

namespace acpx::collectives::place {
namespace {

// Links x CCS kept as per-CCS load arrays at most (4 bytes each): above,
// every CCS is priced anew when a move touches it.
constexpr uint64_t kMaxLoadEntries = uint64_t{1} << 26;

}  // namespace

Eq1Moves::Eq1Moves(Evaluator &ev, bool ports, bool tiebreak) : ev_(ev), ports_(ports), tiebreak_(tiebreak) {
    const Pattern &p = ev.pattern();
    const bool keep_loads = uint64_t{p.ccs.size()} * ev.links() <= kMaxLoadEntries;
    ccs_.resize(p.ccs.size());
    refs_.resize(p.tasks);
    std::vector<uint32_t> sends(p.tasks, 0), recvs(p.tasks, 0);
    for (uint32_t c = 0; c < p.ccs.size(); ++c) {
        PerCcs &s = ccs_[c];
        const Ccs &msgs = p.ccs[c];
        s.uniform = keep_loads;
        for (const Message &m : msgs) {
            if (m.bytes != msgs.front().bytes) s.uniform = false;
            if (ports) ++sends[m.src], ++recvs[m.dst];
        }
        for (const Message &m : msgs) {
            if (ports) s.port_coll = std::max(s.port_coll, ev.port_share(std::max(sends[m.src], recvs[m.dst])));
            sends[m.src] = recvs[m.dst] = 0;
        }
        if (!msgs.empty()) s.bytes = msgs.front().bytes;
        if (s.uniform) {
            s.load.assign(ev.links(), 0);
            s.links_at.assign(msgs.size() + 2, 0);
        }
        for (uint32_t i = 0; i < msgs.size(); ++i) {
            refs_[msgs[i].src].push_back({c, i});
            if (msgs[i].dst != msgs[i].src) refs_[msgs[i].dst].push_back({c, i});
        }
    }
    if (tiebreak)
        for (uint32_t i = 0; i < p.traffic.size(); ++i) {
            refs_[p.traffic[i].src].push_back({kTraffic, i});
            if (p.traffic[i].dst != p.traffic[i].src) refs_[p.traffic[i].dst].push_back({kTraffic, i});
        }
    for (auto &r : refs_) std::sort(r.begin(), r.end());
}

double Eq1Moves::total() const {
    const double tie = ev_.tiebreak_scale();
    return static_cast<double>(eq1_) / ev_.bandwidth() + (tiebreak_ && tie > 0 ? tie * static_cast<double>(eq2_) : 0);
}

void Eq1Moves::add_route(PerCcs &s, uint32_t from, uint32_t to, int sign) {
    for (const uint32_t l : ev_.route(from, to)) {
        uint32_t &v = s.load[l];
        if (v) --s.links_at[v];
        v = sign > 0 ? v + 1 : v - 1;
        if (v) ++s.links_at[v];
        s.top = std::max(s.top, v);
    }
    while (s.top > 0 && s.links_at[s.top] == 0) --s.top;
}

// A CCS with messages: its one size x its largest coll.
uint64_t Eq1Moves::recount(const PerCcs &s) const { return s.bytes * std::max({uint32_t{1}, s.port_coll, s.top}); }

double Eq1Moves::reset(const std::vector<uint32_t> &map) {
    const Pattern &p = ev_.pattern();
    now_ = prop_ = map;
    pending_ = false;
    eq1_ = eq2_ = 0;
    for (uint32_t c = 0; c < p.ccs.size(); ++c) {
        PerCcs &s = ccs_[c];
        if (s.uniform) {
            std::fill(s.load.begin(), s.load.end(), 0);
            std::fill(s.links_at.begin(), s.links_at.end(), 0);
            s.top = 0;
            for (const Message &m : p.ccs[c]) add_route(s, map[m.src], map[m.dst], +1);
            s.cost = p.ccs[c].empty() ? 0 : recount(s);
        } else {
            s.cost = ev_.ccs_cost(c, map, ports_);
        }
        eq1_ += s.cost;
    }
    if (tiebreak_)
        for (const Message &m : p.traffic) eq2_ += ev_.route(map[m.src], map[m.dst]).size() * m.bytes;
    return total();
}

// Moves the touched messages' routes from placement `from` to `to` in
// the loads of their CCS, and their byte-hops.
void Eq1Moves::apply(const std::vector<uint32_t> &from, const std::vector<uint32_t> &to) {
    const Pattern &p = ev_.pattern();
    for (const Ref &r : touched_) {
        if (r.c == kTraffic) {
            const Message &m = p.traffic[r.i];
            eq2_ -= ev_.route(from[m.src], from[m.dst]).size() * m.bytes;
            eq2_ += ev_.route(to[m.src], to[m.dst]).size() * m.bytes;
            continue;
        }
        PerCcs &s = ccs_[r.c];
        if (!s.uniform) continue;
        const Message &m = p.ccs[r.c][r.i];
        add_route(s, from[m.src], from[m.dst], -1);
        add_route(s, to[m.src], to[m.dst], +1);
    }
}

double Eq1Moves::propose(const std::vector<uint32_t> &map, uint32_t a, uint32_t b) {
    if (pending_) {  // the last proposal was not taken: back to the current placement
        apply(prop_, now_);
        for (const auto &[c, cost] : old_cost_) ccs_[c].cost = cost;
        eq1_ = old_eq1_;
        eq2_ = old_eq2_;
        drop_proposal();
    }
    touched_.clear();
    if (b == kNoTask)
        touched_ = refs_[a];
    else
        std::merge(refs_[a].begin(), refs_[a].end(), refs_[b].begin(), refs_[b].end(), std::back_inserter(touched_));
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());  // a message between a and b
    old_eq1_ = eq1_;
    old_eq2_ = eq2_;
    moved_a_ = a, moved_b_ = b;
    prop_[a] = map[a];
    if (b != kNoTask) prop_[b] = map[b];
    apply(now_, prop_);
    old_cost_.clear();
    for (size_t k = 0; k < touched_.size(); ++k) {
        const uint32_t c = touched_[k].c;
        if (c == kTraffic || (k > 0 && touched_[k - 1].c == c)) continue;  // each CCS once (sorted by CCS)
        PerCcs &s = ccs_[c];
        old_cost_.push_back({c, s.cost});
        eq1_ -= s.cost;
        s.cost = s.uniform ? recount(s) : ev_.ccs_cost(c, prop_, ports_);
        eq1_ += s.cost;
    }
    pending_ = true;
    return total();
}

void Eq1Moves::commit() {
    if (!pending_) return;
    pending_ = false;
    now_[moved_a_] = prop_[moved_a_];
    if (moved_b_ != kNoTask) now_[moved_b_] = prop_[moved_b_];
}

// prop_ is now_ again (it differed only in the moved tasks).
void Eq1Moves::drop_proposal() {
    prop_[moved_a_] = now_[moved_a_];
    if (moved_b_ != kNoTask) prop_[moved_b_] = now_[moved_b_];
}

}  // namespace acpx::collectives::place
