// Which physical cores the host gives ranks 0 and 1, told by how long a
// cache line takes between them, and samples measured while that is the
// usual placement.
//
// On a VM the host runs each vCPU on a core of its choosing and moves it.
// On the 2-core Zen 4 KVM guest this project is measured on, a line took
// 44-63 ns one way between the two vCPUs most of the time (15-36 in some
// runs), and 199-350 ns for stretches of 0.1 s to over 8 s (about a fifth
// of the probes 20 ms apart; runs of those are where the host put them on
// different dies). In those stretches every on-node copy is slower: a
// 2-rank 16 KiB bcast round took 9-10 us against 2.0-2.6, a 16 KiB write
// then read across the pair 10-11 us against 2.6. acpx-bench calibrate
// and model-check took their samples in either, so a calibration and its
// check a minute later could differ 4x at one size with nothing in acpx
// changed.
//
// Binding (acprun --bind-to core) pins ranks to vCPUs, not vCPUs to cores;
// nothing in the guest pins those. So a sample is taken only while the
// pair is near: within kFar of the fastest one-way time seen in the run
// or under kNearNs (a pair sharing a cache; placement.cpp), both just
// before and just after it; before, while the pair is far, every
// rank sleeps (the idle vCPU is placed again when it wakes) and looks
// again. On a machine whose placement does not move (bare metal, bound),
// the probe reads the same each time and nothing is ever measured again.
// The fastest time is the least of every probe (and of the calibration's,
// prefer()). A sample is measured again while the pair stays far, up to
// kPatienceS (90 s) from the first far probe; past that the pair is taken
// as it now is (the floor moves up to it, said on stderr), so a job whose
// ranks sit apart for good waits once, not at every sample. Before the
// first sample, a fastest time over kNearNs (a run that began far, or a
// pair sharing no cache) is waited on for up to 30 s, probing every 20 ms
// for a pair under it; the summary says so.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace acpx::bench {

class Placement {
  public:
    // Collective. Maps a line pair between ranks 0 and 1 and finds the
    // fastest one-way time (kFloorProbes probes, 10 ms apart). Inactive
    // (every sample taken as it comes) on one rank, when the two are on
    // different nodes, or when the pair cannot be mapped. Not `patient`
    // (acpx-bench --quick): it probes, but takes every sample as it comes.
    explicit Placement(bool patient = true);
    ~Placement();
    Placement(const Placement &) = delete;
    Placement &operator=(const Placement &) = delete;

    bool active() const;
    // The fastest one-way ns seen (0 when inactive): what a calibration
    // records (pair_ns), so that later runs take theirs on as near a pair.
    double floor_ns() const;
    // Takes ns (a calibration's pair_ns) as the fastest if it is faster:
    // a run that started in a far stretch then waits for a near pair too.
    void prefer(double ns);
    // Collective: waits for a near pair as measure() does (at most
    // kMaxSleeps sleeps); the pair's one-way ns then (0 when inactive).
    double wait_near();
    // Collective: the pair's one-way ns now (0 when inactive).
    double probe_now();
    // measure(&v), on a near pair (see the top): collective, every rank
    // takes the same turns. False if measure fails.
    bool measure(const std::function<bool(double *)> &measure, double *v);
    // "ranks 0-1: 61 ns one way at best; 12 of 840 samples waited for a near
    // pair (31 sleeps of 20 ms), 3 measured again, 0 taken far (the pair far
    // for over 90 s)", and "; at the start 209 ns at best, then a pair under
    // 120 ns after 2.1 s" where the run began far: for the output.
    std::string summary() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace acpx::bench
