#include "ptrace_access.hpp"

#include <sys/prctl.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace acpx::basic::cma_access {

int yama_scope() {
    std::ifstream f("/proc/sys/kernel/yama/ptrace_scope");
    int scope = -1;
    if (!(f >> scope)) return -1;
    return scope;
}

Step step_for(int scope) {
    if (scope <= 0) return Step::kNone;
    return scope == 1 ? Step::kPtracerAny : Step::kNotPermitted;
}

std::string open_to_peers() {
    const int scope = yama_scope();
    const std::string yama = "Yama ptrace_scope=" + std::to_string(scope);
    switch (step_for(scope)) {
        case Step::kNone: return scope < 0 ? "no Yama" : yama;
        case Step::kPtracerAny:
            if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0)
                return yama + ": opened to same-user processes (PR_SET_PTRACER_ANY)";
            return yama + ": PR_SET_PTRACER_ANY failed (" + std::strerror(errno) + ")";
        case Step::kNotPermitted: break;
    }
    return yama + (scope == 2 ? ": only processes with CAP_SYS_PTRACE may use it" : ": no process may use it");
}

std::string refusal_hint(int err, int scope) {
    if (err == ESRCH) return "the process is gone";
    if (err == ENOSYS) return "the kernel or a seccomp filter does not offer process_vm_readv/writev";
    if (err != EPERM) return "";
    switch (step_for(scope)) {
        case Step::kPtracerAny: return "kernel.yama.ptrace_scope=1 and the target did not open itself to this process";
        case Step::kNotPermitted:
            return "kernel.yama.ptrace_scope=" + std::to_string(scope) +
                   (scope == 2 ? " allows it only with CAP_SYS_PTRACE" : " allows it to no process");
        case Step::kNone: break;
    }
    return "the ptrace policy (different users?) or a seccomp filter (containers) forbids it";
}

}  // namespace acpx::basic::cma_access
