// How a process learns its rank and exchanges start-up data with the other
// processes of the job. Used only at acp_init/acp_finalize: everything after
// start-up (acp_sync included) runs over the transport.
#pragma once

#include <memory>
#include <vector>

#include "../transport/transport.hpp"

namespace acpx::basic {

class Bootstrap {
  public:
    virtual ~Bootstrap() = default;
    virtual const char *name() const = 0;
    virtual int rank() const = 0;
    virtual int procs() const = 0;
    // Every rank contributes `mine`; on return all[r] is rank r's blob.
    // False (reported) on failure or when timeout_s passes.
    virtual bool allgather(const Blob &mine, std::vector<Blob> *all, double timeout_s) = 0;
    // Tells the launcher the job is failing, when it can hear it.
    virtual void abort(const char *) {}
};

// Picks the bootstrap the process was started with: acprun (ACP_RUN_SOCKET
// set), PMIx (PMIX_NAMESPACE set), or a job of one process. nullptr, with a
// report, when the chosen one cannot start.
std::unique_ptr<Bootstrap> make_bootstrap(double timeout_s);

std::unique_ptr<Bootstrap> make_acprun_bootstrap(double timeout_s);
std::unique_ptr<Bootstrap> make_pmix_bootstrap();
std::unique_ptr<Bootstrap> make_singleton_bootstrap();

}  // namespace acpx::basic
