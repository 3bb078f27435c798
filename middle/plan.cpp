// build_plan: from command lists and GAs to one member's plan (plan.hpp).
#include "plan.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "basic/ga.hpp"
#include "collectives/algorithms.hpp"

namespace acpx::middle {
namespace {

template <class T>
size_t heap(const std::vector<T> &v) {
    return v.capacity() * sizeof(T);
}

uint16_t tag_of(acp_ga_t g) { return static_cast<uint16_t>(basic::ga::decode(g).tag); }

// The offset most members' control blocks have in their arenas: the
// majority's where more than half share one (Boyer-Moore vote: one pass,
// no table); else one of theirs.
uint64_t most_common_offset(const std::vector<MemberAddr> &table) {
    uint64_t pick = 0;
    size_t votes = 0;
    for (const MemberAddr &m : table) {
        const uint64_t at = basic::ga::decode(m.ctl).offset;
        if (votes == 0) pick = at;
        votes += at == pick ? 1 : size_t{0} - 1;
    }
    return pick;
}

// The list moving block `block`; a hierarchical one over nodes[i], member
// i's node (without them, as over one node).
collectives::CommandList list_of(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes,
                                 uint32_t block) {
    if (p.hier && nodes.size() != p.members) return list_of(p, root_index, std::vector<uint32_t>(p.members, 0), block);
    if (p.hier)
        return p.kind == Kind::kBcast ? collectives::hier_bcast_list(static_cast<collectives::BcastAlgo>(p.algo),
                                                                     p.radix, nodes, root_index)
                                      : collectives::hier_allgather_block_list(nodes, block);
    return p.kind == Kind::kBcast
               ? collectives::bcast_block_list(static_cast<collectives::BcastAlgo>(p.algo), p.members, root_index,
                                               block, p.radix)
               : collectives::allgather_block_list(static_cast<collectives::AllgatherAlgo>(p.algo), p.members, block);
}

// What a list's executor keeps of block b's: a k-nomial tree (binomial)
// as its formula, any other list as its entries.
collectives::StoredList stored_list(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes,
                                    uint32_t block) {
    const auto algo = static_cast<collectives::BcastAlgo>(p.algo);
    if (p.kind == Kind::kBcast && !p.hier &&
        (algo == collectives::BcastAlgo::kBinomial || algo == collectives::BcastAlgo::kKnomial))
        return collectives::StoredList(
            collectives::KnomialList(p.members, root_index, algo == collectives::BcastAlgo::kBinomial ? 2 : p.radix));
    return collectives::StoredList(list_of(p, root_index, nodes, block));
}

// f(b, list of block b) for every block of p, one list at a time, until
// f returns false: an allgather's lists hold P(P-1) entries, which kept
// at once took 800 MB in every process at 8,192 members (and grow as P^2).
template <class F>
void each_list(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes, F &&f) {
    const uint32_t blocks = slots_of(p);
    for (uint32_t b = 0; b < blocks; ++b)
        if (!f(b, list_of(p, root_index, nodes, b))) return;
}

// The entries of p's lists that one member sends or receives, block by
// block in list order. An allgather turned from a few lists
// (collectives::allgather_turn: ring, Bruck, the trees, neighbor
// exchange, recursive doubling over a power of two) finds them through
// those lists, indexed by member: O(P + its entries) a member, where
// walking every block's list is O(P^2) (a ring over 8,192 members: 1.1 s
// in every process at create).
class MemberEntries {
  public:
    MemberEntries(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes, bool walk_every_list)
        : p_(p), root_index_(root_index), nodes_(nodes) {
        // A hierarchical tree's lists follow the nodes, not a turn.
        if (p.kind != Kind::kAllgather || p.hier || walk_every_list) return;
        turn_ = collectives::allgather_turn(static_cast<collectives::AllgatherAlgo>(p.algo), p.members);
        for (uint32_t r = 0; r < turn_.period; ++r) {
            bases_.push_back(list_of(p, root_index, nodes, r));
            const collectives::CommandList &l = bases_.back();
            std::vector<uint32_t> &start = start_.emplace_back(p.members + 1, 0);
            std::vector<uint32_t> &index = index_.emplace_back(2 * l.size());
            for (const auto &c : l) ++start[c.src + 1], ++start[c.dst + 1];
            for (uint32_t m = 0; m < p.members; ++m) start[m + 1] += start[m];
            std::vector<uint32_t> next(start.begin(), start.end() - 1);
            for (uint32_t e = 0; e < l.size(); ++e) index[next[l[e].src]++] = e, index[next[l[e].dst]++] = e;
            for (uint32_t m = 0; m < p.members; ++m) std::sort(index.begin() + start[m], index.begin() + start[m + 1]);
        }
    }
    bool turned() const { return turn_.period > 0; }

    // f(block, entry) for every entry member x sends or receives, in
    // order, until f returns false.
    template <class F>
    void each(uint32_t x, F &&f) const {
        const uint32_t n = p_.members;
        if (!turned()) {
            each_list(p_, root_index_, nodes_, [&](uint32_t b, const collectives::CommandList &l) {
                for (const auto &c : l)
                    if ((c.src == x || c.dst == x) && !f(b, c)) return false;
                return true;
            });
            return;
        }
        for (uint32_t b = 0; b < n; ++b) {
            const uint32_t r = turn_.base(b), y = turn_.preimage(x, b, n);
            for (uint32_t k = start_[r][y]; k < start_[r][y + 1]; ++k) {
                const collectives::Command &c = bases_[r][index_[r][k]];
                if (!f(b, collectives::Command{turn_.image(c.dst, b, n), turn_.image(c.src, b, n), c.dep})) return;
            }
        }
    }

  private:
    const Params &p_;
    uint32_t root_index_;
    const std::vector<uint32_t> &nodes_;
    collectives::AllgatherTurn turn_;
    std::vector<collectives::CommandList> bases_;       // blocks 0..period-1
    std::vector<std::vector<uint32_t>> start_, index_;  // per base: each member's entries, ascending
};

// Delegated mode: a source holds one ready byte per member it sends to,
// numbered in order of the receivers' first entry (over blocks, then
// entries), however many blocks go between the two; a per-block tree's,
// one per member, by member (ready_by_member).
struct ReadyBytes {
    std::unordered_map<uint32_t, uint32_t> mine;  // this member's receivers -> byte
    std::unordered_map<uint32_t, uint32_t> at;    // this member's sources -> its byte there
    uint32_t count = 0;                           // bytes this member holds
};

// A per-block tree allgather's member receives from nearly every other
// (its parent changes from block to block), and finding its byte at
// each source walked that source's entries until they reached it:
// O(P^2) a member, 121 s for one member's plan at 65,536 members. Its
// bytes are numbered by member instead, P a sender: about as many as
// it has receivers anyway (nearly every other member).
bool ready_by_member(const Params &p) {
    return p.kind == Kind::kAllgather && p.algo == static_cast<uint8_t>(collectives::AllgatherAlgo::kBlockTree);
}

ReadyBytes ready_bytes_by_member(const Params &p, const MemberEntries &entries, uint32_t me) {
    ReadyBytes r;
    entries.each(me, [&](uint32_t, const collectives::Command &c) {
        if (c.src == me)
            r.mine.emplace(c.dst, c.dst);
        else
            r.at.emplace(c.src, me);
        return true;
    });
    r.count = p.members;
    return r;
}

// Turned: this member's entries, then each source's until it reaches this member.
ReadyBytes ready_bytes_turned(const MemberEntries &entries, uint32_t me) {
    ReadyBytes r;
    std::vector<uint32_t> sources;
    std::unordered_set<uint32_t> seen;
    entries.each(me, [&](uint32_t, const collectives::Command &c) {
        if (c.src == me)
            r.mine.emplace(c.dst, static_cast<uint32_t>(r.mine.size()));
        else if (seen.insert(c.src).second)
            sources.push_back(c.src);
        return true;
    });
    for (const uint32_t s : sources) {
        std::unordered_set<uint32_t> receivers;
        entries.each(s, [&](uint32_t, const collectives::Command &c) {
            if (c.src != s || !receivers.insert(c.dst).second || c.dst != me) return true;
            r.at.emplace(s, static_cast<uint32_t>(receivers.size() - 1));
            return false;
        });
    }
    return r;
}

// Every list in turn: this member's receivers, and its byte at each source.
ReadyBytes ready_bytes_listed(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes, uint32_t me) {
    ReadyBytes r;
    std::unordered_map<uint32_t, std::unordered_set<uint32_t>> dsts;  // of this member's sources
    each_list(p, root_index, nodes, [&](uint32_t, const collectives::CommandList &l) {
        for (const auto &c : l)
            if (c.dst == me) dsts.emplace(c.src, std::unordered_set<uint32_t>{});
        return true;
    });
    each_list(p, root_index, nodes, [&](uint32_t, const collectives::CommandList &l) {
        for (const auto &c : l) {
            if (c.src == me) r.mine.emplace(c.dst, static_cast<uint32_t>(r.mine.size()));
            auto it = dsts.find(c.src);
            if (it == dsts.end() || !it->second.insert(c.dst).second) continue;
            if (c.dst == me) {  // its byte here is known: its later receivers do not matter
                r.at.emplace(c.src, static_cast<uint32_t>(it->second.size() - 1));
                dsts.erase(it);
            }
        }
        return true;
    });
    return r;
}

ReadyBytes ready_bytes(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes,
                       const MemberEntries &entries, uint32_t me) {
    if (ready_by_member(p)) return ready_bytes_by_member(p, entries, me);
    ReadyBytes r = entries.turned() ? ready_bytes_turned(entries, me) : ready_bytes_listed(p, root_index, nodes, me);
    r.count = static_cast<uint32_t>(r.mine.size());  // one byte a receiver
    return r;
}

// Root mode: the executor of a list keeps the list and every member's GAs.
void plan_root_mode(const Params &p, uint32_t root_index, const std::vector<uint32_t> &nodes,
                    const MemberEntries &entries, Plan &pl, const std::vector<int> &group,
                    const std::vector<MemberAddr> &table) {
    const uint32_t n = p.members;
    const bool bcast = p.kind == Kind::kBcast;
    const uint32_t me = pl.me;
    if (!bcast || me == root_index) {
        pl.executes_list = true;
        pl.block = bcast ? 0 : me;
        for (uint32_t b = pl.block; b < (bcast ? pl.lay.n_in : me + 1); ++b)
            pl.lists.push_back(stored_list(p, root_index, nodes, b));
        pl.lists.shrink_to_fit();
        pl.data_ga.resize(n);
        pl.ctl_tag.resize(n);
        for (uint32_t i = 0; i < n; ++i) {
            pl.data_ga[i] = table[i].data;
            pl.ctl_tag[i] = tag_of(table[i].ctl);
        }
        pl.ctl_at_most = most_common_offset(table);
        for (uint32_t i = 0; i < n; ++i)
            if (const uint64_t at = basic::ga::decode(table[i].ctl).offset; at != pl.ctl_at_most)
                pl.ctl_at_else.emplace_back(i, at);
        pl.ctl_at_else.shrink_to_fit();
        pl.n_ready = n;  // indexed by member
    }
    // The blocks whose copies read from this member.
    std::vector<uint8_t> read_from_me(pl.lay.n_in, 0);
    entries.each(me, [&](uint32_t b, const collectives::Command &c) {
        if (c.src == me) read_from_me[b] = 1;
        return true;
    });
    // What this member waits for and whom it tells it is ready: the
    // executor of every list that delivers to it.
    for (uint32_t b = 0; b < pl.lay.n_in; ++b) {
        const uint32_t exec = bcast ? root_index : b;
        if (exec == me) continue;
        pl.wait_slots.push_back(b);
        pl.wait_from.push_back(group[exec]);
        if (!bcast || b == 0) {  // one ready byte per executor
            const size_t within = pl.layout().ready() + me;
            if (p.storage == Storage::kBuffered) pl.ready_within.push_back(static_cast<uint32_t>(within));
            pl.ready_targets.push_back(table[exec].ctl + within);
        }
        // Copies reading from this member: wait until the executor says they are done.
        if (read_from_me[b]) {
            pl.wait_slots.push_back(pl.lay.n_in + b);
            pl.wait_from.push_back(group[exec]);
        }
    }
}

// Delegated mode: each member keeps the entries whose source it holds,
// and writes one ready byte to each member that sends to it.
void plan_delegated(const ReadyBytes &r, const MemberEntries &entries, Plan &pl, const std::vector<int> &group,
                    const std::vector<MemberAddr> &table) {
    const uint32_t me = pl.me;
    std::unordered_set<uint32_t> told;
    entries.each(me, [&](uint32_t b, const collectives::Command &c) {
        if (c.src == me)
            pl.out.push_back({b, r.mine.at(c.dst), group[c.dst], c.dep != collectives::kNoDep, table[c.dst].data,
                              table[c.dst].ctl + pl.layout().arrive(b, 0, 0)});
        if (c.dst == me) {
            pl.wait_slots.push_back(b);
            pl.wait_from.push_back(group[c.src]);
            if (told.insert(c.src).second) {
                pl.ready_within.push_back(static_cast<uint32_t>(pl.layout().ready() + r.at.at(c.src)));
                pl.ready_targets.push_back(table[c.src].ctl + pl.ready_within.back());
            }
        }
        return true;
    });
    pl.n_ready = r.count;
    pl.out.shrink_to_fit();
}

}  // namespace

uint32_t slots_of(const Params &p) {
    return p.kind == Kind::kAllgather
               ? p.members
               : collectives::bcast_blocks(static_cast<collectives::BcastAlgo>(p.algo), p.members, p.radix);
}

uint32_t inline_bytes_for(const Params &p) {
    uint32_t cap = inline_bytes_for(p.kind, p.members, slots_of(p), p.across_nodes || p.crowded, p.inline_max);
    // A delegated bcast whose members are each alone on their nodes sends
    // larger rounds as held puts (layout_of), up to Params::held_kib: its
    // slots need not hold them. (Where members share a node, the slots
    // keep their rounds eager between those members too.)
    if (p.kind == Kind::kBcast && p.held_kib && p.alone && p.inline_max == kInlineAuto)
        cap = std::min(cap, kHeldInlineAcrossNodes);
    // A round's block is at most the handle's size (a bcast's array, an
    // allgather's block): a slot needs no more (rounded up to 64 bytes; up
    // to 48 bytes 48 and up to 112 112: with their stamps one and two whole
    // cache lines, Layout::arrive_stride).
    const uint64_t fits = p.size == 0 ? 0 : p.size <= 48 ? 48 : p.size <= 112 ? 112 : (uint64_t{p.size} + 63) / 64 * 64;
    return static_cast<uint32_t>(std::min<uint64_t>(cap, fits));
}

bool pools_by_default(const Params &p) {
    const uint64_t slots = inline_bytes_for(p);
    if (p.inline_max != kInlineAuto) return p.size > slots;                              // a cap the user set
    if (p.kind == Kind::kBcast && p.alone && p.held_kib) return p.size > kPooledInline;  // held puts only
    const uint64_t above = p.kind == Kind::kBcast ? kBcastPoolAbove : p.crowded ? slots : kAllgatherPoolAbove;
    return p.size > std::min(slots, above);
}

namespace {

// d doubled while under `most` and twice as many slots of `slot` bytes fit in `budget`.
uint32_t deepen(uint32_t d, uint32_t most, size_t slot, size_t budget) {
    while (d < most && size_t{2} * d * slot <= budget) d *= 2;
    return d;
}

// A ring of slots of `slot` bytes, at most `most` deep: as many as fit in
// kRingBytes and, across nodes, at least kRingDepthAcrossNodes within
// kRingBytesAcrossNodes (plan.hpp).
uint32_t depth_within_budget(uint32_t most, size_t slot, bool across_nodes) {
    const uint32_t d = deepen(2, most, slot, kRingBytes);
    return across_nodes ? deepen(d, std::min(most, kRingDepthAcrossNodes), slot, kRingBytesAcrossNodes) : d;
}

}  // namespace

uint32_t ring_depth_for(const Params &p, uint32_t inline_bytes) {
    if (p.kind != Kind::kBcast || inline_bytes == 0) return 2;
    uint32_t most = std::min(p.ring_max, kDefaultRingMax);
    if (!p.across_nodes && !p.crowded && inline_bytes <= kLineRingInline) most = std::min(most, kLineRingDepth);
    return depth_within_budget(most, inline_bytes, p.across_nodes);
}

uint32_t pooled_depth(const ctl::Layout &l, size_t bytes, bool across_nodes) {
    return std::min(depth_within_budget(l.eager_depth, (bytes + 63) / 64 * 64, across_nodes), l.eager_depth);
}

void small_ring_for(const Params &p, uint32_t inline_bytes, uint32_t depth, uint32_t *small_inline,
                    uint32_t *small_depth) {
    *small_inline = *small_depth = 0;
    const uint32_t d = std::min(p.across_nodes || p.crowded ? kSmallRingDepth : kLineRingDepth, p.ring_max);
    if (p.kind != Kind::kBcast || slots_of(p) != 1 || inline_bytes <= kSmallRingInline || d <= depth) return;
    *small_inline = kSmallRingInline;
    *small_depth = d;
}

ctl::Layout layout_of(const Params &p) {
    const uint32_t inl = inline_bytes_for(p), depth = ring_depth_for(p, inl);
    if (p.pooled && inl > 0) {
        // The same small ring whatever the handle's size (slots of at most
        // kPooledInline bytes, a line with their stamps; kPooledRingDepth
        // a block for a bcast tree, across nodes kSmallRingDepth as a
        // small handle's there; 2 for an allgather): rounds above go
        // through the senders' pools, as far ahead as slots of the
        // round's size would let them go (pooled_depth), within that ring.
        const uint32_t most = p.across_nodes ? kSmallRingDepth : kPooledRingDepth;
        const uint32_t ring = p.kind == Kind::kBcast ? std::min(most, p.ring_max) : 2;
        ctl::Layout l(slots_of(p), std::min(inl, kPooledInline), ring);
        l.eager = inl;
        l.eager_depth = ring;
        // Across nodes: up to what a held put carries (as below); where
        // every member is alone on its node (held puts only), 31 ahead
        // at any size, as with its slots of 1 KiB (ACP_COL_POOL=0).
        if (p.held_kib) l.eager = std::max(inl, std::min(kHeldEagerMax, uint32_t{p.held_kib} * 1024));
        if (p.alone) l.eager_depth = std::min(ring, kPooledRingDepth);
        l.fwd_ring = p.exec == Exec::kRoot;
        return l;
    }
    uint32_t small_inl = 0, small_depth = 0;
    small_ring_for(p, inl, depth, &small_inl, &small_depth);
    ctl::Layout l(slots_of(p), inl, depth, small_inl, small_depth);
    l.fwd_ring = p.exec == Exec::kRoot;
    // Held puts need the slot's first 8 inline bytes (ctl::kHeldRef).
    if (p.held_kib && inl >= 8) l.eager = std::max(inl, std::min(kHeldEagerMax, uint32_t{p.held_kib} * 1024));
    return l;
}

uint32_t inline_bytes_for(Kind kind, uint32_t members, uint32_t slots, bool full_caps, uint32_t inline_max) {
    constexpr uint32_t kMin = 256, kMax = kAllgatherInlineMax;
    uint32_t cap = 0;
    if (kind == Kind::kBcast) {
        cap = slots > 1 ? 0 : kDefaultInlineMax;
    } else {
        const uint64_t share = (uint64_t{1} << 20) / (members ? members : 1) / 64 * 64;
        // Two slots a block: within 2 MiB a member. Below kMin a slot is not
        // worth it, and kMin each would be 512 MB a member at 10^6 members.
        cap = static_cast<uint32_t>(share < kMin ? 0 : share > kMax ? kMax : share);
    }
    const uint32_t rule = inline_max != kInlineAuto ? inline_max : full_caps ? kDefaultInlineMax : kOnNodeInlineMax;
    return std::min(cap, rule);
}

// What the builder keeps between its two steps: the member's entries and
// (delegated) its ready bytes, found once.
struct PlanBuilder::Impl {
    Impl(const Params &params, uint32_t m, const std::vector<int> &g, std::vector<uint32_t> node_ids,
         bool walk_every_list)
        : p(params),
          me(m),
          group(g),
          nodes(std::move(node_ids)),
          root_index(root_index_of(p, g)),
          entries(p, root_index, nodes, walk_every_list) {
        if (p.exec == Exec::kDelegated) ready = ready_bytes(p, root_index, nodes, entries, me);
    }
    const Params p;  // entries refers to it and to nodes: the Impl stays where it was made
    const uint32_t me;
    const std::vector<int> &group;
    const std::vector<uint32_t> nodes;
    const uint32_t root_index;
    const MemberEntries entries;
    ReadyBytes ready;
};

PlanBuilder::PlanBuilder(const Params &p, uint32_t me, const std::vector<int> &group, std::vector<uint32_t> nodes,
                         bool walk_every_list)
    : impl_(std::make_unique<Impl>(p, me, group, std::move(nodes), walk_every_list)) {}

PlanBuilder::~PlanBuilder() = default;

uint32_t PlanBuilder::ready_count() const {
    const Impl &b = *impl_;
    if (b.p.exec == Exec::kRoot) return (b.p.kind == Kind::kAllgather || b.me == b.root_index) ? b.p.members : 0;
    return b.ready.count;
}

size_t Plan::bytes() const {
    size_t in_lists = heap(lists);
    for (const auto &l : lists) in_lists += l.heap_bytes();
    return sizeof(Plan) + heap(wait_slots) + heap(wait_from) + heap(ready_targets) + heap(ready_within) + in_lists +
           heap(data_ga) + heap(ctl_tag) + heap(ctl_at_else) + heap(out) + heap(data_blocks);
}

acp_ga_t Plan::ctl_ga(uint32_t member, size_t off) const {
    uint64_t at = ctl_at_most;
    if (!ctl_at_else.empty()) {
        const auto it = std::lower_bound(ctl_at_else.begin(), ctl_at_else.end(), std::make_pair(member, uint64_t{0}));
        if (it != ctl_at_else.end() && it->first == member) at = it->second;
    }
    return basic::ga::encode(basic::ga::decode(data_ga[member]).rank, ctl_tag[member], at + off);
}

uint32_t root_index_of(const Params &p, const std::vector<int> &group) {
    if (p.kind == Kind::kBcast)
        for (uint32_t i = 0; i < group.size(); ++i)
            if (group[i] == p.root) return i;
    return 0;
}

Plan PlanBuilder::build(const std::vector<MemberAddr> &table) const {
    const Impl &b = *impl_;
    Plan pl;
    pl.members = b.p.members;
    pl.me = b.me;
    pl.lay = layout_of(b.p);
    if (b.p.exec == Exec::kRoot)
        plan_root_mode(b.p, b.root_index, b.nodes, b.entries, pl, b.group, table);
    else
        plan_delegated(b.ready, b.entries, pl, b.group, table);
    pl.wait_slots.shrink_to_fit();
    pl.wait_from.shrink_to_fit();
    pl.ready_targets.shrink_to_fit();
    pl.ready_within.shrink_to_fit();
    return pl;
}

std::vector<uint32_t> PlanBuilder::neighbours() const {
    const Impl &b = *impl_;
    std::vector<uint32_t> out;
    if (b.p.exec == Exec::kRoot) {  // plan_root_mode: an executor reads every member, the others their executors
        const bool everyone = b.p.kind == Kind::kAllgather || b.me == b.root_index;
        for (uint32_t i = 0; i < b.p.members; ++i)
            if (i != b.me && (everyone || i == b.root_index)) out.push_back(i);
        return out;
    }
    b.entries.each(b.me, [&](uint32_t, const collectives::Command &c) {  // plan_delegated
        out.push_back(c.src == b.me ? c.dst : c.src);
        return true;
    });
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.erase(std::remove(out.begin(), out.end(), b.me), out.end());
    return out;
}

Plan build_plan(const Params &p, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table,
                bool walk_every_list, std::vector<uint32_t> nodes) {
    return PlanBuilder(p, me, group, std::move(nodes), walk_every_list).build(table);
}

size_t modelled_bytes(Kind kind, Exec exec, uint8_t algo, uint32_t members, uint32_t me) {
    Params p;
    p.kind = kind;
    p.storage = Storage::kDirect;
    p.exec = exec;
    p.algo = algo;
    p.members = members;
    p.root = kind == Kind::kBcast ? 0 : -1;
    p.size = kDefaultInlineMax;  // as acpx-bench memory's handles
    p.across_nodes = 1;          // groups this large span nodes: full-size inline slots
    std::vector<int> group(members);
    std::vector<MemberAddr> table(members);
    for (uint32_t i = 0; i < members; ++i) {  // GAs as create would see them
        group[i] = static_cast<int>(i);
        table[i] = {basic::ga::encode(i, 5, 0), basic::ga::encode(i, 6, 0)};
    }
    const Plan pl = build_plan(p, me, group, table);
    return pl.bytes() + pl.ctl_bytes();
}

}  // namespace acpx::middle
