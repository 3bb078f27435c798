// The allreduce's shape (allreduce.hpp): its slots, each member's steps,
// and the element-wise ops. Pure: no runtime, no memory but the caller's.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "allreduce.hpp"

namespace acpx::middle {
namespace ar {

Shape::Shape(uint32_t n, uint32_t mid, uint32_t end, bool halve, size_t cnt, size_t el)
    : members(n ? n : 1), m(mid), l(end), halving(halve), count(cnt), elem(el ? el : 8) {
    p2 = std::bit_floor(members);
    k = static_cast<uint32_t>(std::countr_zero(p2));
    d = k / 2;
}

uint32_t partner_bit(const Shape &s, uint32_t n) {
    if (s.halving) return n < s.k ? n : s.k - 1 - (n - s.k);
    return n < s.k ? n : n < s.k + s.m ? n - s.k : n - s.k - s.m;
}

Shape shape_of(const Params &p) {
    const size_t elem = size_of(p.dtype);
    return Shape(p.members, p.mid, p.end, p.algo == kRabenseifner, elem ? p.size / elem : 0, elem);
}

size_t slot_elems(const Shape &s, uint32_t id) {
    if (!s.halving || id < kStage0) return s.count;
    const uint32_t n = id - kStage0;
    const uint32_t level = n < s.k ? n + 1 : s.k - (n - s.k);  // its range is 1 / 2^level of the vector
    return (s.count + (size_t{1} << level) - 1) >> level;
}

size_t data_at(size_t bytes) { return bytes <= 56 ? 8 : 64; }
size_t data_bytes(size_t bytes) { return (bytes + 7) / 8 * 8; }
size_t slot_stride(size_t bytes) { return (data_at(bytes) + data_bytes(bytes) + 63) / 64 * 64; }

namespace {
size_t stride_of(const Shape &s, uint32_t id) { return slot_stride(slot_elems(s, id) * s.elem); }
// Bytes of both parities of member j's slots before slot `id`, in their
// order: fold-in (if it folds one in), result (if it is folded), then its
// exchanges (if it is not); SIZE_MAX if j has no slot `id`. Arithmetic
// only: a wait polls its slot's stamp through it. (Slots of one size
// but Rabenseifner's: its loop walks at most 2K of them.)
size_t before(const Shape &s, uint32_t j, uint32_t id) {
    size_t at = 0;
    if (s.folds_in(j)) {
        if (id == kFoldIn) return at;
        at += 2 * stride_of(s, kFoldIn);
    }
    if (s.folded(j)) return id == kResultIn ? at : SIZE_MAX;
    if (id < kStage0 || id - kStage0 >= s.exchanges()) return SIZE_MAX;
    if (!s.halving) return at + 2 * size_t{id - kStage0} * stride_of(s, kStage0);
    for (uint32_t n = kStage0; n < id; ++n) at += 2 * stride_of(s, n);
    return at;
}
}  // namespace

size_t slot_offset(const Shape &s, uint32_t j, uint32_t id, uint64_t round) {
    const size_t at = before(s, j, id);
    return at == SIZE_MAX ? SIZE_MAX : kHeader + at + stride_of(s, id) * (round & 1);
}

size_t ctl_bytes(const Shape &s, uint32_t j) {
    if (s.folded(j)) return kHeader + 2 * stride_of(s, kResultIn);
    const uint32_t last = kStage0 + s.exchanges() - 1;
    return s.exchanges() ? kHeader + before(s, j, last) + 2 * stride_of(s, last)
                         : kHeader + (s.folds_in(j) ? 2 * stride_of(s, kFoldIn) : 0);
}

std::vector<Step> steps_of(const Shape &s, uint32_t me) {
    std::vector<Step> out;
    const size_t all = s.count;
    if (s.redundant()) {  // P is a power of two: nobody folds
        for (uint32_t n = 0; n < s.exchanges(); ++n)
            out.push_back({true, false, kStage0 + n, me ^ (uint32_t{1} << partner_bit(s, n)), 0, all, false});
        return out;
    }
    if (s.folded(me)) {
        out.push_back({true, false, kFoldIn, me - s.p2, 0, all, false});
        out.push_back({false, false, kResultIn, me - s.p2, 0, all, true});
        return out;
    }
    if (s.folds_in(me)) out.push_back({false, false, kFoldIn, me + s.p2, 0, all, false});
    // Halving: the range this member still reduces, split at each stage:
    // the lower member keeps the lower half. ranges[st]: the range it
    // reduces after stage st (what it gathers back in reverse).
    size_t lo = 0, hi = all;
    std::vector<std::pair<size_t, size_t>> owned;
    for (uint32_t st = 0; st < s.k; ++st) {
        const uint32_t peer = me ^ (uint32_t{1} << st);
        if (!s.halving) {
            out.push_back({true, false, kStage0 + st, peer, 0, all, false});
            out.push_back({false, false, kStage0 + st, peer, 0, all, false});
            continue;
        }
        const size_t mid = lo + (hi - lo) / 2;
        const bool lower = me < peer;
        const size_t keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
        const size_t give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
        out.push_back({true, false, kStage0 + st, peer, give_lo, give_hi - give_lo, false});
        out.push_back({false, false, kStage0 + st, peer, keep_lo, keep_hi - keep_lo, false});
        owned.push_back({lo, hi});  // before the split: what this member and its partner hold between them
        lo = keep_lo, hi = keep_hi;
    }
    for (uint32_t t = 0; t < s.k && s.halving; ++t) {
        // Gathering stage t: with the partner of stage K-1-t, each sends the
        // range it holds reduced; together they hold that stage's range.
        const uint32_t st = s.k - 1 - t, peer = me ^ (uint32_t{1} << st);
        const auto [whole_lo, whole_hi] = owned[st];
        const size_t got_lo = lo == whole_lo ? hi : whole_lo, got_hi = lo == whole_lo ? whole_hi : lo;
        out.push_back({true, false, kStage0 + s.k + t, peer, lo, hi - lo, false});
        out.push_back({false, false, kStage0 + s.k + t, peer, got_lo, got_hi - got_lo, true});
        lo = whole_lo, hi = whole_hi;
    }
    if (s.folds_in(me)) out.push_back({true, true, kResultIn, me + s.p2, 0, all, false});
    return out;
}

std::vector<uint32_t> neighbours(const Shape &s, uint32_t me) {
    std::vector<uint32_t> out;
    for (const Step &st : steps_of(s, me)) out.push_back(st.peer);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
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
// (doc/measurements/2026-12-05-allreduce.md). Not under ThreadSanitizer:
// the load-time pick runs before its runtime starts and crashes there.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
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

}  // namespace acpx::middle
