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
#include <utility>

namespace acpx::collectives::model {
namespace {

// Rounds simulated, and which are averaged: not the first (they start
// from an idle node), nor the last two, where members that are done stop
// taking turns on their cores. Timed on the last 4 of 6, a flat tree on
// 3 members and 2 cores came out 12% under its root's two copies.
constexpr int kRounds = 8;
constexpr int kMeasured = 4;
constexpr int kTail = 2;
constexpr int kTraced = kRounds - kTail - kMeasured;  // the first round timed
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Core {
    std::vector<uint32_t> members;
    size_t cur = 0;         // the member it runs
    double t = 0;           // when that member next looks (kInf: none will before an event)
    size_t idle_looks = 0;  // looks without an action since the last one
    bool waiting = false;   // every member looked in vain: the core waits for an event
    double idle_from = 0;   // ... since then, when member `cur` was due to look
    double last = -1;       // when it last looked
    size_t finished = 0;    // members that ran every round
};

// A copy under way into a receiver that other cores may copy into too
// (SimEntry::converge), with the time it would still take alone.
struct Flight {
    uint32_t entry, core;
    int round;
    double left;
};

// How long flight i takes per second of its work alone while all of
// `flights` run: converge - 1 more for each other one from another core
// into its receiver, concurrent - 1 for each into another receiver.
// Never under a quarter (concurrent < 1 on many cores).
double slowdown(const std::vector<SimEntry> &entries, const std::vector<Flight> &flights, size_t i) {
    const SimEntry &x = entries[flights[i].entry];
    double s = 1;
    for (size_t j = 0; j < flights.size(); ++j) {
        if (j == i || flights[j].core == flights[i].core) continue;
        s += entries[flights[j].entry].dst == x.dst ? x.converge - 1 : x.concurrent - 1;
    }
    return std::max(0.25, s);
}

// Whether the simulation can run the input: members and dependencies in
// range, costs that are numbers (simulate_rounds is +inf otherwise).
bool valid(const SimInput &in) {
    for (size_t e = 0; e < in.entries.size(); ++e) {
        const SimEntry &x = in.entries[e];
        if (x.src >= in.members || x.dst >= in.members || x.src == x.dst || !(x.copy_s >= 0) || !(x.cold_s >= 0) ||
            !(x.converge >= 1) || std::isinf(x.converge) || !(x.concurrent > 0) || std::isinf(x.concurrent) ||
            std::isnan(x.busy_s))
            return false;
        if (x.dep >= 0 && (static_cast<size_t>(x.dep) >= in.entries.size() || in.entries[x.dep].dst != x.src))
            return false;  // its sender never gets that data
    }
    return true;
}

class Sim {
  public:
    // trace: where the events of round kTraced go (trace_round). The
    // lists and cores are set up once; run() resets the rest, so the runs
    // at each switch time (simulate_rounds) reuse what they allocated.
    explicit Sim(const SimInput &in, std::vector<SimEvent> *trace = nullptr)
        : in_(in), n_(in.entries.size()), trace_(trace) {
        out_.resize(in.members);
        incoming_.assign(in.members, 0);
        pos_.resize(n_);
        fed_.resize(n_);
        for (uint32_t e = 0; e < n_; ++e) {
            const SimEntry &x = in.entries[e];
            pos_[e] = static_cast<uint32_t>(out_[x.src].size());
            out_[x.src].push_back(e);
            ++incoming_[x.dst];
            if (x.dep >= 0) fed_[x.dep].push_back(e);
        }
        pending_.resize(static_cast<size_t>(in.members) * kRounds);
        candidates_.resize(in.members);
        parked_.resize(static_cast<size_t>(in.members) * kRounds);
        const unsigned cores = std::max(1u, std::min(in.cores, in.members));
        cores_.resize(cores);
        for (uint32_t m = 0; m < in.members; ++m) cores_[m % cores].members.push_back(m);
        // Copies into different receivers slow each other too: one group.
        shared_ = cores > 1 && std::any_of(in.entries.begin(), in.entries.end(),
                                           [](const SimEntry &x) { return x.concurrent != 1; });
        converging_ = shared_ || (cores > 1 && std::any_of(in.entries.begin(), in.entries.end(),
                                                           [](const SimEntry &x) { return x.converge > 1; }));
        if (converging_) landing_.resize(shared_ ? 1 : in.members), ends_.resize(n_);
        feeds_other_core_.assign(n_, 0);
        for (const SimEntry &f : in.entries)
            if (f.dep >= 0 && f.src % cores != in.entries[f.dep].src % cores) feeds_other_core_[f.dep] = 1;
    }

    // Rounds with a switch time of switch_s, from an idle node.
    // shifted: every core but the first starts on its second member.
    double run(double switch_s, bool shifted) {
        reset(switch_s);
        if (shifted)
            for (size_t i = 1; i < cores_.size(); ++i) cores_[i].cur = 1 % cores_[i].members.size();
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
            if (i % 64 == 63) forget_seen_events();
        }
        for (uint32_t m = 0; m < in_.members; ++m)
            if (round_[m] < kRounds) return kInf;
        if (trace_) finish_trace();
        return (end_[kRounds - 1 - kTail] - end_[kRounds - 1 - kTail - kMeasured]) / kMeasured;
    }

  private:
    void reset(double switch_s) {
        switch_s_ = switch_s;
        const uint32_t members = in_.members;
        round_.assign(members, 0);
        seen_count_.assign(members, 0);
        issued_count_.assign(members, 0);
        for (auto &p : pending_) p.clear();
        for (auto &p : parked_) p.clear();
        for (uint32_t m = 0; m < members; ++m) start_candidates(m);
        started_.assign(static_cast<size_t>(members) * kRounds, kInf);
        for (uint32_t m = 0; m < members; ++m) started_[m * kRounds] = 0;
        arrive_.assign(n_ * kRounds, kInf);
        end_.fill(0);
        for (Core &c : cores_) {  // a fresh clock, the same members
            std::vector<uint32_t> members = std::move(c.members);
            c = Core{};
            c.members = std::move(members);
        }
        for (Landing &l : landing_) l.flights.clear(), l.since = 0;
        events_.clear();
    }

    uint32_t core_of(const Core &c) const { return static_cast<uint32_t>(&c - cores_.data()); }

    // Landings are known once the run is over (a converging copy slows
    // with those that start after it); then time order, from the first.
    void finish_trace() {
        std::vector<SimEvent> &ev = *trace_;
        for (SimEvent &x : ev)
            if (x.entry >= 0) x.lands = arrive_[at(kTraced, static_cast<uint32_t>(x.entry))];
        std::stable_sort(ev.begin(), ev.end(), [](const SimEvent &a, const SimEvent &b) { return a.t < b.t; });
        const double t0 = ev.empty() ? 0 : ev.front().t;
        for (SimEvent &x : ev) x.t -= t0, x.lands = x.entry >= 0 ? x.lands - t0 : 0;
    }

    size_t at(int k, uint32_t e) const { return static_cast<size_t>(k) * n_ + e; }
    std::vector<uint32_t> &pending(uint32_t m, int k) { return pending_[m * kRounds + k]; }
    std::vector<std::pair<uint32_t, uint32_t>> &parked(uint32_t m, int k) { return parked_[m * kRounds + k]; }

    // The entry at `place` of m's out_ may go: kept in list order, as the
    // engine walks the list.
    void add_candidate(uint32_t m, uint32_t place) {
        std::vector<uint32_t> &can_go = candidates_[m];
        can_go.insert(std::lower_bound(can_go.begin(), can_go.end(), place), place);
    }

    // A round starts with the member's entries that forward nothing.
    void start_candidates(uint32_t m) {
        candidates_[m].clear();
        for (uint32_t e : out_[m])
            if (in_.entries[e].dep < 0) candidates_[m].push_back(pos_[e]);
    }
    double started(uint32_t m, int k) const { return started_[m * kRounds + k]; }

    // Member m started round r: entries that waited for that may go. (A
    // core acts only at the earliest clock, so every later look is at or
    // after the time just recorded; their senders are still in the round
    // that parked them, as a round ends only when all its entries went.)
    void unpark(uint32_t m, int r) {
        for (const auto &[sender, place] : parked(m, r)) add_candidate(sender, place);
        parked(m, r).clear();
    }

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

    // Events no core can still be looking for: at or before every core's
    // last look (clocks only move on). A round of a large allgather
    // posts ~P^2 of them, and searching and inserting among them all
    // took most of the simulation's time.
    void forget_seen_events() {
        double oldest = kInf;
        for (const Core &c : cores_)
            if (c.finished < c.members.size()) oldest = std::min(oldest, c.last);
        events_.erase(events_.begin(), std::upper_bound(events_.begin(), events_.end(), oldest));
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
        // Only entries already sent to it can land, and only entries whose
        // data it has can go: a look walks those lists, not the member's
        // every entry (an allgather's member has P - 1 each way, and looks
        // thousands of times a round on a crowded node).
        std::vector<uint32_t> &landing = pending(m, k), &can_go = candidates_[m];
        for (size_t i = 0; i < landing.size();) {
            const uint32_t e = landing[i];
            if (arrive_[at(k, e)] > t) {
                ++i;
                continue;
            }
            landing[i] = landing.back();
            landing.pop_back();
            ++seen_count_[m], moved = true;
            for (uint32_t f : fed_[e]) add_candidate(m, pos_[f]);
        }
        // The first in list order whose receiver is ready goes; the ones
        // before it whose receivers have not started wait out of the way
        // until they do (one started a hair after t, as a core's turns
        // round its clock, stays).
        const std::vector<uint32_t> &out = out_[m];
        for (size_t i = 0; i < can_go.size();) {
            const uint32_t e = out[can_go[i]];
            const SimEntry &x = in_.entries[e];
            if (!ready(x.dst, k, t)) {
                const int r = in_.eager ? k - 1 : k;  // k > 0 here: eager round 0 is always ready
                if (started(x.dst, r) < kInf) {
                    ++i;
                } else {
                    parked(x.dst, r).push_back({m, can_go[i]});
                    can_go.erase(can_go.begin() + static_cast<std::ptrdiff_t>(i));
                }
                continue;
            }
            can_go.erase(can_go.begin() + static_cast<std::ptrdiff_t>(i));
            ++issued_count_[m];
            const double cold = feeds_other_core_[e] ? x.cold_s : 0;
            if (trace_ && k == kTraced) trace_->push_back({t, core_of(c), m, static_cast<int32_t>(e), 0});
            pending(x.dst, k).push_back(e);
            if (converging_) {
                land(shared_ ? 0 : x.dst, {e, core_of(c), k, x.copy_s + cold}, t);
            } else {  // summed in this order: the rounds are sensitive to the last bit at ties
                const double lands = t + x.copy_s + cold;
                c.t = x.busy_s >= 0 && x.busy_s < x.copy_s ? t + x.busy_s : lands;
                arrive_[at(k, e)] = lands;
                post(lands);
            }
            return true;
        }
        if (seen_count_[m] < incoming_[m] || issued_count_[m] < out.size()) return moved;
        if (in_.eager)  // and every receiver started the round
            for (uint32_t e : out)
                if (started(in_.entries[e].dst, k) > t) return moved;
        if (trace_ && k == kTraced) trace_->push_back({t, core_of(c), m, -1, 0});
        seen_count_[m] = issued_count_[m] = 0;
        start_candidates(m);
        end_[k] = std::max(end_[k], t);
        round_[m] = k + 1;
        if (k + 1 < kRounds) {
            started_[m * kRounds + k + 1] = t;
            unpark(m, k + 1);
        } else {
            ++c.finished;
        }
        post(t);
        return true;
    }

    // The flights into one receiver, run on from `since` to t: each
    // goes at its slowdown among those still under way; the ones done
    // by t leave (their ends into *ends, if given).
    void run_on(std::vector<Flight> &flights, double &since, double t, std::vector<double> *ends) const {
        while (!flights.empty()) {
            // Each flight's slowdown among these, once per step: it looks
            // at every other flight.
            slow_.resize(flights.size());
            for (size_t i = 0; i < flights.size(); ++i) slow_[i] = slowdown(in_.entries, flights, i);
            size_t first = 0;
            double dt = kInf;
            for (size_t i = 0; i < flights.size(); ++i) {
                const double need = flights[i].left * slow_[i];
                if (need < dt) dt = need, first = i;
            }
            const bool past_t = since + dt > t;  // none ends by t: run them on to t
            const double step = past_t ? t - since : dt;
            for (size_t i = 0; i < flights.size(); ++i) flights[i].left -= step / slow_[i];
            if (past_t) break;
            since += dt;
            if (ends) (*ends)[flights[first].entry] = since;
            flights.erase(flights.begin() + static_cast<std::ptrdiff_t>(first));
        }
        since = std::max(since, t);
    }

    // A copy starts at t into `dst`: the ones under way there slow down
    // with it. Each one's end is worked out as if no other started
    // before it: its arrival, its core's clock (the copy holds that core
    // till then; every core's clock is at or past t, so nobody has seen
    // those arrivals yet) and an event. One that another start delays
    // later leaves a stale event behind, which costs a look.
    void land(uint32_t dst, const Flight &f, double t) {
        Landing &l = landing_[dst];
        run_on(l.flights, l.since, t, nullptr);
        l.flights.push_back(f);
        ahead_.assign(l.flights.begin(), l.flights.end());  // a copy per start: no allocation
        double since = t;
        run_on(ahead_, since, kInf, &ends_);
        for (const Flight &g : l.flights) {
            const double end = ends_[g.entry];
            arrive_[at(g.round, g.entry)] = end;
            cores_[g.core].t = end;
            post(end);
        }
    }

    void step(Core &c) {
        if (c.waiting && c.members.size() > 1 && switch_s_ > 0) {  // they took turns meanwhile: whose is it now?
            const double turns = std::ceil((c.t - c.idle_from) / switch_s_ - 1e-9);
            c.cur = (c.cur + static_cast<size_t>(turns)) % c.members.size();
            c.t = c.idle_from + turns * switch_s_;
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
        if (c.finished == c.members.size()) {
            c.t = kInf;
            return;
        }
        if (c.members.size() > 1) {  // sched_yield: the next member runs
            c.cur = (c.cur + 1) % c.members.size();
            c.t += switch_s_;
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
    double switch_s_ = 0;  // this run's
    std::vector<SimEvent> *trace_;
    std::vector<std::vector<uint32_t>> out_;  // per member, the entries it sends, in list order
    std::vector<uint32_t> pos_;                // per entry, its place in its sender's out_
    std::vector<std::vector<uint32_t>> fed_;   // per entry, the entries that forward its data
    std::vector<size_t> incoming_;             // per member, the entries it receives
    std::vector<int> round_;
    std::vector<size_t> seen_count_, issued_count_;   // per member, this round
    std::vector<std::vector<uint32_t>> pending_;      // per member and round: sent to it, not yet seen
    std::vector<std::vector<uint32_t>> candidates_;   // per member: out_ places it could send now, ascending
    // per member and round: (sender, out_ place) of entries waiting for it to start that round
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked_;
    std::vector<double> started_, arrive_;
    std::vector<char> feeds_other_core_;  // per entry: a forward of its data runs on another core
    // Copies into the same receiver slow each other (SimEntry::converge).
    struct Landing {
        std::vector<Flight> flights;  // under way at `since`
        double since = 0;
    };
    bool converging_ = false;
    bool shared_ = false;           // every flight in landing_[0] (SimEntry::concurrent)
    std::vector<Landing> landing_;  // per receiver, or the one shared
    mutable std::vector<double> slow_;  // scratch: run_on's slowdowns, per flight
    std::vector<double> ends_;      // scratch: per entry, when its flight ends
    std::vector<Flight> ahead_;     // scratch: the flights of one receiver, run to their ends
    std::array<double, kRounds> end_{};
    std::vector<Core> cores_;
    std::vector<double>::const_iterator after(double t) const {
        return std::upper_bound(events_.begin(), events_.end(), t);
    }

    std::vector<double> events_;  // every event's time, ascending
};

}  // namespace

double simulate_rounds(const SimInput &in) {
    if (!valid(in)) return kInf;
    if (in.members < 2 || in.entries.empty()) return 0;
    // Real switches vary; with one fixed time the members lock into one
    // phase, and a copy a little longer can cost a whole turn more. So
    // the round is the mean over switch times spread around the given one:
    // eight of them, as without the last rounds' smoothing (kTail) four
    // left steps of 4% in a chain's round as a cost grew, too coarse for
    // crowd_costs to solve the calibration's chain back within 1%.
    constexpr double kSpread[] = {0.65, 0.75, 0.85, 0.95, 1.05, 1.15, 1.25, 1.35};
    // And the cores need not take turns in step (out_of_phase). In phase,
    // members 0 and 1 always run at once and recursive doubling's
    // partners always meet: its 4-rank rounds of 1-16 KiB blocks on the
    // 2-core VM were predicted at 0.81-0.87 of their measured time with
    // half the runs in phase, at 0.95-0.96 with every run out of phase
    // (medians of six model checks). All in phase, it read 0.7x the tree
    // where it measured 1.06x.
    double sum = 0;
    Sim sim(in);
    for (double f : kSpread) sum += sim.run(in.switch_s * f, in.out_of_phase);
    return sum / std::size(kSpread);
}

std::vector<SimEvent> trace_round(const SimInput &in) {
    std::vector<SimEvent> events;
    if (!valid(in) || in.members < 2 || in.entries.empty()) return events;
    if (std::isinf(Sim(in, &events).run(in.switch_s, in.out_of_phase))) events.clear();
    return events;
}

}  // namespace acpx::collectives::model
