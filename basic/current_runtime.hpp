// The process's runtime object, as every API call finds it: a variable
// read inline, not a function call (a small collective round makes a
// dozen such calls; as calls into the library they were a tenth of a
// one-member round).
#pragma once

namespace acpx::basic {

class Runtime;

// Set by acp_init, cleared by acp_finalize (set_runtime).
extern Runtime *g_runtime;

// The process's runtime; nullptr outside acp_init .. acp_finalize.
inline Runtime *runtime() { return g_runtime; }
void set_runtime(Runtime *rt);
// Reports that fn was called outside acp_init .. acp_finalize; false.
bool report_uninitialized(const char *fn);

}  // namespace acpx::basic
