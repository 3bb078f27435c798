// k-nomial lists computed entry by entry (stored_list.hpp).
#include "stored_list.hpp"

#include <algorithm>

#include "algorithms.hpp"

namespace acpx::collectives {

KnomialList::KnomialList(uint32_t members, uint32_t root, unsigned k)
    : n_(members), root_(members ? root % members : 0), k_(std::clamp(k, 2u, kMaxRadix)) {}

KnomialList::Step KnomialList::step(uint64_t s) const {
    const uint64_t t = (uint64_t{n_} - 1) / s;  // the most j any v < s may take
    if (t >= k_) return {k_ - 1, s - 1};
    return {t, (uint64_t{n_} - 1) % s};
}

uint32_t KnomialList::index(uint64_t s, uint64_t v, uint64_t j) const {
    const Step st = step(s);
    const uint64_t before = v <= st.rem ? v * st.q : (st.rem + 1) * st.q + (v - st.rem - 1) * (st.q - 1);
    return static_cast<uint32_t>(s - 1 + before + j - 1);
}

Command KnomialList::operator[](uint32_t e) const {
    uint64_t s = 1;  // the step's span: steps before it hold s - 1 entries
    while (s * k_ < n_ && s * k_ - 1 <= e) s *= k_;
    const Step st = step(s);
    const uint64_t o = e - (s - 1), full = (st.rem + 1) * st.q;
    uint64_t v = 0, j = 0;
    if (o < full) {
        v = o / st.q;
        j = o % st.q + 1;
    } else {
        v = st.rem + 1 + (o - full) / (st.q - 1);
        j = (o - full) % (st.q - 1) + 1;
    }
    uint32_t dep = kNoDep;
    if (v > 0) {  // the entry into v: from v's highest digit's step
        uint64_t s0 = 1;
        while (s0 * k_ <= v) s0 *= k_;
        dep = index(s0, v % s0, v / s0);
    }
    return {abs(v + j * s), abs(v), dep};
}

}  // namespace acpx::collectives
