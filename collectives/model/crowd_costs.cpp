// The CrowdCosts of a size, solved from the calibration's crowded rounds
// (crowd_costs.hpp), and the cache that keeps them.
#include "crowd_costs.hpp"

#include "crowded_round.hpp"
#include "solve.hpp"

#include <algorithm>
#include <cmath>

namespace acpx::collectives::model {
namespace {

// The range CrowdCosts::concurrent is solved in.
constexpr double kConcurrentLo = 0.5, kConcurrentHi = 4;

// A round of bcast a (radix) over crowd_ranks members, of `bytes`, with
// the costs k: what calibrate measured on the crowded node (a chain, a
// flat tree knomial:N, a pipeline).
double sample_round(const Calibration &cal, BcastAlgo a, unsigned radix, double bytes, bool is_inline,
                    const CrowdCosts &k) {
    Case c;
    c.op = Op::kBcast;
    c.algo = static_cast<uint8_t>(a);
    c.radix = radix;
    c.members = cal.crowd_ranks;
    c.bytes = static_cast<uint64_t>(bytes);
    return simulate_rounds(sim_input(c, cal, is_inline, k));
}

// A round of allgather a over crowd_ranks members, of blocks of `bytes`,
// with the costs k: what calibrate measured (Bruck: comm_crowd_gather,
// ring: comm_crowd_ring).
double sample_gather(const Calibration &cal, AllgatherAlgo a, double bytes, const CrowdCosts &k,
                     bool is_inline = false) {
    Case c;
    c.op = Op::kAllgather;
    c.algo = static_cast<uint8_t>(a);
    c.members = cal.crowd_ranks;
    c.bytes = static_cast<uint64_t>(bytes);
    return simulate_rounds(sim_input(c, cal, is_inline, k));
}

}  // namespace

// Whether cal measured a crowded node (comm_crowded over more ranks than
// its cores).
bool has_crowd(const Calibration &cal) {
    return !cal.comm_crowded.empty() && cal.crowd_core_count() > 0 && cal.crowd_ranks > cal.crowd_core_count();
}

namespace {

// The 1 KiB inline round the switch is solved on.
constexpr double kSwitchBytes = 1024;

// The switch between members on a core: what makes a 1 KiB chain over
// crowd_ranks members take its calibrated time (the same for every
// size), with inline copies holding their cores for `busy` of them.
double switch_time(const Calibration &cal, double busy) {
    const double small = (cal.crowd_ranks - 1) * cal.comm_crowded.at(kSwitchBytes);
    CrowdCosts k;
    k.busy = busy;
    auto chain = [&](double w) {
        k.switch_s = w;
        return sample_round(cal, BcastAlgo::kChain, 2, kSwitchBytes, true, k);
    };
    return solve(chain, small, 0, small);
}

// CrowdCosts::busy for inline copies of `bytes`: what makes a flat tree
// of that size take its calibrated time with switch_s (1 without
// comm_fanout, or where even whole copies are not enough).
double busy_at(const Calibration &cal, double bytes, double switch_s) {
    if (cal.comm_fanout.empty()) return 1;
    const double fan = (cal.crowd_ranks - 1) * cal.comm_fanout.at(bytes);
    CrowdCosts k;
    k.switch_s = switch_s;
    auto flat = [&](double b) {
        k.busy = b;
        return sample_round(cal, BcastAlgo::kKnomial, cal.crowd_ranks, bytes, true, k);
    };
    return flat(1) <= fan ? 1 : solve(flat, fan, 0, 1);
}

CrowdCosts copy_costs(const Calibration &cal, double bytes, bool is_inline, double switch_s);

// The switch for inline rounds: the chain's, with copies that do not
// hold their cores at all, where the flat tree then needs them to hold
// their cores for less than whole copies. That is what solving the
// switch and the busy share at 1 KiB together tends to (on the 2-core
// VM's calibrations, at once on 3 ranks; on 4, from 0.38 down to 0.08
// over four passes, not settled): a 1 KiB store is short next to the
// hand-off around it. Otherwise (a flat tree slower than whole copies
// make it, as the VM measured while waits polled first): switch_s, the
// whole copies' switch.
//
// Where the ring was measured through the slots, it has a say too: a
// cost across cores only adds to its round, so a switch under which the
// ring, priced without one, is already over 10% slower than measured
// cannot price it, and the whole copies' switch is taken if it can. On
// the 2-core VM (4 ranks) that was 12 of 44 stored calibrations: stores
// that held no core put the switch at 2.3-3.5 us, and the simulated 1 KiB
// ring took 4.5 turns (10.4-15.6 us) where it measured 7.2-8.5. In 10 of
// them whole copies' switch (2.0-2.5 us) made it 6.4-8.3.
double inline_switch_time(const Calibration &cal, double switch_s) {
    if (cal.comm_fanout.empty()) return switch_s;
    const double bare = switch_time(cal, 0);
    if (!ring_prices_inline(cal, kSwitchBytes)) return busy_at(cal, kSwitchBytes, bare) < 1 ? bare : switch_s;
    const CrowdCosts stores = copy_costs(cal, kSwitchBytes, true, bare);  // its busy share solved once
    if (!(stores.busy < 1)) return switch_s;
    const double ring = (cal.crowd_ranks - 1) * cal.comm_crowd_ring.at(kSwitchBytes);
    const auto priced = [&](const CrowdCosts &k) {
        return sample_gather(cal, AllgatherAlgo::kRing, kSwitchBytes, k, true);
    };
    constexpr double kOver = 1.1;
    return priced(stores) > kOver * ring && priced(copy_costs(cal, kSwitchBytes, true, switch_s)) <= kOver * ring
               ? switch_s
               : bare;
}

// CrowdCosts::slow for copies of `bytes` through process_vm_writev: what
// makes a flat tree of that size take its calibrated time (1 without
// comm_fanout). It may come out under 1: the 2-member copies are
// measured in a launch of their own, the crowded curves together in
// another, and the crowd's copies are priced by the crowd's rounds. Not
// where even the cheapest copies leave the round slower than measured:
// there the switches make it, and the copies stay at 1 (a quick 4-rank
// calibration of the 2-core VM solved its 0-byte round to 0.25, the
// range's end).
constexpr double kSlowLo = 0.25, kSlowHi = 8;
double slow_at(const Calibration &cal, double bytes, double switch_s) {
    if (cal.comm_fanout.empty()) return 1;
    const double fan = (cal.crowd_ranks - 1) * cal.fanout(false).at(bytes);
    auto flat = [&](double s) {
        return sample_round(cal, BcastAlgo::kKnomial, cal.crowd_ranks, bytes, false, {switch_s, s, 0});
    };
    const double cheapest = flat(kSlowLo);
    return cheapest < fan ? solve(flat, fan, kSlowLo, kSlowHi, cheapest) : 1;
}

// CrowdCosts::forward_s for copies of `bytes` with the rest of k: what
// makes a chain of that size take its calibrated time (added_cost).
double forward_at(const Calibration &cal, double bytes, bool is_inline, const CrowdCosts &k) {
    const double chain = (cal.crowd_ranks - 1) * cal.crowded(is_inline).at(bytes);
    CrowdCosts t = k;
    auto with = [&](double f) {
        t.forward_s = f;
        return sample_round(cal, BcastAlgo::kChain, 2, bytes, is_inline, t);
    };
    return added_cost(with, chain);
}

// CrowdCosts::concurrent for copies of `bytes` with the rest of k: what
// makes a binomial tree of that size take its calibrated time
// (comm_crowd_tree); 1 without it, or over fewer than 4 members (there
// the binomial is the flat tree).
double concurrent_at(const Calibration &cal, double bytes, const CrowdCosts &k) {
    if (cal.comm_crowd_tree.empty() || cal.crowd_ranks < 4 || bytes < cal.comm_crowd_tree.points().front().first)
        return 1;
    const double tree = (cal.crowd_ranks - 1) * cal.comm_crowd_tree.at(bytes);
    CrowdCosts t = k;
    auto with = [&](double c) {
        t.concurrent = c;
        return sample_round(cal, BcastAlgo::kBinomial, 2, bytes, false, t);
    };
    return solve(with, tree, kConcurrentLo, kConcurrentHi);
}

}  // namespace

// Whether the calibrated ring prices an inline allgather of blocks of
// `bytes` on the crowded node: measured at that size through the slots
// (out_of_phase).
bool ring_prices_inline(const Calibration &cal, double bytes) {
    return out_of_phase(cal) && bytes >= cal.comm_crowd_ring.points().front().first;
}

// CrowdCosts::gather_cross_s for inline allgather copies of `bytes` with the
// rest of k: what makes a ring allgather of that size take its calibrated
// time (added_cost), its members' copies out of the slots included (there
// predict_round adds none: a block that came from another core is read
// from there, one from the same core is at hand); 0 where the ring was
// not measured at that size through the slots. Solved once per size
// (cache).
double cross_at(const Calibration &cal, double bytes, const CrowdCosts &k, CrowdCache *cache) {
    if (const double *known = cache->solved(CrowdCache::Solved::kGatherCross, bytes)) return *known;
    double x = 0;
    if (ring_prices_inline(cal, bytes)) {
        const double ring = (cal.crowd_ranks - 1) * cal.comm_crowd_ring.at(bytes);
        CrowdCosts t = k;
        auto crossed = [&](double v) {
            t.gather_cross_s = v;
            return sample_gather(cal, AllgatherAlgo::kRing, bytes, t, true);
        };
        x = added_cost(crossed, ring);
    }
    cache->remember(CrowdCache::Solved::kGatherCross, bytes, x);
    return x;
}

namespace {

// The copies' costs of entries of `bytes` (CrowdCache::kCopies): all
// an inline round has.
CrowdCosts copy_costs(const Calibration &cal, double bytes, bool is_inline, double switch_s) {
    CrowdCosts k;
    k.switch_s = switch_s;
    // Inline rounds are plain stores into the control blocks, at the
    // 2-member price: their sender's core is held for part of it (busy),
    // and a forwarded one lands later (forward_s, not held). Without the
    // flat tree to split the two, they cost whole copies and no forward
    // (a forward cost held on the core would change the chain by nothing
    // until it outgrows a switch, then by a whole turn). Only
    // process_vm_writev rounds are slower, and more so when they forward.
    if (is_inline) {
        k.busy = busy_at(cal, bytes, switch_s);
        if (k.busy < 1) k.forward_s = forward_at(cal, bytes, true, k);
        return k;  // gather_cross_s: an allgather's own (round_crowd_costs)
    }
    // Measured as it is (process_vm_writev only: inline rounds store into
    // the control blocks); flat above the largest sample.
    if (!cal.converge_slow.empty()) k.converge = std::max(1.0, cal.converge_slow.clamped(bytes));
    k.slow = slow_at(cal, bytes, switch_s);
    // Likewise where the chain is close already (within 10%: a quarter
    // turn of the spread switches), there is no forward cost to find.
    k.forward_s = forward_at(cal, bytes, false, k);
    k.concurrent = concurrent_at(cal, bytes, k);
    return k;
}

// Blocks in a stream (CrowdCache::kStream) on top of k's copy costs,
// from the crowded pipeline: its first blocks cost as the copies, the
// rest stream_slow times comm_stream. Measured on the 2-core VM, 3 ranks:
// 5-6 us a small block, not comm_stream's 3 (the core the root shares
// with the last member is not all the root's), and less than slow +
// forward_s for blocks of 128 KiB and up. cache: for the short
// pipeline's round share (stream_start_s), whose costs come from a
// smaller block's, as predict takes them.
void solve_stream(const Calibration &cal, double bytes, CrowdCosts *out, CrowdCache *cache) {
    if (cal.comm_crowd_stream.empty() || cal.comm_stream.empty()) return;
    CrowdCosts &k = *out;
    const double n = cal.crowd_ranks - 1;
    constexpr unsigned kS = kCrowdStreamSegments, kShort = kCrowdShortStreamSegments;
    const double round = (kS + n - 1) * cal.comm_crowd_stream.at(bytes);
    const double round_slow = slow_at(cal, bytes * kS, k.switch_s);
    double short_round_slow = 0;  // solved only with the short pipeline's curve (below)
    // A pipeline:S round's blocks' share of it is slowed as in the
    // pipeline:16 of as many bytes (round_crowd_costs): for the short
    // one, that of blocks a quarter the size, solved first (with their
    // own short pipeline, down to its smallest sample).
    const double quarter = bytes * kShort / kS;
    const bool below = cal.comm_crowd_stream4.empty() || quarter < cal.comm_crowd_stream4.points().front().first;
    const double short_share_slow =
        below ? -1 : cache->get(cal, quarter, false, CrowdCache::kStream).round_stream_slow;
    auto piped = [&](double s, unsigned segments) {
        CrowdCosts t = k;
        t.stream_slow = t.round_stream_slow = s;
        if (segments != kS && short_share_slow > 0) t.round_stream_slow = short_share_slow;
        t.round_slow = segments == kS ? round_slow : short_round_slow;
        return sample_round(cal, BcastAlgo::kPipeline, segments, bytes * segments, false, t);
    };
    k.stream_slow = k.round_stream_slow = solve([&](double s) { return piped(s, kS); }, round, 0.25, 8);
    // With the short pipeline too: the slowdown that puts the two rounds
    // as far apart as measured, and what both then lack, a cost of their
    // own round (at least 0; else as above).
    if (!cal.comm_crowd_stream4.empty()) {
        short_round_slow = slow_at(cal, bytes * kShort, k.switch_s);
        const double short_round = (kShort + n - 1) * cal.comm_crowd_stream4.at(bytes);
        auto apart = [&](double s) { return piped(s, kS) - piped(s, kShort); };
        const double want = round - short_round;
        const double s = apart(0.25) < want && want < apart(8) ? solve(apart, want, 0.25, 8) : 0;
        const double start = s > 0 ? round - piped(s, kS) : 0;
        if (start > 0) {
            k.stream_slow = k.round_stream_slow = s;
            k.stream_start_s = start;
        }
    }
}

// An allgather's copies (CrowdCache::kGather) on top of k's copy costs,
// from the crowded Bruck allgather, which its round also pays. Its
// samples start above the inline slots: below them, not measured (1).
void solve_gather(const Calibration &cal, double bytes, CrowdCosts *out) {
    if (cal.comm_crowd_gather.empty() || bytes < cal.comm_crowd_gather.points().front().first) return;
    CrowdCosts &k = *out;
    const double n = cal.crowd_ranks - 1;
    const double round = n * cal.comm_crowd_gather.at(bytes);
    auto gather = [&](double g) {
        CrowdCosts t = k;
        t.gather_slow = g;
        return sample_gather(cal, AllgatherAlgo::kBruck, bytes, t);
    };
    k.gather_slow = solve(gather, round, 0.25, 8);
    // With the ring, an allgather's own forward cost (added_cost, as
    // forward_at's), then Bruck's factor again with it. Once each: over 4
    // members Bruck forwards half its copies and the ring two thirds, too
    // close to tell the two costs apart. Solved in turn 12 times on one
    // 4-rank calibration of the 2-core VM, they drifted (gather_slow 0.73
    // -> 0.60, the forward cost 9.7 -> 12.4 us at 64 KiB) instead of
    // settling.
    if (!cal.comm_crowd_ring.empty() && bytes >= cal.comm_crowd_ring.points().front().first) {
        const double ring = n * cal.comm_crowd_ring.at(bytes);
        auto forwarded = [&](double f) {
            CrowdCosts t = k;
            t.gather_forward_s = f;
            return sample_gather(cal, AllgatherAlgo::kRing, bytes, t);
        };
        k.gather_forward_s = added_cost(forwarded, ring);
        k.gather_slow = solve(gather, round, 0.25, 8);
    }
}

// k's costs of the parts not in `parts` back to their defaults.
CrowdCosts only(CrowdCosts k, unsigned parts) {
    const CrowdCosts none;
    if (!(parts & CrowdCache::kStream)) {
        k.stream_slow = none.stream_slow;
        k.round_stream_slow = none.round_stream_slow;
        k.stream_start_s = none.stream_start_s;
    }
    if (!(parts & CrowdCache::kGather)) {
        k.gather_slow = none.gather_slow;
        k.gather_forward_s = none.gather_forward_s;
    }
    return k;
}

}  // namespace

CrowdCosts crowd_costs(const Calibration &cal, double bytes, bool is_inline) {
    return CrowdCache().get(cal, bytes, is_inline);
}

const Calibration &CrowdCache::crowd_node(const Calibration &cal) {
    if (cal.crowd_core_count() == cal.cores) return cal;
    if (!crowd_) {
        crowd_ = cal;
        crowd_->cores = cal.crowd_core_count();
        crowd_->crowd_cores = 0;
    }
    return *crowd_;
}

CrowdCosts CrowdCache::get(const Calibration &job, double bytes, bool is_inline, unsigned parts) {
    if (!has_crowd(job)) return {};
    const Calibration &cal = crowd_node(job);
    if (switch_s_ < 0) switch_s_ = switch_time(cal, 1);
    // Solved only once an inline round asks: a job of large rounds need
    // not pay its two solves at its first create.
    if (is_inline && inline_switch_s_ < 0) inline_switch_s_ = inline_switch_time(cal, switch_s_);
    const auto key = std::make_pair(bytes, is_inline);
    auto it = costs_.find(key);
    if (it == costs_.end()) {
        // An inline round has only its copies' costs: the rest is solved.
        const Entry k{copy_costs(cal, bytes, is_inline, is_inline ? inline_switch_s_ : switch_s_),
                       is_inline ? kAll : kCopies};
        it = costs_.emplace(key, k).first;
    }
    // The parts apart: a bcast's pipeline solves read nothing of an
    // allgather's, and the other way round.
    if ((parts & kStream) && !(it->second.parts & kStream)) {
        CrowdCosts k = it->second.k;  // a copy: the solves may add entries (std::map keeps `it`)
        if (!stream_between_powers(job, bytes, is_inline, &k)) solve_stream(cal, bytes, &k, this);
        CrowdCosts &kept = it->second.k;
        kept.stream_slow = k.stream_slow;
        kept.round_stream_slow = k.round_stream_slow;
        kept.stream_start_s = k.stream_start_s;
        it->second.parts |= kStream;
    }
    if ((parts & kGather) && !(it->second.parts & kGather)) {
        solve_gather(cal, bytes, &it->second.k);
        it->second.parts |= kGather;
    }
    return only(it->second.k, parts);
}

bool CrowdCache::stream_between_powers(const Calibration &job, double bytes, bool is_inline, CrowdCosts *k) {
    const double lo = std::exp2(std::floor(std::log2(bytes))), hi = 2 * lo;
    if (!(bytes > 64) || bytes == lo) return false;  // a power of two, or a block under the alignment
    const CrowdCosts a = get(job, lo, is_inline, kStream), b = get(job, hi, is_inline, kStream);
    if (!(a.stream_slow > 0 && b.stream_slow > 0)) return false;  // no stream solved at one end: solve this one
    const double w = (bytes - lo) / (hi - lo);
    auto mix = [w](double x, double y) { return x + w * (y - x); };
    k->stream_slow = mix(a.stream_slow, b.stream_slow);
    k->round_stream_slow = mix(a.round_stream_slow, b.round_stream_slow);
    k->stream_start_s = mix(a.stream_start_s, b.stream_start_s);
    return true;
}

const double *CrowdCache::round(const RoundKey &key) const {
    const auto it = rounds_.find(key);
    return it == rounds_.end() ? nullptr : &it->second;
}

void CrowdCache::remember(const RoundKey &key, double seconds) { rounds_[key] = seconds; }

const double *CrowdCache::solved(Solved what, double bytes) const {
    const auto it = solved_.find({what, bytes});
    return it == solved_.end() ? nullptr : &it->second;
}

void CrowdCache::remember(Solved what, double bytes, double seconds) { solved_[{what, bytes}] = seconds; }

void CrowdCache::clear() {
    switch_s_ = inline_switch_s_ = -1;
    crowd_.reset();
    costs_.clear();
    rounds_.clear();
    solved_.clear();
}

}  // namespace acpx::collectives::model
