// The configuration variables of acpx: one table, documented next to the
// code (name, default, one-line help), read once at acp_init. acpx-info
// prints the table.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "idle.hpp"

namespace acpx::basic {

struct ConfigVar {
    const char *name;
    const char *default_value;
    const char *help;
};

// Every variable acpx reads, in the order acpx-info prints them.
std::span<const ConfigVar> config_vars();

// Values in force, from the environment or the defaults above.
struct Config {
    std::string transport;        // ACP_TRANSPORT
    size_t starter_memsize = 0;   // ACP_STARTER_MEMSIZE
    double timeout_s = 0;         // ACP_TIMEOUT
    bool verbose = false;         // ACP_VERBOSE
    bool cma = true;              // ACP_CMA
    bool ofi_agent_atomics = false;  // ACP_OFI_ATOMICS=agent
    idle::Policy idle_policy = idle::Policy::kAuto;  // ACP_IDLE
    bool huge_pages = false;      // ACP_HUGEPAGES

    // Reads the environment. On a malformed value, reports it (naming the
    // variable) and returns false.
    bool load();
};

// "ucx, ofi": the transports this build has; and whether `name` is one.
const char *transports_built();
bool transport_built(const std::string &name);

// Parses "123", "64K", "16M", "1G" (binary units). False if malformed.
bool parse_size(const char *text, size_t *out);

}  // namespace acpx::basic
