#include "config.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "acpx_config.h"
#include "errors.hpp"

namespace acpx::basic {
namespace {
#if ACPX_HAVE_UCX
constexpr const char *kDefaultTransport = "ucx";
#else
constexpr const char *kDefaultTransport = "ofi";
#endif
constexpr auto kInit = ConfigVar::When::kInit, kCreate = ConfigVar::When::kCreate;
constexpr ConfigVar kVars[] = {
    {"ACP_TRANSPORT", kDefaultTransport,
     "transport for one-sided communication: ucx or ofi (libfabric; its provider "
     "from FI_PROVIDER), as built",
     kInit},
    {"ACP_STARTER_MEMSIZE", "65536", "bytes of starter memory per process, zeroed at acp_init (K/M/G suffixes)", kInit},
    {"ACP_MALLOC_LIMIT", "auto",
     "bytes of acp_malloc memory (its arenas) a process may hold, K/M/G suffixes; auto: the node's memory divided "
     "by the job's processes on it",
     kInit},
    {"ACP_TIMEOUT", "60",
     "seconds (above 0, at most 86400) any internal wait may last without a sign of "
     "life from what it waits for, before the job ends with an error naming the "
     "operation and the rank not heard from",
     kInit},
    {"ACP_VERBOSE", "0",
     "1: print the transport, bootstrap and set-up at acp_init (with the transports rank 0 reaches a rank of its "
     "node and of another node by), and each handle at create",
     kInit},
    {"ACP_CMA", "1",
     "1: copies to and from processes on this node go straight through the kernel "
     "(process_vm_writev/readv; under Yama ptrace_scope=1 acp_init lets same-user "
     "processes in, and a refused copy warns once and goes through the transport); "
     "0: always through the transport",
     kInit},
    {"ACP_OFI_ATOMICS", "auto",
     "ofi: auto uses the provider's atomics when it has every one acpx needs, else "
     "the target's agent carries them out; agent: always the target's agent",
     kInit},
    {"ACP_IDLE", "auto",
     "how the persistent collectives' waits (and the progress thread, while a copy "
     "through the transport is in flight) use the core: spin polls a while before "
     "yielding it, yield yields after every poll that found nothing; auto: yield when "
     "this node's ranks outnumber the CPUs they may run on, else spin",
     kInit},
    {"ACP_PROGRESS", "agent",
     "agent: once every member has called send, the progress threads carry a persistent collective's "
     "round through while the application computes; calls: rounds move only inside acp_* calls (and "
     "root-mode copies in the agents)",
     kInit},
    {"ACP_HUGEPAGES", "0",
     "1: acp_register_memory moves each 2 MiB-aligned block inside the range whose "
     "pages are all in memory onto a huge page (MADV_COLLAPSE), so that peers on this "
     "node copy into and out of it 2-3x faster (the collectives' model is calibrated "
     "without it); 0: registration leaves pages alone",
     kInit},
    // The persistent collectives' (middle/): read at each create, so a
    // program may set them between creates. The defaults are middle/'s
    // (params.hpp; test/middle/plan_memory_test.cpp holds them equal).
    {"ACP_COL_EXEC", "delegated", "delegated: each member forwards what it holds; root: one process issues every copy",
     kCreate},
    {"ACP_COL_INLINE", "auto",
     "bytes per block up to which rounds travel through the control blocks (auto: 8K on one node with a core "
     "per rank; across nodes or on a crowded node 64K for bcast trees and 16K for allgathers; 0: never; at "
     "most 64K)",
     kCreate},
    {"ACP_COL_CACHE", "16:64M",
     "the one-call collectives (acp_bcast, acp_allgather, acp_allreduce): per group, at most ENTRIES "
     "cached handles and BYTES of their buffers (ENTRIES[:BYTES]; 0: a handle per call, freed after it); "
     "read at a group's first call",
     kCreate},
    {"ACP_COL_POOL", "auto",
     "bytes of this process's eager pool: a delegated handle's rounds over 48 bytes to members on its node go "
     "there before they are ready (a bcast's to other nodes as held puts), and it holds one-line slots; auto: "
     "1M, for bcast handles over 4 KiB and allgather ones over 1 KiB; a size: for every handle; 0: none "
     "(per-handle slots as large as the eager rounds)",
     kCreate},
    {"ACP_COL_PULL", "1",
     "1: a direct handle's rounds above the inline slots between ranks of a node are read by each receiver "
     "out of its sender's array (one Cross-Memory-Attach read); 0: written by the sender",
     kCreate},
    {"ACP_COL_RING_DEPTH", "64",
     "most small bcast rounds in flight: the root runs that many minus one ahead (2-64, powers of two; a cap: "
     "a handle of up to 112 bytes on one node with a core per rank has 32)",
     kCreate},
    {"ACP_COL_BCAST_ALGO", "auto", "auto (the model picks per handle) or a bcast algorithm (acpx-info lists them)",
     kCreate},
    {"ACP_COL_ALLGATHER_ALGO", "auto", "auto or an allgather algorithm (acpx-info lists them)", kCreate},
    {"ACP_COL_PLACE", "none",
     "tac3 (tac3:TRIALS, 250 a level unless given): the group's lowest rank chooses which member plays which "
     "place of a bcast's or an allgather's lists on ACP_TOPOLOGY, so that the copies of a step collide least "
     "(seed 000), searching at most a quarter of ACP_TIMEOUT",
     kCreate},
    {"ACP_COL_ALLREDUCE_ALGO", "auto",
     "auto (the model picks per handle), butterfly, rabenseifner, or butterfly:M,L (seed 001's redundancy)", kCreate},
    {"ACP_CALIBRATION", "-",
     "the model's calibration file (acprun -n 2 acpx-bench calibrate writes one); builtin: the built-in "
     "figures",
     kCreate},
    {"ACP_TOPOLOGY", "-",
     "the network for collision-aware choices: torus:4x6x4[:order=ZYX][:wrap=101][:ports=N|all], mesh:8x8, "
     "switch:16, none",
     kCreate},
    {"ACP_TOPOLOGY_MAP", "-", "a file of each rank's node index, one per line", kCreate},
};

const ConfigVar &var(const char *name) {
    for (const ConfigVar &v : kVars)
        if (std::strcmp(v.name, name) == 0) return v;
    std::fprintf(stderr, "acpx: internal error: %s is read but not in the configuration table (basic/config.cpp)\n",
                 name);
    std::abort();
}

const char *env_or_default(const char *name) {
    const char *e = config_env(name);
    return e ? e : var(name).default_value;
}
}  // namespace

std::span<const ConfigVar> config_vars() { return kVars; }

const char *config_env(const char *name) {
    const char *e = std::getenv(var(name).name);
    return e && *e ? e : nullptr;
}

const char *transports_built() {
#if ACPX_HAVE_UCX && ACPX_HAVE_OFI
    return "ucx, ofi";
#elif ACPX_HAVE_UCX
    return "ucx";
#else
    return "ofi";
#endif
}

bool transport_built(const std::string &name) {
    return (ACPX_HAVE_UCX && name == "ucx") || (ACPX_HAVE_OFI && name == "ofi");
}

bool parse_size(const char *text, size_t *out) {
    if (!text || !*text) return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno || end == text || text[0] == '-') return false;
    unsigned shift = 0;
    switch (*end) {
        case '\0': break;
        case 'k':
        case 'K':
            shift = 10;
            ++end;
            break;
        case 'm':
        case 'M':
            shift = 20;
            ++end;
            break;
        case 'g':
        case 'G':
            shift = 30;
            ++end;
            break;
        default: return false;
    }
    if (*end != '\0') return false;
    if (shift && v > (~0ULL >> shift)) return false;
    *out = static_cast<size_t>(v << shift);
    return true;
}

bool Config::load() {
    transport = env_or_default("ACP_TRANSPORT");
    if (!transport_built(transport))
        return report("acp_init", "ACP_TRANSPORT", "'%s' is not a transport of this build (built: %s)",
                      transport.c_str(), transports_built());
    if (!parse_size(env_or_default("ACP_STARTER_MEMSIZE"), &starter_memsize) || starter_memsize == 0 ||
        starter_memsize > (1ULL << 34))
        return report("acp_init", "ACP_STARTER_MEMSIZE", "'%s' is not a size between 1 byte and 16G",
                      env_or_default("ACP_STARTER_MEMSIZE"));
    if (const std::string lim = env_or_default("ACP_MALLOC_LIMIT"); lim == "auto")
        malloc_limit = 0;
    else if (!parse_size(lim.c_str(), &malloc_limit) || malloc_limit == 0)
        return report("acp_init", "ACP_MALLOC_LIMIT", "'%s' is neither auto nor a size above 0", lim.c_str());
    char *end = nullptr;
    const char *t = env_or_default("ACP_TIMEOUT");
    timeout_s = std::strtod(t, &end);
    // No "never": a wait that cannot end is a hang (a day is the longest).
    if (end == t || *end != '\0' || !(timeout_s > 0) || !(timeout_s <= 86400))
        return report("acp_init", "ACP_TIMEOUT", "'%s' is not a number of seconds above 0 and at most 86400 (a day)",
                      t);
    verbose = std::atoi(env_or_default("ACP_VERBOSE")) != 0;
    cma = std::atoi(env_or_default("ACP_CMA")) != 0;
    const std::string atomics = env_or_default("ACP_OFI_ATOMICS");
    if (atomics != "auto" && atomics != "agent")
        return report("acp_init", "ACP_OFI_ATOMICS", "'%s' is neither auto nor agent", atomics.c_str());
    ofi_agent_atomics = atomics == "agent";
    if (!idle::parse(env_or_default("ACP_IDLE"), &idle_policy))
        return report("acp_init", "ACP_IDLE", "'%s' is not auto, spin or yield", env_or_default("ACP_IDLE"));
    const std::string progress = env_or_default("ACP_PROGRESS");
    if (progress != "agent" && progress != "calls")
        return report("acp_init", "ACP_PROGRESS", "'%s' is neither agent nor calls", progress.c_str());
    agent_rounds = progress == "agent";
    const std::string huge = env_or_default("ACP_HUGEPAGES");
    if (huge != "0" && huge != "1") return report("acp_init", "ACP_HUGEPAGES", "'%s' is neither 0 nor 1", huge.c_str());
    huge_pages = huge == "1";
    return true;
}

}  // namespace acpx::basic
