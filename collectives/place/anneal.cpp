#include "anneal.hpp"

#include <cmath>
#include <random>
#include <utility>

namespace acpx::collectives::place {
namespace {

// Uniform in [0, n) by rejection: the standard distributions' algorithms
// are the library's to choose, and a seed must give the same map anywhere.
uint64_t below(std::mt19937_64 &rng, uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;)
        if (const uint64_t v = rng(); v < limit) return v % n;
}

double unit(std::mt19937_64 &rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

std::string check_params(const AnnealParams &a) {
    if (!(a.t0 > 0) || !(a.tend > 0) || !std::isfinite(a.t0)) return "T0 and Tend must be positive";
    if (!(a.t0 > a.tend)) return "T0 must exceed Tend";
    if (!(a.factor > 0 && a.factor < 1)) return "the cooling factor must lie in (0, 1)";
    if (a.trials == 0) return "trials per temperature must be at least 1";
    if (levels_of(a) > 100000) return "T0, Tend and the factor make over 100,000 levels";
    return "";
}

uint32_t levels_of(const AnnealParams &a) {
    uint32_t n = 0;
    for (double t = a.t0; t > a.tend && n <= 100000; t *= a.factor) ++n;
    return n;
}

namespace {
// A cost computed anew for every placement.
class WholeCost final : public MoveCost {
  public:
    explicit WholeCost(const std::function<double(const std::vector<uint32_t> &)> &f) : f_(f) {}
    double reset(const std::vector<uint32_t> &map) override { return f_(map); }
    double propose(const std::vector<uint32_t> &map, uint32_t, uint32_t) override { return f_(map); }
    void commit() override {}

  private:
    const std::function<double(const std::vector<uint32_t> &)> &f_;
};
}  // namespace

AnnealResult anneal(uint32_t tasks, const std::vector<uint32_t> &slots,
                    const std::function<double(const std::vector<uint32_t> &)> &cost, const AnnealParams &a,
                    const std::vector<uint32_t> &pinned) {
    WholeCost whole(cost);
    return anneal(tasks, slots, whole, a, pinned);
}

AnnealResult anneal(uint32_t tasks, const std::vector<uint32_t> &slots, MoveCost &cost, const AnnealParams &a,
                    const std::vector<uint32_t> &pinned) {
    std::mt19937_64 rng(a.seed);
    auto pin_of = [&](uint32_t t) { return t < pinned.size() && pinned[t] < slots.size() ? pinned[t] : UINT32_MAX; };
    // holder[s]: the task on slot s, or tasks (free); at[t]: task t's slot.
    std::vector<uint32_t> holder(slots.size(), tasks), at(tasks);
    std::vector<uint8_t> fixed_slot(slots.size(), 0);
    for (uint32_t t = 0; t < tasks; ++t)
        if (const uint32_t s = pin_of(t); s != UINT32_MAX) fixed_slot[s] = 1, holder[s] = t, at[t] = s;
    // A random start: the free slots shuffled, taken in that order by the
    // tasks that are not pinned.
    std::vector<uint32_t> order;
    for (uint32_t s = 0; s < slots.size(); ++s)
        if (!fixed_slot[s]) order.push_back(s);
    for (size_t s = order.size(); s > 1; --s) std::swap(order[s - 1], order[below(rng, s)]);
    AnnealResult r;
    r.map.resize(tasks);
    for (uint32_t t = 0, next = 0; t < tasks; ++t) {
        if (pin_of(t) == UINT32_MAX) at[t] = order[next++], holder[at[t]] = t;
        r.map[t] = slots[at[t]];
    }
    double now = cost.reset(r.map);
    const double scale = a.normalize && now > 0 ? 1 / now : 1;
    std::vector<uint32_t> best = r.map, best_at = at;
    double best_cost = now;
    uint32_t until_asked = AnnealParams::kDeadlineEvery;
    for (double temp = a.t0; temp > a.tend && !r.cut; temp *= a.factor) {
        uint32_t accepted = 0, tried = 0;
        for (uint32_t k = 0; k < a.trials; ++k) {
            if (a.out_of_time && --until_asked == 0) {
                until_asked = AnnealParams::kDeadlineEvery;
                if ((r.cut = a.out_of_time())) break;
            }
            const auto t = static_cast<uint32_t>(below(rng, tasks));
            const auto s = static_cast<uint32_t>(below(rng, slots.size()));
            const uint32_t from = at[t], other = holder[s];
            // Onto its own node nothing changes; a pinned task, or its slot, stays.
            if (slots[s] == slots[from] || fixed_slot[from] || fixed_slot[s]) continue;
            ++tried;
            r.map[t] = slots[s];
            if (other < tasks) r.map[other] = slots[from];
            const double next = cost.propose(r.map, t, other < tasks ? other : MoveCost::kNoTask);
            const double delta = (next - now) * scale;
            if (delta <= 0 || unit(rng) < std::exp(-delta / temp)) {
                cost.commit();
                ++accepted;
                now = next;
                at[t] = s;
                holder[s] = t;
                holder[from] = other;
                if (other < tasks) at[other] = from;
                if (now < best_cost) best_cost = now, best = r.map, best_at = at;
            } else {
                r.map[t] = slots[from];
                if (other < tasks) r.map[other] = slots[s];
            }
        }
        r.levels.push_back({temp, tried, accepted});
    }
    // The search ends cold, where it rarely climbs; the best placement it
    // passed is what it found.
    r.map = std::move(best);
    r.slot = std::move(best_at);
    r.cost = best_cost;
    return r;
}

}  // namespace acpx::collectives::place
