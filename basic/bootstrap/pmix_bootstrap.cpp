// PMIx client bootstrap: the path to mpirun (Open MPI), prterun and
// `srun --mpi=pmix`. Start-up blobs are exchanged with Put/Commit/Fence/Get.
#include <pmix.h>

#include <string>

#include "../errors.hpp"
#include "bootstrap.hpp"

namespace acpx::basic {
namespace {

class PmixBootstrap final : public Bootstrap {
  public:
    ~PmixBootstrap() override {
        if (initialized_) PMIx_Finalize(nullptr, 0);
    }

    bool start() {
        pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
        if (rc != PMIX_SUCCESS) return report("acp_init", "PMIx", "PMIx_Init failed: %s", PMIx_Error_string(rc));
        initialized_ = true;
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me_.nspace, PMIX_RANK_WILDCARD);
        pmix_value_t *val = nullptr;
        rc = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &val);
        if (rc != PMIX_SUCCESS || !val)
            return report("acp_init", "PMIx", "cannot get the job size: %s", PMIx_Error_string(rc));
        procs_ = static_cast<int>(val->data.uint32);
        PMIX_VALUE_RELEASE(val);
        return true;
    }

    const char *name() const override { return "pmix"; }
    int rank() const override { return static_cast<int>(me_.rank); }
    int procs() const override { return procs_; }

    bool allgather(const Blob &mine, std::vector<Blob> *all, double timeout_s) override {
        const std::string key = "acpx.ag." + std::to_string(seq_++);
        pmix_value_t v;
        PMIX_VALUE_CONSTRUCT(&v);
        v.type = PMIX_BYTE_OBJECT;
        v.data.bo.bytes = reinterpret_cast<char *>(const_cast<uint8_t *>(mine.data()));
        v.data.bo.size = mine.size();
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
        if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS)
            return report("acp_init", "PMIx", "cannot publish start-up data: %s", PMIx_Error_string(rc));
        pmix_info_t info[2];
        bool collect = true;
        int timeout = static_cast<int>(timeout_s) > 0 ? static_cast<int>(timeout_s) : 1;
        PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
        PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
        pmix_proc_t job;
        PMIX_LOAD_PROCID(&job, me_.nspace, PMIX_RANK_WILDCARD);
        rc = PMIx_Fence(&job, 1, info, 2);
        if (rc != PMIX_SUCCESS) return report("acp_init", "PMIx", "fence failed: %s", PMIx_Error_string(rc));
        all->assign(procs_, {});
        for (int r = 0; r < procs_; ++r) {
            pmix_proc_t peer;
            PMIX_LOAD_PROCID(&peer, me_.nspace, static_cast<pmix_rank_t>(r));
            pmix_value_t *out = nullptr;
            rc = PMIx_Get(&peer, key.c_str(), nullptr, 0, &out);
            if (rc != PMIX_SUCCESS || !out || out->type != PMIX_BYTE_OBJECT)
                return report("acp_init", "PMIx", "no start-up data from rank %d: %s", r, PMIx_Error_string(rc));
            auto *bytes = reinterpret_cast<const uint8_t *>(out->data.bo.bytes);
            (*all)[r].assign(bytes, bytes + out->data.bo.size);
            PMIX_VALUE_RELEASE(out);
        }
        return true;
    }

    void abort(const char *msg) override {
        if (initialized_) PMIx_Abort(1, msg, nullptr, 0);
    }

  private:
    pmix_proc_t me_{};
    int procs_ = 1;
    unsigned seq_ = 0;
    bool initialized_ = false;
};

}  // namespace

std::unique_ptr<Bootstrap> make_pmix_bootstrap() {
    auto b = std::make_unique<PmixBootstrap>();
    if (!b->start()) return nullptr;
    return b;
}

}  // namespace acpx::basic
