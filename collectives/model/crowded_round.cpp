// A round on a crowded node (more members than cores): the simulation's
// input for a case, the costs it runs with, and the round's time.
#include "crowded_round.hpp"

#include "footprint.hpp"
#include "round_lists.hpp"
#include "solve.hpp"

#include <cmath>
#include <set>
#include <utility>

namespace acpx::collectives::model {

// Whether the simulated cores run out of phase (SimInput): where
// calibrate measured the ring allgather through the inline slots (below
// Bruck's first sample), so that a copy across cores costs what it does
// (gather_cross_s). In phase, neighbor exchange and recursive doubling
// read cheapest at 4 ranks, their partners always running at once;
// freed without that cost, neighbor exchange, every copy of which
// crosses cores, did: 4-rank picks over 12 stored model checks of the
// 2-core VM fell from 255 to 223 of 312. Older files keep the lockstep
// their costs were solved with.
bool out_of_phase(const Calibration &cal) {
    const auto &ring = cal.comm_crowd_ring.points();
    const auto &gather = cal.comm_crowd_gather.points();
    return !ring.empty() && !gather.empty() && ring.front().first < gather.front().first;
}

// Whether c's copies running at once on two cores are priced by
// CrowdCosts::concurrent: a single-block bcast's. A pipeline's blocks and
// a scatter_ring's have their own calibrated rounds (comm_crowd_stream,
// comm_crowd_scatter) and an allgather's its own slowdown (gather_slow),
// all measured with their copies at once. With it, replayed on the
// stored launches of the 2-core VM, 4-rank pipeline:32 of 2 MiB read
// under the band in 7 of 11 launches (3 without), and allgathers of
// 1-4 MiB blocks fell further under it.
bool overlap_priced(const Case &c) { return c.op == Op::kBcast && !multi_block(c); }

// Every entry of the round, for the simulation, costed for a crowded
// node by k: a multi-block round's lists one after the other
// (dependencies renumbered). A copy costs `slow` times the 2-member one,
// forward_s more if its receiver forwards that data from another core
// (see CrowdCosts; the simulation knows the cores); a block that follows
// another between the same pair costs a streamed block
// (Calibration::copy_seconds), stream_slow times (when calibrated), and
// never forward_s; any other block the more of its own entry and its
// share of the round's (CrowdCosts::round_slow). All of them its sender's
// footprint factor times (one node). Copies into one receiver from two
// cores at once slow each other by k.converge, a single-block bcast's
// into two receivers by k.concurrent. An inline copy holds its sender's
// core for k.busy of it.
// blocks: if given, each entry's block (its list's index).
SimInput sim_input(const Case &c, const Calibration &cal, bool is_inline, const CrowdCosts &k,
                   std::vector<uint32_t> *blocks) {
    const std::vector<BlockList> lists = block_lists(c);
    const std::vector<double> footprint = footprint_factors(c, cal, nullptr, lists);
    const bool multi = multi_block(c);
    SimInput in;
    in.members = c.members;
    in.cores = cal.cores;
    in.eager = is_inline;
    in.out_of_phase = out_of_phase(cal);
    in.switch_s = k.switch_s;
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const BlockList &l : lists) {
        const auto base = static_cast<int32_t>(in.entries.size());
        for (const Command &x : l.list) {
            const bool streamed = multi && !pairs.insert({x.src, x.dst}).second && !cal.comm_stream.empty();
            const bool stream = streamed && k.stream_slow > 0;
            const Calibration::CopyPrice price =
                cal.copy_price(is_inline, streamed, false, static_cast<double>(l.bytes),
                               multi ? static_cast<double>(c.bytes) : 0);
            double secs = price.seconds;
            if (stream)  // what the block adds, and its share of the round
                secs = price.adds * k.stream_slow + price.rest() * k.round_stream_slow;
            else if (multi)  // the more of its own entry and its share of the round's, each as the crowd slows it
                secs = std::max(price.own * k.slow, price.share * (k.round_slow > 0 ? k.round_slow : k.slow));
            else
                secs *= k.slow * (c.op == Op::kAllgather ? k.gather_slow : 1);
            const double copy = secs * footprint[x.src];
            const double forward =
                stream ? 0 : c.op == Op::kAllgather && k.gather_forward_s >= 0 ? k.gather_forward_s : k.forward_s;
            // An inline allgather copy across cores: gather_cross_s more, on its core.
            const double across =
                is_inline && c.op == Op::kAllgather && cal.cores > 0 && x.src % cal.cores != x.dst % cal.cores
                    ? k.gather_cross_s
                    : 0;
            in.entries.push_back({x.src, x.dst, x.dep == kNoDep ? -1 : base + static_cast<int32_t>(x.dep),
                                  copy + across, forward * footprint[x.src], k.converge,
                                  is_inline && k.busy < 1 ? k.busy * copy + across : -1,
                                  is_inline || !overlap_priced(c) ? 1 : k.concurrent});
            if (blocks) blocks->push_back(static_cast<uint32_t>(&l - lists.data()));
        }
    }
    return in;
}

namespace {

CrowdCosts chain_round_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache);

// A scatter_ring's forward cost for entries of `bytes`: what makes the
// calibrated crowd's scatter_ring of those entries take its measured time
// (added_cost), where calibrate measured one of that round size; else the
// chain's, chain_forward_s. The chain's over-prices it: on the 2-core VM,
// 4 ranks, scatter_ring rounds of 512 KiB-2 MiB read 1.10-1.17x their
// measured time (median of 48 launches) with it, where the binomial and
// the chain read 0.97-1.06; their copies run on both cores at once, the
// chain's one after another.
double scatter_forward_at(const Calibration &cal, double bytes, double chain_forward_s, CrowdCache *cache) {
    if (cal.comm_crowd_scatter.empty() || cal.crowd_ranks < 3) return chain_forward_s;
    if (const double *known = cache->solved(CrowdCache::Solved::kScatterForward, bytes)) return *known;
    const double n = cal.crowd_ranks - 1;
    Case s;
    s.op = Op::kBcast;
    s.algo = static_cast<uint8_t>(BcastAlgo::kScatterRing);
    s.members = cal.crowd_ranks;
    const auto &points = cal.comm_crowd_scatter.points();
    // The crowd's round whose first (largest) block is `bytes`: n of them,
    // or the curve's top where its blocks (rounded up, block_range) are
    // that. Without this, 4-rank scatter_ring of 4 MiB (3 blocks of
    // 1,398,144 bytes, 128 past the top sample) took the chain's forward
    // cost, 0 there, and read 0.64-0.86 (median 0.75) in 6 launches.
    const auto top = static_cast<uint64_t>(points.back().first);
    s.bytes = static_cast<uint64_t>(bytes * n);
    if (s.bytes > top && static_cast<double>(block_range(top, blocks_of(s), 0).length) == bytes) s.bytes = top;
    double f = chain_forward_s;
    if (points.front().first <= static_cast<double>(s.bytes) && static_cast<double>(s.bytes) <= points.back().first) {
        CrowdCosts t = chain_round_costs(s, cal, false, cache);
        auto with = [&](double x) {
            t.forward_s = x;
            return simulate_rounds(sim_input(s, cal, false, t));
        };
        f = added_cost(with, n * cal.comm_crowd_scatter.at(static_cast<double>(s.bytes)));
    }
    cache->remember(CrowdCache::Solved::kScatterForward, bytes, f);
    return f;
}

// The CrowdCosts a simulated round of c uses: its entries' size's, with
// the chain's forward cost.
CrowdCosts chain_round_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache) {
    // The parts of the costs c's round reads (sim_input).
    const bool piped = multi_block(c) || c.algo == static_cast<uint8_t>(BcastAlgo::kPipeline);
    const unsigned parts = c.op == Op::kAllgather ? CrowdCache::kGather
                           : piped                ? CrowdCache::kStream
                                                  : CrowdCache::kCopies;
    CrowdCosts k = cache->get(cal, static_cast<double>(entry_bytes_of(c)), is_inline, parts);
    // A streamed block's share of the round is slowed as in the
    // calibrated pipeline:16 of as many bytes: the same arrays crowd
    // the same caches (CrowdCosts::round_stream_slow).
    // Likewise a block priced by its round's arrays (its share of the
    // round's entry) is slowed as copies of the round's size are.
    if (multi_block(c)) {
        const auto round = static_cast<double>(c.bytes);
        k.round_stream_slow = cache->get(cal, round / kCrowdStreamSegments, is_inline, CrowdCache::kStream)
                                  .round_stream_slow;
        k.round_slow = cache->get(cal, round, is_inline, CrowdCache::kCopies).slow;
    }
    if (is_inline || !overlap_priced(c)) k.concurrent = 1;  // as sim_input prices it
    // The start cost is a pipeline's round's (CrowdCosts::stream_start_s).
    if (c.op != Op::kBcast || c.algo != static_cast<uint8_t>(BcastAlgo::kPipeline)) k.stream_start_s = 0;
    return k;
}

}  // namespace

// The CrowdCosts of a simulated round: the chain's (chain_round_costs), and a
// scatter_ring's own forward cost or an inline allgather's cross-core one.
CrowdCosts round_crowd_costs(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache) {
    CrowdCosts k = chain_round_costs(c, cal, is_inline, cache);
    const auto entry = static_cast<double>(entry_bytes_of(c));
    const Calibration &crowd = cache->crowd_node(cal);  // these solve rounds of the calibrated crowd
    if (c.op == Op::kBcast && c.algo == static_cast<uint8_t>(BcastAlgo::kScatterRing))
        k.forward_s = scatter_forward_at(crowd, entry, k.forward_s, cache);
    if (c.op == Op::kAllgather && is_inline) k.gather_cross_s = cross_at(crowd, entry, k, cache);
    return k;
}

// Whether the round runs on one node with more members than cores, and
// the calibration has the crowded figure to simulate it with.
bool simulated(const Case &c, const Calibration &cal, const Topology *t) {
    if (!has_crowd(cal) || c.members <= cal.cores || c.members > kMaxSimulatedMembers) return false;
    for (uint32_t m = 1; t && m < c.members; ++m)
        if (t->node_of(m) != t->node_of(0)) return false;
    return true;
}

// Whether c's round is priced back to back (overlap.hpp) where it would
// be simulated: a bcast tree's inline round, whose root runs rounds
// ahead at the handle's own ring depth, as calibrate measured them.
bool overlapped(const Case &c, const Calibration &cal) {
    return c.op == Op::kBcast && inline_round(c) && !c.ring_capped && !cal.comm_crowded_overlap.empty() &&
           !cal.comm_fanout_overlap.empty();
}

// The copy costs a back-to-back round of `bytes` pays on the crowded node.
OverlapCosts overlap_costs_at(const Calibration &cal, double bytes) {
    const double steps = cal.crowd_ranks - 1.0;
    return overlap_costs(cal.crowd_ranks, cal.crowd_core_count(), steps * cal.comm_crowded_overlap.at(bytes),
                         steps * cal.comm_fanout_overlap.at(bytes));
}

// Seconds of c's round back to back: its busiest core's copies.
double overlap_seconds(const Case &c, const OverlapCosts &k, unsigned cores) {
    std::vector<std::pair<uint32_t, uint32_t>> copies;
    for (const BlockList &l : block_lists(c))
        for (const Command &x : l.list) copies.emplace_back(x.src, x.dst);
    return overlap_round(core_loads(copies, cores), k);
}

// c's round on the crowded node, simulated (the costs it used into *used):
// remembered per case, plus a pipeline's start cost.
double simulated_round(const Case &c, const Calibration &cal, bool is_inline, CrowdCache *cache, CrowdCosts *used) {
    *used = round_crowd_costs(c, cal, is_inline, cache);
    const CrowdCache::RoundKey key{static_cast<uint8_t>(c.op), c.algo, c.radix, c.members, c.root, c.bytes,
                                   is_inline};
    const double *known = cache->round(key);
    const double round = known ? *known : simulate_rounds(sim_input(c, cal, is_inline, *used));
    if (!known) cache->remember(key, round);
    return round + used->stream_start_s;  // a pipeline's round (0 for others)
}

// Whether c is a pipeline of more segments than calibrate's short one and
// fewer than its long one, both measured (comm_crowd_stream4 and
// comm_crowd_stream): priced between the two (between_pipelines).
bool between_calibrated_pipelines(const Case &c, const Calibration &cal) {
    return c.op == Op::kBcast && c.algo == static_cast<uint8_t>(BcastAlgo::kPipeline) &&
           c.radix > kCrowdShortStreamSegments && c.radix < kCrowdStreamSegments && !cal.comm_crowd_stream.empty() &&
           !cal.comm_crowd_stream4.empty();
}

// A crowded pipeline:S between the calibrated two: S + members - 2 steps,
// each what a step of the short and of the long pipeline of blocks of
// this size costs, simulated, weighted by where log2 S lies between
// theirs. The stream costs are solved so that those two come out as
// measured; simulated with them, the ones between did not follow. On
// the 2-core VM, 3 ranks, a step of 128 KiB blocks measured 15.6-17.8 us
// at 8, 16 and 32 segments and 22 at 4 (a 512 KiB round): pipeline:8 of
// 1 MiB took the long one's block costs, the short one's start cost, and
// a 1 MiB round's share of it from the long pipeline of 64 KiB blocks,
// and read 1.26-1.44x in 4 launches of 4 (its 2 MiB one 0.77-1.0); in
// the next check's 3 launches it measured 190 us, not 137-161. Over 24
// stored launches of 5 model checks, priced between: median ratios in
// band 453 of 455 at 3 ranks (450 before), picks 121 of 130 (120); at 4
// ranks unchanged (490 of 490; 125 of 130).
Prediction::Between between_pipelines(const Case &c, const Calibration &cal, CrowdCache *cache) {
    const double block = static_cast<double>(c.bytes) / c.radix;
    auto step = [&](unsigned segments) {
        Case x = c;
        x.radix = segments;
        x.bytes = static_cast<uint64_t>(block * segments);
        CrowdCosts unused;
        return simulated_round(x, cal, false, cache, &unused) / (segments + c.members - 2);
    };
    Prediction::Between b;
    b.short_step_s = step(kCrowdShortStreamSegments);
    b.long_step_s = step(kCrowdStreamSegments);
    b.weight = std::log2(static_cast<double>(c.radix) / kCrowdShortStreamSegments) /
               std::log2(static_cast<double>(kCrowdStreamSegments) / kCrowdShortStreamSegments);
    return b;
}

RoundTrace trace_simulated_round(const Case &c, const Calibration &cal, const Topology *t, CrowdCache *cache) {
    RoundTrace r;
    if (c.members <= 1 || !simulated(c, cal, t) || overlapped(c, cal)) return r;
    CrowdCache own;
    const bool is_inline = inline_round(c);
    const SimInput in = sim_input(c, cal, is_inline, round_crowd_costs(c, cal, is_inline, cache ? cache : &own),
                                  &r.blocks);
    r.events = trace_round(in);
    r.entries = in.entries;
    r.switch_s = in.switch_s;
    r.out_of_phase = in.out_of_phase && in.members >= in.cores + 2;  // core 1 has a second member
    return r;
}

}  // namespace acpx::collectives::model
