// Whether the job's other ranks may reach this process with Cross-Memory
// Attach, and opening it to them where the Yama security module holds it
// closed.
//
// process_vm_readv/writev need ptrace access to the target. Under Yama's
// ptrace_scope=1 (Ubuntu's default; Debian builds Yama but leaves it at 0)
// only a target's ancestors have it, so sibling ranks get EPERM and every
// copy between them would go through the transport: for a user's array
// UCX's software RMA, which needs the target's progress (on the 2-core VM
// an 8 B remote->remote copy 107 us against 6.6). A process may lift that
// for itself with prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY), as Open MPI's
// shared-memory transport does; scopes 2 and 3 leave it to CAP_SYS_PTRACE
// or to nobody.
#pragma once

#include <string>

namespace acpx::basic::cma_access {

// /proc/sys/kernel/yama/ptrace_scope, or -1 where there is no Yama.
int yama_scope();

enum class Step {
    kNone,          // scope 0 or no Yama: same-user processes may already
    kPtracerAny,    // scope 1: PR_SET_PTRACER_ANY opens this process to them
    kNotPermitted,  // scope 2 (CAP_SYS_PTRACE only) or 3: nothing to do here
};
Step step_for(int scope);

// Takes step_for(yama_scope()) for this process, before its peers try
// it; returns what was done, for acprun -v (e.g. "Yama ptrace_scope=1:
// opened to same-user processes (PR_SET_PTRACER_ANY)").
std::string open_to_peers();

// Why a Cross-Memory Attach call may have failed with err, for the
// warning that names it: the ptrace policy or a seccomp filter.
std::string refusal_hint(int err, int scope);

}  // namespace acpx::basic::cma_access
