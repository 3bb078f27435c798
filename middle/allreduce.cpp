// The persistent allreduce's butterfly (allreduce.hpp, acp.h).
#include "allreduce.hpp"

#include <algorithm>
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

Shape::Shape(uint32_t n, uint32_t mid, uint32_t end) : members(n ? n : 1), m(mid), l(end) {
    p2 = std::bit_floor(members);
    k = static_cast<uint32_t>(std::countr_zero(p2));
    d = k / 2;
}

uint32_t partner_bit(const Shape &s, uint32_t n) { return n < s.k ? n : n < s.k + s.m ? n - s.k : n - s.k - s.m; }

size_t data_at(size_t bytes) { return bytes <= 56 ? 8 : 64; }
size_t data_bytes(size_t bytes) { return (bytes + 7) / 8 * 8; }
size_t slot_stride(size_t bytes) { return (data_at(bytes) + data_bytes(bytes) + 63) / 64 * 64; }

namespace {
// Member j's slots in order: fold-in (if it folds one in), result (if it
// is folded), then its stages (if it is not).
uint32_t slot_index(const Shape &s, uint32_t j, uint32_t id, bool *has) {
    const uint32_t fold = s.folds_in(j) ? 1 : 0;
    *has = true;
    if (id == kFoldIn) return *has = fold == 1, 0;
    if (id == kResultIn) return *has = s.folded(j), 0;
    *has = !s.folded(j) && id - kStage0 < s.exchanges();
    return fold + (id - kStage0);
}
uint32_t slots_of(const Shape &s, uint32_t j) { return s.folded(j) ? 1 : s.exchanges() + (s.folds_in(j) ? 1 : 0); }
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
    if (s.redundant()) {  // P is a power of two: nobody folds
        for (uint32_t n = 0; n < s.exchanges(); ++n)
            out.push_back({true, false, kStage0 + n, me ^ (uint32_t{1} << partner_bit(s, n))});
        return out;
    }
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

// Element by element; out may be lower or upper itself, never a part of
// one (acp_send_allreduce refuses overlaps), so no element is read after
// another is written: ivdep. GCC's -O2 vectorizes only loops that need no
// remainder; the dynamic cost model lets this one take SSE2's two doubles
// at a time, and on x86-64 a second copy for AVX2 is picked at load time
// where the CPU has it: a 2-rank sum of 16 KiB of doubles takes 3.4 us
// with AVX2, 3.7 with SSE2 and 4.8 scalar on the 2-core VM
// (doc/measurements/2026-12-05-allreduce.md).
#if defined(__x86_64__)
#define ACPX_SIMD_CLONES __attribute__((optimize("vect-cost-model=dynamic"), target_clones("avx2", "default")))
#else
#define ACPX_SIMD_CLONES __attribute__((optimize("vect-cost-model=dynamic")))
#endif
template <class T, class F>
ACPX_SIMD_CLONES void each(char *out, const char *lower, const char *upper, size_t count, F f) {
#pragma GCC ivdep
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
           src_at.capacity() * sizeof(size_t) + keep.capacity() * sizeof(std::shared_ptr<void>) + sent.capacity();
}

void allreduce_plan(Col &c, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table) {
    auto a = std::make_unique<Allreduce>(c.p.members, c.p.mid, c.p.end);
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
    const uint32_t n = s.id - ar::kStage0, k = a.shape.k, m = a.shape.m;
    return s.id == ar::kFoldIn     ? "the folded vector"
           : s.id == ar::kResultIn ? "the result"
           : n < k                 ? "stage " + std::to_string(n)
           : n < k + m             ? "mid exchange " + std::to_string(n - k)
                                   : "end exchange " + std::to_string(n - k - m);
}

bool on_node(const Col &c, int32_t rank) { return basic::layer::node_id(rank) == basic::layer::node_id(c.rank); }

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
        // By acp_copy (not a signal put): from a registered copy.
        const bool by_copy = on_node(c, a.peer_rank[i]) || bytes > ar::kSignalPutMax;
        if (!a.peer_mapped[i] && by_copy) a.src_at[i] = ar::data_bytes(bytes) * sources++;
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

// Step i, a send: `data` and the stamp saying `what` it is into the
// peer's slot (a failed stamp alone).
bool send_copy(Col &c, size_t i, uint64_t what, const char *data) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const size_t bytes = bytes_of(c);
    const size_t stamp_off = ar::slot_offset(a.shape, s.peer, bytes, s.id, c.round);
    const size_t off = stamp_off + ar::data_at(bytes);
    const uint64_t stamp = ar::stamp_of(c.round, what);
    if (char *peer = a.peer_mapped[i]) {
        if (what != ar::kFailed) basic::copy_bytes(peer + off, data, bytes);
        store_release(peer + stamp_off, stamp);
        return true;
    }
    const acp_ga_t stamp_dst = a.peer_ctl[i] + stamp_off;
    acp_handle_t h = ACP_HANDLE_NULL;
    if (a.src_at[i] == SIZE_MAX) {  // another node: one message, its stamp stored last
        const uint64_t head[8] = {stamp};
        const size_t body = what == ar::kFailed ? 0 : bytes;
        h = basic::layer::put_signal(stamp_dst, head, body ? ar::data_at(bytes) : 8, data, body, 8, ACP_HANDLE_NULL,
                                     "acp_wait_col");
    } else {
        acp_handle_t copy = ACP_HANDLE_NULL;
        if (what != ar::kFailed) {
            char *src = static_cast<char *>(c.mem.buffer.base) + a.src_at[i];
            basic::copy_bytes(src, data, bytes);
            copy = acp_copy(a.peer_ctl[i] + off, c.mem.buffer.ga + a.src_at[i], bytes, ACP_HANDLE_NULL);
            if (copy == ACP_HANDLE_NULL) return false;
            track(c, copy);
        }
        h = acp_copy(stamp_dst, c.mem.ctl.ga + ar::stamp_word(what), 8, copy);
    }
    if (h == ACP_HANDLE_NULL) return false;
    track(c, h);
    c.cur.notices.push_back({h, stamp_dst, a.peer_rank[i], static_cast<uint32_t>(i), 8});
    return true;
}

// Step i of the plain butterfly, a send (a failed stamp once this round
// failed here).
bool send_step(Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    return send_copy(c, i, a.failing ? ar::kFailed : a.steps[i].result ? ar::kResult : ar::kPartial, held(c));
}

// This round's copy in this member's slot of step i: its stamp (0 if not
// this round's), its bytes.
uint64_t stamp_in(const Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    const size_t at = ar::slot_offset(a.shape, a.me, bytes_of(c), a.steps[i].id, c.round);
    const uint64_t s = load_acquire(c.ctl_base() + at);
    return ar::stamp_is(s, c.round) ? s : 0;
}
const char *data_in(const Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    return reinterpret_cast<const char *>(c.ctl_base()) +
           ar::slot_offset(a.shape, a.me, bytes_of(c), a.steps[i].id, c.round) + ar::data_at(bytes_of(c));
}

// Step i, a wait: has the peer's slot this round's stamp? Then takes it.
bool take_step(Col &c, size_t i) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const uint64_t stamp = stamp_in(c, i);
    if (!stamp) return false;
    if ((stamp & 3) == ar::kFailed) {
        if (!a.failing)
            note_error(c, step_name(a, i) + " from rank " + std::to_string(a.peer_rank[i]) +
                              " failed on its way here (a copy failed: the rank that issued it named it)");
        a.failing = true;
        return true;
    }
    if (a.failing) return true;
    const char *theirs = data_in(c, i);
    if (s.id == ar::kResultIn) {
        basic::copy_bytes(c.out, theirs, bytes_of(c));
    } else {
        const bool lower = a.me < s.peer;
        ar::combine(c.p.dtype, c.p.op, c.out, lower ? held(c) : theirs, lower ? theirs : held(c), count_of(c));
    }
    a.combined = true;
    return true;
}

// The plain butterfly: its steps in order. False when broken (reported).
bool run_steps(Col &c, bool *moved) {
    Allreduce &a = *c.ar;
    while (a.step < a.steps.size()) {
        if (a.steps[a.step].send) {
            if (!send_step(c, a.step)) return false;
        } else if (!take_step(c, a.step)) {
            return true;
        }
        ++a.step;
        *moved = true;
    }
    return true;
}

bool sent_all(const Allreduce &a) { return std::find(a.sent.begin(), a.sent.end(), 0) == a.sent.end(); }

// Sends exchange n's copy once.
bool send_once(Col &c, size_t n, uint64_t what, const char *data, bool *moved) {
    Allreduce &a = *c.ar;
    if (a.sent[n]) return true;
    if (!send_copy(c, n, what, data)) return false;
    a.sent[n] = 1;
    *moved = true;
    return true;
}

// The redundant butterfly (seed 001): stages 0..D-1, unless a mid copy
// (the partial of this member's 2^D members, bit-identical to its own)
// comes first; then that partial to its M mid partners; stages D..K-1;
// the result to its L end partners. A result in any slot is final at
// once; every exchange not yet sent then carries it, marked as the
// result, so each slot is written once a round and nobody waits for a
// partial that will not come. A failed stamp anywhere before the result
// fails the round here, and what is owed goes as failed stamps.
bool run_redundant(Col &c, bool *moved) {
    Allreduce &a = *c.ar;
    const ar::Shape &sh = a.shape;
    const size_t bytes = bytes_of(c);
    while (!a.final_held) {
        for (size_t n = 0; n < a.steps.size() && !a.final_held; ++n) {
            const uint64_t st = stamp_in(c, n);
            if ((st & 3) == ar::kFailed) {
                note_error(c, step_name(a, n) + " from rank " + std::to_string(a.peer_rank[n]) +
                                  " failed on its way here (a copy failed: the rank that issued it named it)");
                a.failing = a.final_held = true;
            } else if ((st & 3) == ar::kResult) {
                basic::copy_bytes(c.out, data_in(c, n), bytes);
                a.combined = a.final_held = true;
            }
        }
        if (a.final_held) {
            *moved = true;
            break;
        }
        if (a.stage == sh.d && !a.mid_sent) {
            for (uint32_t j = 0; j < sh.m; ++j)
                if (!send_once(c, sh.k + j, ar::kPartial, held(c), moved)) return false;
            a.mid_sent = true;
        }
        if (a.stage == sh.k) {
            a.final_held = true;
            *moved = true;
            break;
        }
        if (!send_once(c, a.stage, ar::kPartial, held(c), moved)) return false;
        if (a.stage < sh.d) {
            bool shortcut = false;
            for (uint32_t j = 0; j < sh.m && !shortcut; ++j)
                if ((stamp_in(c, sh.k + j) & 3) == ar::kPartial) {
                    basic::copy_bytes(c.out, data_in(c, sh.k + j), bytes);
                    shortcut = true;
                }
            if (shortcut) {
                a.combined = true;
                a.stage = sh.d;
                *moved = true;
                continue;
            }
        }
        const uint64_t st = stamp_in(c, a.stage);
        if (!st) return true;
        if ((st & 3) != ar::kPartial) continue;  // a result or a failure, come since the look above
        const bool lower = a.me < a.steps[a.stage].peer;
        const char *theirs = data_in(c, a.stage);
        ar::combine(c.p.dtype, c.p.op, c.out, lower ? held(c) : theirs, lower ? theirs : held(c), count_of(c));
        a.combined = true;
        ++a.stage;
        *moved = true;
    }
    const uint64_t what = a.failing ? ar::kFailed : ar::kResult;
    for (uint32_t n = 0; n < a.steps.size(); ++n)
        if (!send_once(c, n, what, c.out, moved)) return false;
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

// Rounds whose copies may still be on their way to other nodes.
constexpr size_t kMaxTrailingRounds = 16;

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
    a.stage = 0;
    a.mid_sent = a.final_held = false;
    a.sent.assign(a.shape.redundant() ? a.steps.size() : 0, 0);
    uint8_t *ctl = c.ctl_base();
    for (const uint64_t what : {ar::kPartial, ar::kResult, ar::kFailed})
        store_release(ctl + ar::stamp_word(what), ar::stamp_of(c.round, what));
    if (bytes_of(c) == 0) finish(c);  // a no-op round, as in MPI
    return true;
}

bool allreduce_advance(Col &c) {
    Allreduce &a = *c.ar;
    bool moved = false;
    if (!c.trail.empty()) {  // earlier rounds' copies to other nodes, landed since?
        std::string lost;
        moved = retire_trail(c, &lost);
        if (!lost.empty()) note_error(c, lost);
    }
    if (!(a.shape.redundant() ? run_redundant(c, &moved) : run_steps(c, &moved))) {
        const std::string what = "could not issue a copy of a vector";
        break_handle(c, what);
        return basic::report("acp_wait_col", "handle", "handle %llu round %llu: %s",
                             static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.round),
                             what.c_str());
    }
    if (a.shape.redundant() ? !(a.final_held && sent_all(a)) : a.step < a.steps.size()) return moved;
    if (c.cur.last != ACP_HANDLE_NULL) {
        // Copies to other nodes whose bytes left (signal puts copy them at
        // once): their landing is a network round trip, as long as the
        // round; it is checked by the next rounds and by the free, as a
        // bcast's small rounds' (Col::trail; a failure fails a later round
        // naming this one). Each slot's next write comes after in the same
        // pair's order, and reads its round's stamp.
        if (c.direct.off_node && c.trail.size() < kMaxTrailingRounds && basic::layer::completion(c.cur.last) == 1 &&
            basic::layer::sources_free(c.cur.first, c.cur.last)) {
            c.trail.push_back({c.cur.first, c.cur.last, c.round});
            c.cur.first = c.cur.last = ACP_HANDLE_NULL;
        } else if (basic::layer::poll(c.cur.last) == 1) {
            return moved;
        }
    }
    if (!c.cur.failing && c.cur.first != ACP_HANDLE_NULL &&
        acp_query_failed(c.cur.first, c.cur.last) != ACP_HANDLE_NULL && send_failure_stamps(c))
        return true;  // then waits for those
    if (!a.combined && !a.failing && c.out != c.in) basic::copy_bytes(c.out, c.in, bytes_of(c));  // one member
    finish(c);
    return true;
}

std::string allreduce_pending(const Col &c) {
    const Allreduce &a = *c.ar;
    if (a.shape.redundant() && !a.final_held) {
        std::string who;  // the stage it is at, and every copy not here yet
        for (size_t n = 0; n < a.steps.size(); ++n)
            if (!stamp_in(c, n) && (n >= a.shape.k || n == a.stage))
                who += (who.empty() ? "" : ", ") +
                       ("rank " + std::to_string(a.peer_rank[n]) + " (" + step_name(a, n) + ")");
        return who;
    }
    if (!a.shape.redundant() && a.step < a.steps.size())
        return "rank " + std::to_string(a.peer_rank[a.step]) + " (" + step_name(a, a.step) + ")";
    return "this rank's own copies to complete";
}

std::string allreduce_lagging(const Col &c) {
    const Allreduce &a = *c.ar;
    if (c.round == 0 || c.p.size == 0) return "";
    std::string who;
    for (size_t n = 0; n < a.steps.size(); ++n)
        if ((a.shape.redundant() || !a.steps[n].send) && !stamp_in(c, n))
            who += (who.empty() ? "" : ", ") + ("rank " + std::to_string(a.peer_rank[n]));
    return who;
}

}  // namespace acpx::middle
