// The event-by-event simulation of rounds on a crowded node (see the
// header). Cores advance in time order: the core whose clock is earliest
// runs its current member for one action (see an arrival, make a copy,
// end a round), so every event another core can see has happened by then.
#include "crowded_sim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>

namespace acpx::collectives::model {
namespace {

// Rounds simulated, and which are averaged: not the first (they start
// from an idle node), nor the last two, where members that are done stop
// taking turns on their cores. Timed on the last 4 of 6, a flat tree on
// 3 members and 2 cores came out 12% under its root's two copies.
constexpr int kRounds = 8;
constexpr int kMeasured = 4;
constexpr int kTail = 2;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Core {
    std::vector<uint32_t> members;
    size_t cur = 0;         // the member it runs
    double t = 0;           // when that member next looks (kInf: none will before an event)
    size_t idle_looks = 0;  // looks without an action since the last one
    bool waiting = false;   // every member looked in vain: the core waits for an event
    double idle_from = 0;   // ... since then, when member `cur` was due to look
    double last = -1;       // when it last looked
};

class Sim {
  public:
    explicit Sim(const SimInput &in) : in_(in), n_(in.entries.size()) {
        out_.resize(in.members);
        inc_.resize(in.members);
        for (uint32_t e = 0; e < n_; ++e) {
            out_[in.entries[e].src].push_back(e);
            inc_[in.entries[e].dst].push_back(e);
        }
        round_.assign(in.members, 0);
        in_done_.assign(in.members, 0);
        out_done_.assign(in.members, 0);
        started_.assign(static_cast<size_t>(in.members) * kRounds, kInf);
        for (uint32_t m = 0; m < in.members; ++m) started_[m * kRounds] = 0;
        arrive_.assign(n_ * kRounds, kInf);
        seen_.assign(n_ * kRounds, 0);
        issued_.assign(n_ * kRounds, 0);
        end_.fill(0);
        const unsigned cores = std::max(1u, std::min(in.cores, in.members));
        cores_.resize(cores);
        for (uint32_t m = 0; m < in.members; ++m) cores_[m % cores].members.push_back(m);
        feeds_other_core_.assign(n_, 0);
        for (const SimEntry &f : in.entries)
            if (f.dep >= 0 && f.src % cores != in.entries[f.dep].src % cores) feeds_other_core_[f.dep] = 1;
    }

    double run() {
        // Every action sees an arrival, makes a copy or ends a round, and
        // between two a core looks in vain at most once per member per
        // event: a generous cap only trips on lists that cannot complete.
        const size_t cap = (n_ + in_.members) * kRounds * (in_.members + 2) * 8 + 1000;
        for (size_t i = 0; i < cap; ++i) {
            Core *next = nullptr;
            for (Core &c : cores_)
                if (c.t < kInf && (!next || c.t < next->t)) next = &c;
            if (!next) break;  // everyone done, or stuck
            step(*next);
        }
        for (uint32_t m = 0; m < in_.members; ++m)
            if (round_[m] < kRounds) return kInf;
        return (end_[kRounds - 1 - kTail] - end_[kRounds - 1 - kTail - kMeasured]) / kMeasured;
    }

  private:
    size_t at(int k, uint32_t e) const { return static_cast<size_t>(k) * n_ + e; }
    double started(uint32_t m, int k) const { return started_[m * kRounds + k]; }

    // An event at time `when` (data landed, a member ready). A waiting
    // core looks again then; one whose clock already passed it may have
    // something to do at its next look.
    void post(double when) {
        // Sorted and unique; most events come after the ones posted so far.
        const auto at = std::lower_bound(events_.begin(), events_.end(), when);
        if (at == events_.end() || *at != when) events_.insert(at, when);
        for (Core &c : cores_) {
            if (c.waiting) c.t = std::min(c.t, std::max(c.idle_from, when));
            else if (when <= c.t) c.idle_looks = 0;
        }
    }

    bool ready(uint32_t dst, int k, double t) const {
        return started(dst, k) <= t || (in_.eager && (k == 0 || started(dst, k - 1) <= t));
    }

    // One action of the core's member at its clock; false if it had none.
    bool act(Core &c) {
        const uint32_t m = c.members[c.cur];
        const int k = round_[m];
        if (k >= kRounds) return false;
        const double t = c.t;
        bool moved = false;
        // Entries before in_done_/out_done_ are seen/issued this round:
        // a pipeline's member has dozens, and every look would scan them.
        const std::vector<uint32_t> &inc = inc_[m], &out = out_[m];
        for (size_t i = in_done_[m]; i < inc.size(); ++i)
            if (!seen_[at(k, inc[i])] && arrive_[at(k, inc[i])] <= t) seen_[at(k, inc[i])] = 1, moved = true;
        while (in_done_[m] < inc.size() && seen_[at(k, inc[in_done_[m]])]) ++in_done_[m];
        for (size_t i = out_done_[m]; i < out.size(); ++i) {
            const uint32_t e = out[i];
            const SimEntry &x = in_.entries[e];
            if (issued_[at(k, e)] || !ready(x.dst, k, t) || (x.dep >= 0 && !seen_[at(k, x.dep)])) continue;
            issued_[at(k, e)] = 1;
            while (out_done_[m] < out.size() && issued_[at(k, out[out_done_[m]])]) ++out_done_[m];
            c.t = t + x.copy_s + (feeds_other_core_[e] ? x.cold_s : 0);
            arrive_[at(k, e)] = c.t;
            post(c.t);
            return true;
        }
        if (in_done_[m] < inc.size() || out_done_[m] < out.size()) return moved;
        if (in_.eager)  // and every receiver started the round
            for (uint32_t e : out)
                if (started(in_.entries[e].dst, k) > t) return moved;
        in_done_[m] = out_done_[m] = 0;
        end_[k] = std::max(end_[k], t);
        round_[m] = k + 1;
        if (k + 1 < kRounds) started_[m * kRounds + k + 1] = t;
        post(t);
        return true;
    }

    void step(Core &c) {
        if (c.waiting && c.members.size() > 1 && in_.switch_s > 0) {  // they took turns meanwhile: whose is it now?
            const double turns = std::ceil((c.t - c.idle_from) / in_.switch_s - 1e-9);
            c.cur = (c.cur + static_cast<size_t>(turns)) % c.members.size();
            c.t = c.idle_from + turns * in_.switch_s;
        }
        if (c.waiting) c.idle_looks = 0;  // woken by an event
        c.waiting = false;
        // An event since its last look: every member may have news.
        if (const auto e = after(c.last); e != events_.end() && *e <= c.t) c.idle_looks = 0;
        c.last = c.t;
        if (act(c)) {
            c.idle_looks = 0;
            return;
        }
        if (std::all_of(c.members.begin(), c.members.end(), [&](uint32_t m) { return round_[m] >= kRounds; })) {
            c.t = kInf;
            return;
        }
        if (c.members.size() > 1) {  // sched_yield: the next member runs
            c.cur = (c.cur + 1) % c.members.size();
            c.t += in_.switch_s;
        }
        // Nothing changes before the next event: skip to it. A lone
        // member polls, so it sees the event at once; members sharing a
        // core keep taking turns, and the one due then sees it.
        if (++c.idle_looks >= c.members.size()) {
            c.waiting = true;
            c.idle_from = c.t;
            const auto e = after(c.last);  // one already posted, still ahead
            c.t = e == events_.end() ? kInf : std::max(c.t, *e);
        }
    }

    const SimInput &in_;
    const size_t n_;
    std::vector<std::vector<uint32_t>> out_, inc_;
    std::vector<int> round_;
    std::vector<size_t> in_done_, out_done_;  // per member, this round
    std::vector<double> started_, arrive_;
    std::vector<char> seen_, issued_;
    std::vector<char> feeds_other_core_;  // per entry: a forward of its data runs on another core
    std::array<double, kRounds> end_{};
    std::vector<Core> cores_;
    std::vector<double>::const_iterator after(double t) const {
        return std::upper_bound(events_.begin(), events_.end(), t);
    }

    std::vector<double> events_;  // every event's time, ascending
};

}  // namespace

double simulate_rounds(const SimInput &in) {
    for (size_t e = 0; e < in.entries.size(); ++e) {
        const SimEntry &x = in.entries[e];
        if (x.src >= in.members || x.dst >= in.members || x.src == x.dst || !(x.copy_s >= 0) || !(x.cold_s >= 0))
            return kInf;
        if (x.dep >= 0 && (static_cast<size_t>(x.dep) >= in.entries.size() || in.entries[x.dep].dst != x.src))
            return kInf;  // its sender never gets that data
    }
    if (in.members < 2 || in.entries.empty()) return 0;
    // Real switches vary; with one fixed time the members lock into one
    // phase, and a copy a little longer can cost a whole turn more. So
    // the round is the mean over switch times spread around the given one:
    // eight of them, as without the last rounds' smoothing (kTail) four
    // left steps of 4% in a chain's round as a cost grew, too coarse for
    // crowd_costs to solve the calibration's chain back within 1%.
    constexpr double kSpread[] = {0.65, 0.75, 0.85, 0.95, 1.05, 1.15, 1.25, 1.35};
    double sum = 0;
    for (double f : kSpread) {
        SimInput v = in;
        v.switch_s = in.switch_s * f;
        sum += Sim(v).run();
    }
    return sum / std::size(kSpread);
}

}  // namespace acpx::collectives::model
