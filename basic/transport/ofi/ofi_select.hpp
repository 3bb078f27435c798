// Choosing a libfabric provider: what acpx asks of one, and, when nothing
// matches, one line saying which requirement the requested provider
// (FI_PROVIDER) lacks.
#pragma once

#include <rdma/fabric.h>

#include <string>

#include "fabric_library.hpp"

namespace acpx::basic::ofi {

// The memory-registration modes acpx knows how to honour.
constexpr uint64_t kMrModesHandled = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;

struct Selection {
    fi_info *info = nullptr;        // owned by the caller: Fabric::freeinfo
    bool provider_atomics = false;  // FI_ATOMIC granted
};

// fi_getinfo for a reliable-datagram endpoint with messages, RMA,
// delivery-complete writes and in-order sends, atomics when the provider
// has them. On failure reports (function acp_init) and returns info null.
Selection select_provider(const Fabric &fab);

// "shm, tcp;ofi_rxm, ..." : the providers libfabric offers here, for errors
// and acpx-info.
std::string available_providers(const Fabric &fab);

}  // namespace acpx::basic::ofi
