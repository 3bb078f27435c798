// Which failed rank acprun names as the job's end. When a rank dies, its
// peers' transports see the closed endpoints and those ranks exit with
// an error status a moment later; on a crowded machine such an exit can
// even reach acprun before the death that caused it (a 3-rank chain
// bcast whose rank 1 was killed: 1 run in 12 named rank 2's "exited
// with status 1"). So acprun gathers the failures of a short window
// (kFailureWindowMs) and names one killed by a signal, which no peer's
// failure causes, before one that exited with an error status.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace acpx::launcher {

inline constexpr int kFailureWindowMs = 250;

struct Failure {
    int rank = -1;
    pid_t pid = -1;
    int wait_status = 0;  // as waitpid gives it
};

// The index of the failure to name: the first killed by a signal, else
// the first; 0 for an empty list.
size_t root_cause(const std::vector<Failure> &failures);

// "rank 1 (pid 42) was killed by signal 9 (Killed)" or
// "rank 2 (pid 43) exited with status 1".
std::string describe(const Failure &f);

// What acprun exits with: the rank's status, or 128 + the signal.
int job_status(const Failure &f);

}  // namespace acpx::launcher
