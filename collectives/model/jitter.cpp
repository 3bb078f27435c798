// Seed 001's jitter simulation (jitter.hpp).
#include "jitter.hpp"

#include <algorithm>
#include <cmath>

namespace acpx::collectives::model::jitter {

double Noise::run(uint32_t p, double t, double duration) const {
    if (phase.empty()) return t + duration;
    const double ph = phase[p];
    // The window that began last at or before t (k >= 0 only in variant b).
    double k = std::floor((t - ph) / period);
    if (k >= 0 || open_at_start) {
        const double start = ph + k * period;
        if (t < start + length) t = start + length;
    }
    double end = t + duration;
    k = std::floor((t - ph) / period) + 1;
    if (!open_at_start) k = std::max(k, 0.0);
    for (double next = ph + k * period; next < end; next += period) end += length;
    return end;
}

std::vector<Exchange> exchanges(uint32_t k, uint32_t m, uint32_t l) {
    const uint32_t d = k / 2;
    std::vector<Exchange> out;
    for (uint32_t s = 0; s < d; ++s) out.push_back({s, false});
    for (uint32_t j = 0; j < m; ++j) out.push_back({j % d, true});
    for (uint32_t s = d; s < k; ++s) out.push_back({s, false});
    for (uint32_t j = 0; j < l; ++j) out.push_back({j % k, true});
    return out;
}

Finish simulate(uint32_t k, uint32_t m, uint32_t l, size_t bytes, const Costs &c, const Noise &n) {
    const uint32_t procs = uint32_t{1} << k;
    const double comm = c.comm(bytes), compute = c.compute(bytes);
    std::vector<double> now(procs, 0.0), next(procs);
    Finish f;
    auto record = [&] {
        double mx = 0, sum = 0;
        for (const double t : now) mx = std::max(mx, t), sum += t;
        f.max.push_back(mx);
        f.mean.push_back(sum / procs);
    };
    const std::vector<Exchange> ex = exchanges(k, m, l);
    for (size_t e = 0; e < ex.size(); ++e) {
        const uint32_t bit = uint32_t{1} << ex[e].bit;
        for (uint32_t p = 0; p < procs; ++p) {
            const uint32_t src = p ^ bit;
            const double rcv = n.run(src, now[src], comm);
            next[p] = ex[e].first_wins ? std::min(now[p], rcv) : std::max(now[p], rcv);
        }
        for (uint32_t p = 0; p < procs; ++p) now[p] = n.run(p, next[p], compute);
        if (e + 1 >= k + m) record();  // after the butterfly and mid: L = 0, then each end addition
    }
    if (k + m == 0) record();
    return f;
}

}  // namespace acpx::collectives::model::jitter
