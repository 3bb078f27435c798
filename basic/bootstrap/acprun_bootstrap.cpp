// Client side of acprun's control socket: a Unix-domain socket in a 0700
// directory, joined with the job's random cookie.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "../errors.hpp"
#include "bootstrap.hpp"
#include "wire.hpp"

namespace acpx::basic {
namespace {

constexpr size_t kMaxBlob = 64u << 20;

class AcprunBootstrap final : public Bootstrap {
  public:
    ~AcprunBootstrap() override {
        if (fd_ >= 0) ::close(fd_);
    }

    bool start(double timeout_s) {
        const char *path = std::getenv(wire::kEnvSocket);
        const char *cookie = std::getenv(wire::kEnvCookie);
        const char *rank = std::getenv(wire::kEnvRank);
        const char *procs = std::getenv(wire::kEnvProcs);
        if (!path || !cookie || !rank || !procs || std::strlen(cookie) != wire::kCookieChars)
            return report("acp_init", "acprun environment",
                          "ACP_RUN_SOCKET is set but ACP_RUN_COOKIE/RANK/PROCS are "
                          "missing or malformed; start the program with acprun");
        rank_ = std::atoi(rank);
        procs_ = std::atoi(procs);
        if (procs_ < 1 || rank_ < 0 || rank_ >= procs_)
            return report("acp_init", "acprun environment", "rank %s of %s is invalid", rank, procs);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (std::strlen(path) >= sizeof addr.sun_path)
            return report("acp_init", "ACP_RUN_SOCKET", "path too long: %s", path);
        std::strcpy(addr.sun_path, path);
        fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
            return report("acp_init", "ACP_RUN_SOCKET", "cannot connect to acprun at %s: %s", path,
                          std::strerror(errno));
        const uint32_t r = static_cast<uint32_t>(rank_);
        const int ms = static_cast<int>(timeout_s * 1000);
        if (!wire::write_all(fd_, cookie, wire::kCookieChars, ms) || !wire::write_all(fd_, &r, sizeof r, ms))
            return report("acp_init", "acprun", "cannot send the job cookie to acprun");
        return true;
    }

    const char *name() const override { return "acprun"; }
    int rank() const override { return rank_; }
    int procs() const override { return procs_; }

    bool allgather(const Blob &mine, std::vector<Blob> *all, double timeout_s) override {
        const int ms = static_cast<int>(timeout_s * 1000);
        if (!wire::write_frame(fd_, mine, ms)) return report("acp_init", "bootstrap", "lost the connection to acprun");
        uint64_t count = 0;
        if (!wire::read_all(fd_, &count, sizeof count, ms) || count != static_cast<uint64_t>(procs_))
            return report("acp_init", "bootstrap",
                          "no answer from acprun within %.0f s: some rank did not reach "
                          "acp_init",
                          timeout_s);
        all->assign(procs_, {});
        for (auto &b : *all)
            if (!wire::read_frame(fd_, &b, kMaxBlob, ms))
                return report("acp_init", "bootstrap", "truncated answer from acprun");
        return true;
    }

  private:
    int fd_ = -1;
    int rank_ = 0;
    int procs_ = 1;
};

class SingletonBootstrap final : public Bootstrap {
  public:
    const char *name() const override { return "singleton"; }
    int rank() const override { return 0; }
    int procs() const override { return 1; }
    bool allgather(const Blob &mine, std::vector<Blob> *all, double) override {
        all->assign(1, mine);
        return true;
    }
};

}  // namespace

std::unique_ptr<Bootstrap> make_acprun_bootstrap(double timeout_s) {
    auto b = std::make_unique<AcprunBootstrap>();
    if (!b->start(timeout_s)) return nullptr;
    return b;
}

std::unique_ptr<Bootstrap> make_singleton_bootstrap() { return std::make_unique<SingletonBootstrap>(); }

std::unique_ptr<Bootstrap> make_bootstrap(double timeout_s) {
    if (std::getenv(wire::kEnvSocket)) return make_acprun_bootstrap(timeout_s);
    if (std::getenv("PMIX_NAMESPACE") || std::getenv("PMIX_RANK")) return make_pmix_bootstrap();
    // Started by a launcher acpx cannot talk to (PMI-1/2: MPICH's hydra,
    // srun without --mpi=pmix): running on as a singleton would make N
    // independent 1-rank jobs that each think they are the whole job.
    static constexpr const char *kSizeVars[] = {"PMI_SIZE",     "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
                                                "SLURM_NTASKS", "MV2_COMM_WORLD_SIZE",  "ALPS_APP_PE"};
    for (const char *var : kSizeVars)
        if (const char *v = std::getenv(var); v && std::strtol(v, nullptr, 10) > 1)
            return report("acp_init", "bootstrap",
                          "this process was started by a launcher acpx cannot join (%s=%s, and no PMIx or "
                          "acprun in the environment): start it with acprun, with a PMIx mpirun (Open MPI, "
                          "PRRTE) or with srun --mpi=pmix",
                          var, v),
                   nullptr;
    return make_singleton_bootstrap();
}

}  // namespace acpx::basic
