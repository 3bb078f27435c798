// Naming the failed rank that ended the job (see the header).
#include "failures.hpp"

#include <sys/wait.h>

#include <cstring>

namespace acpx::launcher {

size_t root_cause(const std::vector<Failure> &failures) {
    for (size_t i = 0; i < failures.size(); ++i)
        if (WIFSIGNALED(failures[i].wait_status)) return i;
    return 0;
}

std::string describe(const Failure &f) {
    const std::string who = "rank " + std::to_string(f.rank) + " (pid " + std::to_string(f.pid) + ")";
    if (WIFSIGNALED(f.wait_status)) {
        const int sig = WTERMSIG(f.wait_status);
        return who + " was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    }
    return who + " exited with status " + std::to_string(WEXITSTATUS(f.wait_status));
}

int job_status(const Failure &f) {
    return WIFSIGNALED(f.wait_status) ? 128 + WTERMSIG(f.wait_status) : WEXITSTATUS(f.wait_status);
}

}  // namespace acpx::launcher
