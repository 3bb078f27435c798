#include "ofi_select.hpp"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <cstdlib>
#include <set>

#include "../../errors.hpp"

namespace acpx::basic::ofi {
namespace {

constexpr uint32_t kApiVersion = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);

// The requirements, in the order a provider is checked against them: each
// step adds one, so the first step that finds nothing names what is missing.
enum Step { kEndpoint, kCaps, kMrModes, kDeliveryComplete, kAll };

fi_info *hints_up_to(const Fabric &fab, Step step, bool atomics) {
    fi_info *h = fab.allocinfo();
    if (!h) return nullptr;
    h->ep_attr->type = FI_EP_RDM;
    h->mode = FI_CONTEXT | FI_CONTEXT2;  // every operation carries an fi_context2
    if (step >= kCaps) h->caps = FI_MSG | FI_RMA | (atomics ? FI_ATOMIC : 0);
    if (step >= kMrModes) h->domain_attr->mr_mode = kMrModesHandled;
    if (step >= kDeliveryComplete) h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (step >= kAll) {
        h->domain_attr->threading = FI_THREAD_DOMAIN;  // the runtime serialises calls
        h->domain_attr->av_type = FI_AV_TABLE;         // fi_addr == rank
    }
    return h;
}

fi_info *getinfo(const Fabric &fab, Step step, bool atomics) {
    fi_info *h = hints_up_to(fab, step, atomics);
    fi_info *out = nullptr;
    const int rc = fab.getinfo(kApiVersion, nullptr, nullptr, 0, h, &out);
    fab.freeinfo(h);
    return rc == 0 ? out : nullptr;
}

const char *requested() {
    const char *p = std::getenv("FI_PROVIDER");
    return (p && *p) ? p : "(any)";
}

}  // namespace

std::string available_providers(const Fabric &fab) {
    fi_info *all = nullptr;
    if (fab.getinfo(kApiVersion, nullptr, nullptr, 0, nullptr, &all) != 0) return "none";
    std::set<std::string> names;
    for (fi_info *i = all; i; i = i->next) names.insert(i->fabric_attr->prov_name);
    fab.freeinfo(all);
    std::string s;
    for (const auto &n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "none" : s;
}

Selection select_provider(const Fabric &fab) {
    if (fi_info *i = getinfo(fab, kAll, true)) return {i, true};
    if (fi_info *i = getinfo(fab, kAll, false)) return {i, false};
    static const char *const kMissing[] = {
        "is not available here or has no reliable-datagram (FI_EP_RDM) endpoint",
        "lacks messages and RMA (FI_MSG, FI_RMA) on reliable-datagram endpoints",
        "needs a memory-registration mode acpx does not handle (it handles FI_MR_LOCAL, "
        "VIRT_ADDR, ALLOCATED, PROV_KEY, ENDPOINT)",
        "lacks FI_DELIVERY_COMPLETE, which acpx needs to know a write has landed",
        "lacks FI_THREAD_DOMAIN threading or an FI_AV_TABLE address vector",
    };
    int step = kEndpoint;
    for (; step < kAll; ++step) {
        fi_info *i = getinfo(fab, static_cast<Step>(step), false);
        if (!i) break;
        fab.freeinfo(i);
    }
    // With FI_PROVIDER set, libfabric hides every other provider from
    // fi_getinfo, so they can only be listed without it.
    const std::string others = std::getenv("FI_PROVIDER") && *std::getenv("FI_PROVIDER")
                                   ? "acpx-info with FI_PROVIDER unset lists the providers here"
                                   : "providers here: " + available_providers(fab);
    report("acp_init", "FI_PROVIDER", "libfabric provider '%s' %s (libfabric %u.%u; %s)", requested(), kMissing[step],
           FI_MAJOR(fab.version()), FI_MINOR(fab.version()), others.c_str());
    return {};
}

}  // namespace acpx::basic::ofi
