// The root finding the crowded costs are solved with: each try is a
// simulated round.
#pragma once

#include <cmath>
#include <limits>

namespace acpx::collectives::model {

// x in [lo, hi] where the growing f(x) reaches want: lo if f(lo) does
// already, hi if f(hi) does not. Each f is a simulated round (eight runs
// of eight rounds), and halving the range 30 times was most of a crowded
// create's time (4-rank bcasts, 1 KiB-4 MiB: 4.3-5.1 s of CPU on the
// 2-core VM). So: regula falsi, with the Illinois rule against a stuck
// end (the end that stays twice has its distance to want halved), and
// halving where a line has nothing to go on (an infinite round). It
// stops once f(x) is within 1e-5 of want, or the range within 1e-7 of
// its start (a simulated round is a staircase at fine scale). A round
// need not grow everywhere: where it crosses want more than once, this
// may find another crossing than halving did.
// f_lo: f(lo), where the caller has it (NaN: not yet).
template <typename F>
double solve(F f, double want, double lo, double hi, double f_lo = std::numeric_limits<double>::quiet_NaN()) {
    double flo = (std::isnan(f_lo) ? f(lo) : f_lo) - want;
    if (!(flo < 0)) return lo;
    double fhi = f(hi) - want;
    if (fhi <= 0) return hi;
    const double tol_x = 1e-7 * (hi - lo), tol_f = 1e-5 * std::abs(want);
    int stayed = 0;  // which end the last step kept: -1 lo, 1 hi
    for (int i = 0; i < 100 && hi - lo > tol_x; ++i) {
        double x = std::isfinite(fhi) ? lo - flo * (hi - lo) / (fhi - flo) : (lo + hi) / 2;
        if (!(x > lo && x < hi)) x = (lo + hi) / 2;
        const double fx = f(x) - want;
        if (std::abs(fx) <= tol_f) return x;
        if (fx < 0) {
            lo = x, flo = fx;
            if (stayed == 1) fhi /= 2;
            stayed = 1;
        } else {  // a NaN round counts as past want, as the halving took it
            hi = x, fhi = fx;
            if (stayed == -1) flo /= 2;
            stayed = -1;
        }
    }
    return (lo + hi) / 2;
}

// The cost x >= 0 that makes round(x) take `want`; 0 where round(0) is
// within 10% of it already (a quarter turn of the spread switches):
// forward costs, which only ever add.
template <typename F>
double added_cost(F round, double want) {
    const double bare = round(0);
    return bare < 0.9 * want ? solve(round, want, 0, want, bare) : 0;
}

}  // namespace acpx::collectives::model
