// Seed 001's simulation of a butterfly allreduce under OS jitter: the
// pseudo-code of its Fig. 2, followed step by step, for P = 2^K processes
// with M mid and L end additions (middle/allreduce.hpp runs the same
// exchanges for real).
//
// Steps i = 1 .. 2(K+M+L); exchange e = (i + 1) / 2 in the order: K/2
// butterfly exchanges, M mid, the other butterfly exchanges, L end. Odd i:
// rcv = the partner's time after step i-1 plus comm, as the partner's
// noise stretches it (the sender's jitter); the time is max(own, rcv) on a
// butterfly exchange, min(own, rcv) on a mid or end one (the first copy
// held wins). Even i: compute, as this process's noise stretches it.
// Partners: butterfly exchange s (1..K) XOR 2^(s-1), mid j XOR 2^(j mod D),
// end j XOR 2^(j mod K) (the seed leaves them open; the runtime's are the
// same).
//
// Noise: process p is busy during [phase_p + k T, phase_p + k T + len).
// An activity that starts in such a window waits for its end; each window
// that begins while it runs lengthens it by len (also those beginning in
// the lengthened part). Variant (a): windows of every k, so some are open
// at t = 0; (b): k >= 0 only, none open at t = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace acpx::collectives::model::jitter {

// The seed's figures (section 2).
struct Costs {
    double latency = 1.0e-7;  // s
    double network = 1.0e-9;  // s/B
    double memory = 1.0e-10;  // s/B
    double comm(size_t bytes) const { return latency + network * static_cast<double>(bytes); }
    double compute(size_t bytes) const { return memory * static_cast<double>(bytes); }
};

struct Noise {
    double period = 1.0e-2, length = 1.0e-4;
    bool open_at_start = true;  // variant (a)
    std::vector<double> phase;  // per process, in [0, period); empty: no noise
    // When an activity of `duration` that process p starts at t ends.
    double run(uint32_t p, double t, double duration) const;
};

// Exchange e (0-based)'s partner bit and whether it keeps the first copy
// (mid, end) rather than waiting for both (butterfly).
struct Exchange {
    uint32_t bit;
    bool first_wins;
};
std::vector<Exchange> exchanges(uint32_t k, uint32_t m, uint32_t l);

// Per count of end additions l = 0..L: the latest and the mean finish
// time over the processes.
struct Finish {
    std::vector<double> max, mean;
};

// One trial of P = 2^k processes, M = m, L = l (m <= k / 2, l <= k).
Finish simulate(uint32_t k, uint32_t m, uint32_t l, size_t bytes, const Costs &c, const Noise &n);

}  // namespace acpx::collectives::model::jitter
