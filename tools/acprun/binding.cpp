// acprun --bind-to core, with hwloc.
#include "binding.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace acpx::launcher {

bool parse_bind_to(const char *text, BindTo *out) {
    if (std::strcmp(text, "none") == 0) return *out = BindTo::kNone, true;
    if (std::strcmp(text, "core") == 0) return *out = BindTo::kCore, true;
    if (std::strcmp(text, "auto") == 0) return *out = BindTo::kAuto, true;
    return false;
}

bool auto_binds(int ranks, int cores) { return cores > 0 && (ranks <= cores || ranks % cores == 0); }

Binding::~Binding() {
    if (topo_) hwloc_topology_destroy(topo_);
}

bool Binding::init(BindTo how, int ranks, std::string *why) {
    how_ = how;
    if (how == BindTo::kNone) return true;
    bool ok = hwloc_topology_init(&topo_) == 0;
    if (!ok) *why = "hwloc cannot start";
    if (ok && !(ok = hwloc_topology_load(topo_) == 0)) *why = "hwloc cannot read this machine's topology";
    if (ok) restrict_to_own_cpus();
    if (ok) cores_ = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE);
    if (ok && !(ok = cores_ > 0)) *why = "hwloc finds no cores on this machine";
    if (how == BindTo::kAuto) {  // best effort: unbound if it cannot bind or the cores get uneven shares
        how_ = ok && auto_binds(ranks, cores_) ? BindTo::kCore : BindTo::kNone;
        return true;
    }
    return ok;
}

void Binding::restrict_to_own_cpus() {
    hwloc_bitmap_t own = hwloc_bitmap_alloc();
    // Where that cannot be read, or the restriction fails, the machine's cores stay.
    if (own && hwloc_get_cpubind(topo_, own, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(own))
        hwloc_topology_restrict(topo_, own, 0);
    hwloc_bitmap_free(own);
}

bool Binding::apply(int rank, std::string *where, std::string *why) const {
    if (how_ == BindTo::kNone) return true;
    const unsigned index = static_cast<unsigned>(rank % cores_);
    hwloc_obj_t core = hwloc_get_obj_by_type(topo_, HWLOC_OBJ_CORE, index);
    if (!core || !core->cpuset) return *why = "hwloc lost core " + std::to_string(index), false;
    // The whole process: its progress threads share the rank's core.
    if (hwloc_set_cpubind(topo_, core->cpuset, HWLOC_CPUBIND_PROCESS) != 0)
        return *why = "cannot bind to core " + std::to_string(index) + ": " + std::strerror(errno), false;
    if (where) {
        char *cpus = nullptr;
        hwloc_bitmap_list_asprintf(&cpus, core->cpuset);
        *where = "core " + std::to_string(index) + " (CPUs " + (cpus ? cpus : "?") + ")";
        free(cpus);
    }
    return true;
}

}  // namespace acpx::launcher
