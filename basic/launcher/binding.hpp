// acprun --bind-to: which CPUs each rank may run on.
//   none  the kernel places and moves ranks freely (the default, as with
//         MPICH's Hydra);
//   core  rank r runs on core r mod cores (hwloc's cores, all their
//         hardware threads), as `mpirun --bind-to core` does. With more
//         ranks than cores the same ranks always share a core, so
//         repeated runs see the same placement: on a 2-core machine the
//         unbound 3-rank bcast times differed by up to 1.8x between runs,
//         and bound by at most 1.3x.
#pragma once

#include <hwloc.h>

#include <string>

namespace acpx::launcher {

enum class BindTo { kNone, kCore };

// "none" or "core"; false for anything else.
bool parse_bind_to(const char *text, BindTo *out);

class Binding {
  public:
    Binding() = default;
    Binding(const Binding &) = delete;
    Binding &operator=(const Binding &) = delete;
    ~Binding();

    // Reads the machine's cores (for kCore); false with *why on failure.
    bool init(BindTo how, std::string *why);
    // In the rank's process, before exec: binds it to its core. True when
    // not binding. *where, if given, names the core and its CPUs.
    bool apply(int rank, std::string *where, std::string *why) const;

  private:
    BindTo how_ = BindTo::kNone;
    hwloc_topology_t topo_ = nullptr;
    int cores_ = 0;
};

}  // namespace acpx::launcher
