#include "fabric_library.hpp"

#include <dlfcn.h>

#include "acpx_config.h"

namespace acpx::basic::ofi {
namespace {

// One entry point at the version configure found (ACPX_FI_VERSION_*).
template <typename F>
bool find(void *lib, const char *name, const char *version, F *out, std::string *why) {
    *out = reinterpret_cast<F>(dlvsym(lib, name, version));
    if (*out) return true;
    *why = std::string(ACPX_FI_SONAME " has no ") + name + "@" + version +
           " (not libfabric, or older than the one acpx was built with)";
    return false;
}

}  // namespace

bool load_fabric(Fabric *out, std::string *why) {
    // Local: its names do not join the program's. No delete: providers
    // keep threads and handlers after the fabric closes.
    void *lib = dlopen(ACPX_FI_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        const char *e = dlerror();
        *why = std::string("cannot open ") + ACPX_FI_SONAME + ": " + (e ? e : "unknown error");
        return false;
    }
    Fabric f;
    const bool ok = find(lib, "fi_getinfo", ACPX_FI_VERSION_GETINFO, &f.getinfo, why) &&
                    find(lib, "fi_freeinfo", ACPX_FI_VERSION_FREEINFO, &f.freeinfo, why) &&
                    find(lib, "fi_dupinfo", ACPX_FI_VERSION_DUPINFO, &f.dupinfo, why) &&
                    find(lib, "fi_fabric", ACPX_FI_VERSION_FABRIC, &f.fabric, why) &&
                    find(lib, "fi_strerror", ACPX_FI_VERSION_STRERROR, &f.strerror, why) &&
                    find(lib, "fi_version", ACPX_FI_VERSION_VERSION, &f.version, why);
    dlclose(lib);  // RTLD_NODELETE: only the reference goes
    if (ok) *out = f;
    return ok;
}

}  // namespace acpx::basic::ofi
