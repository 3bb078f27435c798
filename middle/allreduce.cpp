// The persistent allreduce's butterfly (allreduce.hpp, acp.h).
#include "allreduce.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "basic/copy_bytes.hpp"
#include "basic/errors.hpp"
#include "basic/ga.hpp"
#include "col.hpp"
#include "round.hpp"
#include "shared_words.hpp"

namespace acpx::middle {
namespace ar {

Shape::Shape(uint32_t n) : members(n ? n : 1) {
    p2 = std::bit_floor(members);
    k = static_cast<uint32_t>(std::countr_zero(p2));
}

size_t data_bytes(size_t bytes) { return (bytes + 7) / 8 * 8; }
size_t slot_stride(size_t bytes) { return (data_bytes(bytes) + 8 + 63) / 64 * 64; }

namespace {
// Member j's slots in order: fold-in (if it folds one in), result (if it
// is folded), then its stages (if it is not).
uint32_t slot_index(const Shape &s, uint32_t j, uint32_t id, bool *has) {
    const uint32_t fold = s.folds_in(j) ? 1 : 0;
    *has = true;
    if (id == kFoldIn) return *has = fold == 1, 0;
    if (id == kResultIn) return *has = s.folded(j), 0;
    *has = !s.folded(j) && id - kStage0 < s.k;
    return fold + (id - kStage0);
}
uint32_t slots_of(const Shape &s, uint32_t j) { return s.folded(j) ? 1 : s.k + (s.folds_in(j) ? 1 : 0); }
}  // namespace

size_t slot_offset(const Shape &s, uint32_t j, size_t bytes, uint32_t id, uint64_t round) {
    bool has = false;
    const uint32_t i = slot_index(s, j, id, &has);
    if (!has) return SIZE_MAX;
    return kHeader + slot_stride(bytes) * (2 * size_t{i} + (round & 1));
}

size_t ctl_bytes(const Shape &s, uint32_t j, size_t bytes) { return kHeader + slot_stride(bytes) * 2 * slots_of(s, j); }

std::vector<Step> steps_of(const Shape &s, uint32_t me) {
    std::vector<Step> out;
    if (s.folded(me)) {
        out.push_back({true, false, kFoldIn, me - s.p2});
        out.push_back({false, false, kResultIn, me - s.p2});
        return out;
    }
    if (s.folds_in(me)) out.push_back({false, false, kFoldIn, me + s.p2});
    for (uint32_t st = 0; st < s.k; ++st) {
        const uint32_t peer = me ^ (uint32_t{1} << st);
        out.push_back({true, false, kStage0 + st, peer});
        out.push_back({false, false, kStage0 + st, peer});
    }
    if (s.folds_in(me)) out.push_back({true, true, kResultIn, me + s.p2});
    return out;
}

namespace {

template <class T>
T load(const char *p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class T, class F>
void each(char *out, const char *lower, const char *upper, size_t count, F f) {
    for (size_t i = 0; i < count; ++i) {
        const T v = f(load<T>(lower + i * sizeof(T)), load<T>(upper + i * sizeof(T)));
        std::memcpy(out + i * sizeof(T), &v, sizeof v);
    }
}

template <class T>
void combine_as(ROp o, char *out, const char *lower, const char *upper, size_t count) {
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;  // wraps, as documented
        if (o == ROp::kSum)
            each<T>(out, lower, upper, count,
                    [](T a, T b) { return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); });
        else if (o == ROp::kMax)
            each<T>(out, lower, upper, count, [](T a, T b) { return a < b ? b : a; });
        else
            each<T>(out, lower, upper, count, [](T a, T b) { return b < a ? b : a; });
    } else {
        // NaN wins; of two zeros MAX takes +0.0, MIN -0.0 (acp.h).
        if (o == ROp::kSum)
            each<T>(out, lower, upper, count, [](T a, T b) { return a + b; });
        else if (o == ROp::kMax)
            each<T>(out, lower, upper, count, [](T a, T b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == b) return std::signbit(a) ? b : a;
                return a < b ? b : a;
            });
        else
            each<T>(out, lower, upper, count, [](T a, T b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == b) return std::signbit(a) ? a : b;
                return b < a ? b : a;
            });
    }
}

}  // namespace

void combine(DType t, ROp o, char *out, const char *lower, const char *upper, size_t count) {
    switch (t) {
        case DType::kInt32: return combine_as<int32_t>(o, out, lower, upper, count);
        case DType::kInt64: return combine_as<int64_t>(o, out, lower, upper, count);
        case DType::kDouble: return combine_as<double>(o, out, lower, upper, count);
        case DType::kNone: return;
    }
}

}  // namespace ar

size_t Allreduce::memory() const {
    return sizeof(Allreduce) + steps.capacity() * sizeof(ar::Step) + peer_rank.capacity() * sizeof(int32_t) +
           peer_ctl.capacity() * sizeof(acp_ga_t) + peer_mapped.capacity() * sizeof(char *) +
           src_at.capacity() * sizeof(size_t) + keep.capacity() * sizeof(std::shared_ptr<void>);
}

void allreduce_plan(Col &c, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table) {
    auto a = std::make_unique<Allreduce>(c.p.members);
    a->me = me;
    a->steps = ar::steps_of(a->shape, me);
    for (const ar::Step &s : a->steps) {
        a->peer_rank.push_back(group[s.peer]);
        a->peer_ctl.push_back(table[s.peer].ctl);
    }
    c.ar = std::move(a);
}

namespace {

using ar::Step;

size_t bytes_of(const Col &c) { return c.p.size; }
size_t count_of(const Col &c) { return c.p.size / size_of(c.p.dtype); }

std::string step_name(const Allreduce &a, size_t i) {
    const Step &s = a.steps[i];
    return s.id == ar::kFoldIn     ? "the folded vector"
           : s.id == ar::kResultIn ? "the result"
                                   : "stage " + std::to_string(s.id - ar::kStage0);
}

// Each send step's peer block mapped here, up to the inline cap
// (ACP_COL_INLINE when set), else a registered source for acp_copy.
bool find_peers(Col &c, const char *fn) {
    Allreduce &a = *c.ar;
    const size_t bytes = bytes_of(c);
    const bool stores = c.p.inline_max == kInlineAuto || bytes <= c.p.inline_max;
    a.peer_mapped.assign(a.steps.size(), nullptr);
    a.src_at.assign(a.steps.size(), SIZE_MAX);
    size_t sources = 0;
    const uint64_t here = basic::layer::node_id(c.rank);
    for (size_t i = 0; i < a.steps.size(); ++i) {
        if (basic::layer::node_id(a.peer_rank[i]) != here) c.direct.off_node = true;
        if (!a.steps[i].send) continue;
        if (stores) {
            const auto m = basic::layer::mapped(a.peer_ctl[i], ar::ctl_bytes(a.shape, a.steps[i].peer, bytes));
            if (m.keep) a.keep.push_back(m.keep);
            a.peer_mapped[i] = m.ptr;
        }
        if (!a.peer_mapped[i]) a.src_at[i] = ar::data_bytes(bytes) * sources++;
    }
    if (sources && bytes && !basic::layer::alloc_shared(ar::data_bytes(bytes) * sources, fn, &c.mem.buffer))
        return false;
    a.known = true;
    return true;
}

acp_handle_t track(Col &c, acp_handle_t h) {
    if (c.cur.first == ACP_HANDLE_NULL) c.cur.first = h;
    c.cur.last = h;
    return h;
}

// The vector this member holds now: its own, or the partial so far.
const char *held(const Col &c) { return c.ar->combined ? c.out : c.in; }

// Step i, a send: the vector and its stamp into the peer's slot (a failed
// stamp alone once this round failed here).
bool send_step(Col &c, size_t i) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const size_t bytes = bytes_of(c);
    const uint64_t what = a.failing ? ar::kFailed : s.result ? ar::kResult : ar::kPartial;
    const size_t off = ar::slot_offset(a.shape, s.peer, bytes, s.id, c.round);
    const size_t stamp_off = off + ar::data_bytes(bytes);
    if (char *peer = a.peer_mapped[i]) {
        if (what != ar::kFailed) basic::copy_bytes(peer + off, held(c), bytes);
        store_release(peer + stamp_off, ar::stamp_of(c.round, what));
        return true;
    }
    acp_handle_t data = ACP_HANDLE_NULL;
    if (what != ar::kFailed) {
        char *src = static_cast<char *>(c.mem.buffer.base) + a.src_at[i];
        basic::copy_bytes(src, held(c), bytes);
        data = acp_copy(a.peer_ctl[i] + off, c.mem.buffer.ga + a.src_at[i], bytes, ACP_HANDLE_NULL);
        if (data == ACP_HANDLE_NULL) return false;
        track(c, data);
    }
    const acp_ga_t stamp_dst = a.peer_ctl[i] + stamp_off;
    const acp_handle_t h = acp_copy(stamp_dst, c.mem.ctl.ga + ar::stamp_word(what), 8, data);
    if (h == ACP_HANDLE_NULL) return false;
    track(c, h);
    c.cur.notices.push_back({h, stamp_dst, a.peer_rank[i], static_cast<uint32_t>(i), 8});
    return true;
}

// Step i, a wait: has the peer's slot this round's stamp? Then takes it.
bool take_step(Col &c, size_t i) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const size_t bytes = bytes_of(c);
    const uint8_t *slot = c.ctl_base() + ar::slot_offset(a.shape, a.me, bytes, s.id, c.round);
    const uint64_t stamp = load_acquire(slot + ar::data_bytes(bytes));
    if (!ar::stamp_is(stamp, c.round)) return false;
    if ((stamp & 3) == ar::kFailed) {
        if (!a.failing)
            note_error(c, step_name(a, i) + " from rank " + std::to_string(a.peer_rank[i]) +
                              " failed on its way here (a copy failed: the rank that issued it named it)");
        a.failing = true;
        return true;
    }
    if (a.failing) return true;
    const char *theirs = reinterpret_cast<const char *>(slot);
    if (s.id == ar::kResultIn) {
        basic::copy_bytes(c.out, theirs, bytes);
    } else {
        const bool lower = a.me < s.peer;
        ar::combine(c.p.dtype, c.p.op, c.out, lower ? held(c) : theirs, lower ? theirs : held(c), count_of(c));
    }
    a.combined = true;
    return true;
}

// The round's GMAs are complete and one failed: a failed stamp to each
// receiver whose stamp did not land, so it fails the round at once.
bool send_failure_stamps(Col &c) {
    std::string what;
    for (const auto &n : c.cur.notices)
        if (basic::layer::poll(n.gma) < 0)
            what += (what.empty() ? "" : ", ") + step_name(*c.ar, n.block) + " to rank " + std::to_string(n.to) +
                    " (GMA " + std::to_string(n.gma) + ")";
    if (what.empty()) return false;
    note_error(c, "a copy this rank issued failed: " + what);
    c.cur.failing = true;
    bool sent = false;
    for (const auto &n : c.cur.notices) {
        if (basic::layer::poll(n.gma) >= 0) continue;
        const acp_handle_t h = acp_copy(n.slot, c.mem.ctl.ga + ar::stamp_word(ar::kFailed), 8, ACP_HANDLE_NULL);
        if (h != ACP_HANDLE_NULL) sent = true, c.cur.last = h;
    }
    return sent;
}

void finish(Col &c) {
    c.active = false;
    c.done_round = c.round;
}

}  // namespace

bool allreduce_start(Col &c, const char *fn) {
    Allreduce &a = *c.ar;
    // (No peer is looked up for empty rounds: members may free such a
    // handle at once.)
    if (!a.known && bytes_of(c) > 0 && !find_peers(c, fn)) return false;
    ++c.round;
    c.active = true;
    c.cur.reset();
    a.step = 0;
    a.combined = false;
    a.failing = false;
    uint8_t *ctl = c.ctl_base();
    for (const uint64_t what : {ar::kPartial, ar::kResult, ar::kFailed})
        store_release(ctl + ar::stamp_word(what), ar::stamp_of(c.round, what));
    if (bytes_of(c) == 0) finish(c);  // a no-op round, as in MPI
    return true;
}

bool allreduce_advance(Col &c) {
    Allreduce &a = *c.ar;
    bool moved = false;
    while (a.step < a.steps.size()) {
        if (a.steps[a.step].send) {
            if (!send_step(c, a.step)) {
                break_handle(c, "could not issue a copy of " + step_name(a, a.step));
                return basic::report("acp_wait_col", "handle", "handle %llu round %llu: could not issue a copy of %s",
                                     static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.round),
                                     step_name(a, a.step).c_str());
            }
        } else if (!take_step(c, a.step)) {
            return moved;
        }
        ++a.step;
        moved = true;
    }
    if (c.cur.last != ACP_HANDLE_NULL && basic::layer::poll(c.cur.last) == 1) return moved;
    if (!c.cur.failing && c.cur.first != ACP_HANDLE_NULL &&
        acp_query_failed(c.cur.first, c.cur.last) != ACP_HANDLE_NULL && send_failure_stamps(c))
        return true;  // then waits for those
    if (!a.combined && !a.failing && c.out != c.in) basic::copy_bytes(c.out, c.in, bytes_of(c));  // one member
    finish(c);
    return true;
}

std::string allreduce_pending(const Col &c) {
    const Allreduce &a = *c.ar;
    if (a.step < a.steps.size())
        return "rank " + std::to_string(a.peer_rank[a.step]) + " (" + step_name(a, a.step) + ")";
    return "this rank's own copies to complete";
}

}  // namespace acpx::middle
