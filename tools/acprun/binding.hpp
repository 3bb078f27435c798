// acprun --bind-to: which CPUs each rank may run on.
//   auto  (the default) core when every core gets the same number of
//         ranks (ranks <= cores, or a multiple of them), else none.
//         Unbound, two polling ranks can start on one core until the
//         kernel moves one: 3 of 19 unbound 2-rank bcasts on the 2-core
//         VM ran their first size at 7-10 us a round instead of 0.7
//         (0 of 13 bound). Crowded evenly, the ranks wait by yielding
//         (ACP_IDLE=auto), so a core's ranks take turns instead of
//         being moved: 4 ranks on 2 cores ran bcasts up to 16 KiB in
//         0.6-0.75x the unbound time (1 B: 0.57 against 0.74 us; medians
//         of 20 interleaved launches each) and allgathers of 8-512 B in
//         0.7-0.9x. From 16 KiB an allgather launch runs at one of two
//         speeds up to 1.6x apart, bound or not; the medians of 36
//         launches each were 0.78-1.19x. Crowded unevenly, binding pins
//         the imbalance the kernel would spread: 3 ranks on 2 cores ran
//         bcasts of 2-64 KiB at 1.2-1.4x and allgathers of 0.5-1 MiB at
//         1.25-1.45x the unbound time (6 launches each), so they stay
//         unbound, as Open MPI's mpirun leaves every crowded job;
//   none  the kernel places and moves ranks freely (as MPICH's Hydra);
//   core  rank r runs on core r mod cores (hwloc's cores, all their
//         hardware threads), as `mpirun --bind-to core` does. With more
//         ranks than cores the same ranks always share a core, so
//         repeated runs see the same placement: on a 2-core machine the
//         unbound 3-rank bcast times differed by up to 1.8x between runs,
//         and bound by at most 1.3x.
// Only the cores acprun itself may run on count (taskset, a batch job's
// binding): `taskset -c 0,1 acprun -n 3` crowds 3 ranks on 2 CPUs of a
// larger node, as acpx-bench calibrate's crowded run wants there.
#pragma once

#include <hwloc.h>

#include <string>

namespace acpx::launcher {

enum class BindTo { kNone, kCore, kAuto };

// "auto", "none" or "core"; false for anything else.
bool parse_bind_to(const char *text, BindTo *out);

// What auto settles on for `ranks` on `cores` (> 0): bind when each core
// gets the same number of ranks.
bool auto_binds(int ranks, int cores);

class Binding {
  public:
    Binding() = default;
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    ~Binding();

    // Reads the cores acprun may run on (for kCore and kAuto) and settles kAuto
    // for `ranks` (auto_binds; none if hwloc cannot read the machine);
    // false with *why when kCore cannot be done.
    bool init(BindTo how, int ranks, std::string *why);
    // What init settled on (kNone or kCore), and the cores it counted.
    BindTo how() const { return how_; }
    int cores() const { return cores_; }
    // In the rank's process, before exec: binds it to its core. True when
    // not binding. *where, if given, names the core and its CPUs.
    bool apply(int rank, std::string *where, std::string *why) const;

  private:
    void restrict_to_own_cpus();  // the topology to the CPUs this process may run on

    BindTo how_ = BindTo::kNone;
    hwloc_topology_t topo_ = nullptr;
    int cores_ = 0;
};

}  // namespace acpx::launcher
