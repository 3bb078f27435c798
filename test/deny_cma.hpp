// For the suites that run with Cross-Memory Attach refused
// (ACPX_TEST_DENY_CMA=1): a seccomp filter that fails this process's
// process_vm_readv/writev with EPERM, as a container's seccomp profile or
// Yama's ptrace policy would, so that the runtime's fallback to the
// transport is what the suite exercises. Installed before acp_init; it
// cannot be removed, which is why it is a suite of its own.
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace acpx::test {

#if defined(__x86_64__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
inline constexpr unsigned kAuditArch = AUDIT_ARCH_AARCH64;
#else
inline constexpr unsigned kAuditArch = 0;  // not written for this architecture
#endif

// 0 when not asked for or installed; 77 (automake: skipped) where it
// cannot be; 1 on failure (said on stderr).
inline int deny_cma_if_asked() {
    const char *ask = std::getenv("ACPX_TEST_DENY_CMA");
    if (!ask || std::strcmp(ask, "1") != 0) return 0;
    if (kAuditArch == 0) return std::fprintf(stderr, "ACPX_TEST_DENY_CMA: no filter for this CPU\n"), 77;
    sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    sock_fprog prog{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        std::fprintf(stderr, "ACPX_TEST_DENY_CMA: cannot install the seccomp filter: %s\n", std::strerror(errno));
        return errno == EINVAL ? 77 : 1;
    }
    return 0;
}

}  // namespace acpx::test
