// acprun --bind-to: which CPUs each rank may run on.
//   auto  (the default) core when the ranks fit on the cores, none when
//         they outnumber them, as Open MPI's mpirun does. Unbound, two
//         polling ranks can start on one core until the kernel moves one:
//         3 of 19 unbound 2-rank bcasts on the 2-core VM ran their first
//         size at 7-10 us a round instead of 0.7 (0 of 13 bound);
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

class Binding {
  public:
    Binding() = default;
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    ~Binding();

    // Reads the cores acprun may run on (for kCore and kAuto) and settles kAuto
    // for `ranks` (core if they fit, else none; none if hwloc cannot read
    // the machine); false with *why when kCore cannot be done.
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
