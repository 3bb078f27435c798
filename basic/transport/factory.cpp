// ACP_TRANSPORT -> the transport object. Config::load has already checked
// that the name is one this build has.
#include "../config.hpp"
#include "acpx_config.h"
#include "transport.hpp"

namespace acpx::basic {

std::unique_ptr<Transport> make_transport(const Config &cfg, int rank, int procs) {
#if ACPX_HAVE_OFI
    if (cfg.transport == "ofi") return make_ofi_transport(rank, procs, cfg.ofi_agent_atomics);
#endif
#if ACPX_HAVE_UCX
    if (cfg.transport == "ucx") return make_ucx_transport(rank, procs);
#endif
    (void)cfg, (void)rank, (void)procs;
    return nullptr;
}

}  // namespace acpx::basic
