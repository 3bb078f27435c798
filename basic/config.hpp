// The configuration variables of acpx: one table, documented next to the
// code (name, default, one-line help, when it is read), for every layer:
// the basic layer's are read once at acp_init, the persistent
// collectives' at each create. acpx-info prints the table and the README
// documents it (test/suites/config_table.sh holds the two and the code
// to it).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "idle.hpp"

namespace acpx::basic {

struct ConfigVar {
    enum class When { kInit, kCreate };
    const char *name;
    const char *default_value;  // as text; "-": none
    const char *help;
    When when;
};

// Every variable acpx reads, in the order acpx-info prints them.
std::span<const ConfigVar> config_vars();

// The value of variable `name` in the environment, or nullptr when it is
// unset or empty. `name` must be in config_vars(): reading a variable
// that is not in the table is a bug, and ends the process saying so.
const char *config_env(const char *name);

// Values in force, from the environment or the defaults above.
struct Config {
    std::string transport;                           // ACP_TRANSPORT
    size_t starter_memsize = 0;                      // ACP_STARTER_MEMSIZE
    size_t malloc_limit = 0;                         // ACP_MALLOC_LIMIT (0: auto)
    double timeout_s = 0;                            // ACP_TIMEOUT
    bool verbose = false;                            // ACP_VERBOSE
    bool cma = true;                                 // ACP_CMA
    bool ofi_agent_atomics = false;                  // ACP_OFI_ATOMICS=agent
    idle::Policy idle_policy = idle::Policy::kAuto;  // ACP_IDLE
    bool huge_pages = false;                         // ACP_HUGEPAGES
    bool agent_rounds = true;                        // ACP_PROGRESS=agent

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
