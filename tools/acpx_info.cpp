// acpx-info: what this acpx build has and would use here (like ucx_info):
// version, transports built in, the UCX transports and devices and the
// libfabric providers found, the
// bootstrap this process would use, the machine (hwloc), and every
// configuration variable with its default, current value and help.
#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "acpx_config.h"
#if ACPX_HAVE_UCX
#include <uct/api/uct.h>
#include <ucp/api/ucp.h>
#endif
#include "basic/bootstrap/wire.hpp"
#include "basic/config.hpp"
#if ACPX_HAVE_OFI
#include "basic/transport/ofi/fabric_library.hpp"
#endif
#include "collectives/algorithms.hpp"
#include "collectives/model/calibration.hpp"

namespace {

#if ACPX_HAVE_OFI
// Each provider offering reliable-datagram endpoints, once, with its domains.
void print_ofi_providers() {
    acpx::basic::ofi::Fabric fab;
    std::string why;
    if (!acpx::basic::ofi::load_fabric(&fab, &why)) {
        std::printf("libfabric: %s\n", why.c_str());
        return;
    }
    std::printf("libfabric %u.%u providers with reliable-datagram endpoints (FI_PROVIDER picks):\n",
                FI_MAJOR(fab.version()), FI_MINOR(fab.version()));
    fi_info *hints = fab.allocinfo();
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_RMA;
    fi_info *all = nullptr;
    if (fab.getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0, hints, &all) == 0) {
        std::set<std::string> seen;
        for (fi_info *i = all; i; i = i->next) {
            const std::string line = std::string(i->fabric_attr->prov_name) + " (domain " + i->domain_attr->name + ")";
            if (seen.insert(line).second) std::printf("  %s\n", line.c_str());
        }
        fab.freeinfo(all);
    } else {
        std::printf("  (none)\n");
    }
    fab.freeinfo(hints);
    const char *p = std::getenv("FI_PROVIDER");
    std::printf("  in use: FI_PROVIDER=%s\n", p && *p ? p : "(unset: the first above)");
}
#endif

#if ACPX_HAVE_UCX
void print_ucx_transports() {
    std::printf("UCX %s transports and devices:\n", ucp_get_version_string());
    uct_component_h *components = nullptr;
    unsigned ncomp = 0;
    if (uct_query_components(&components, &ncomp) != UCS_OK) {
        std::printf("  (cannot query UCX components)\n");
        return;
    }
    std::set<std::string> seen;
    for (unsigned c = 0; c < ncomp; ++c) {
        uct_component_attr_t ca{};
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_NAME | UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
        if (uct_component_query(components[c], &ca) != UCS_OK) continue;
        std::vector<uct_md_resource_desc_t> mds(ca.md_resource_count);
        ca.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        ca.md_resources = mds.data();
        if (uct_component_query(components[c], &ca) != UCS_OK) continue;
        for (unsigned m = 0; m < ca.md_resource_count; ++m) {
            uct_md_config_t *cfg = nullptr;
            uct_md_h md = nullptr;
            if (uct_md_config_read(components[c], nullptr, nullptr, &cfg) != UCS_OK) continue;
            const ucs_status_t st = uct_md_open(components[c], mds[m].md_name, cfg, &md);
            uct_config_release(cfg);
            if (st != UCS_OK) continue;
            uct_tl_resource_desc_t *tls = nullptr;
            unsigned ntl = 0;
            if (uct_md_query_tl_resources(md, &tls, &ntl) == UCS_OK) {
                for (unsigned t = 0; t < ntl; ++t) {
                    std::string line = std::string(tls[t].tl_name) + "/" + tls[t].dev_name;
                    if (seen.insert(line).second) std::printf("  %s\n", line.c_str());
                }
                uct_release_tl_resource_list(tls);
            }
            uct_md_close(md);
        }
    }
    uct_release_component_list(components);
    const char *tls = std::getenv("UCX_TLS");
    std::printf("  in use: UCX_TLS=%s\n", tls && *tls ? tls : "(unset: UCX chooses among all)");
}
#endif

void print_machine() {
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) return;
    const int pkgs = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    const int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    const int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    std::printf("machine (hwloc %s): %d package(s), %d NUMA node(s), %d core(s), %d hardware thread(s)\n",
                HWLOC_VERSION, pkgs, numa, cores, pus);
    hwloc_topology_destroy(topo);
}

const char *bootstrap_here() {
    if (std::getenv(acpx::wire::kEnvSocket)) return "acprun";
    if (std::getenv("PMIX_NAMESPACE") || std::getenv("PMIX_RANK")) return "pmix";
    return "singleton (no launcher: a job of one process)";
}

}  // namespace

// Every configuration variable, by when it is read; the algorithms the
// collectives' variables name; and the model's calibration a create would
// load now.
void print_variables() {
    using When = acpx::basic::ConfigVar::When;
    for (const When when : {When::kInit, When::kCreate}) {
        std::printf(when == When::kInit ? "configuration variables, read at acp_init (name, default, current, help):\n"
                                        : "persistent collectives' variables, read at each create:\n");
        for (const auto &v : acpx::basic::config_vars()) {
            if (v.when != when) continue;
            const char *cur = acpx::basic::config_env(v.name);
            std::printf("  %-22s default %-9s current %-8s %s\n", v.name, v.default_value, cur ? cur : "-", v.help);
        }
    }
    std::printf("  bcast algorithms: %s\n", acpx::collectives::bcast_algo_names().c_str());
    std::printf("  allgather algorithms: %s\n", acpx::collectives::allgather_algo_names().c_str());
    std::printf("  allreduce algorithms: butterfly, rabenseifner (butterfly:M,L: seed 001's redundant exchanges)\n");
    namespace cm = acpx::collectives::model;
    cm::Calibration cal;
    std::string why;
    if (!cm::load_calibration(&cal, &why, 0, acpx::basic::config_env("ACP_CALIBRATION")))
        std::printf("  calibration: unusable: %s\n", why.c_str());
    else if (cal.source == cm::kBuiltinSource)
        std::printf(
            "  calibration: built-in defaults (%s, taken as %s); acprun -n 2 acpx-bench calibrate measures "
            "this machine\n",
            cal.machine.c_str(), cm::cores_in_use(cal, cm::online_cores()).c_str());
    else
        std::printf("  calibration: %s (%s, %s, %s)%s\n", cal.source.c_str(), cal.machine.c_str(), cal.created.c_str(),
                    cm::cores_in_use(cal, cm::online_cores()).c_str(),
                    cal.net_source == cm::kBuiltinSource ? "; between nodes the built-in curves" : "");
}

int main(int argc, char **argv) {
    if (argc > 1 && !std::strcmp(argv[1], "--variables")) {  // the names alone, one a line
        for (const auto &v : acpx::basic::config_vars()) std::printf("%s\n", v.name);
        return 0;
    }
    if (argc > 1) {
        const bool help = !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help");
        std::fprintf(help ? stdout : stderr,
                     "usage: acpx-info [--variables]\nPrints the acpx build, transports, bootstrap and configuration "
                     "variables;\n--variables: the variables' names alone, one a line.\n");
        return help ? 0 : 2;
    }
    std::printf("acpx %s\n", PACKAGE_VERSION);
    std::printf("transports built in: %s\n", acpx::basic::transports_built());
    std::printf("bootstraps built in: acprun, pmix, singleton; this process: %s\n", bootstrap_here());
    print_machine();
#if ACPX_HAVE_UCX
    print_ucx_transports();
#endif
#if ACPX_HAVE_OFI
    print_ofi_providers();
#endif
    print_variables();
    return 0;
}
