// acpx-model flowsim: a pattern's CCS through the flow simulator
// (tools/flowsim.cpp; collectives/model/flowsim.hpp).
#pragma once

namespace acpx::tools {

// argv[1] is "flowsim". Prints "# seconds S" last; 0 on success, 2 on bad
// input (one line on stderr, "acpx-model: flowsim: ...").
int run_flowsim(int argc, char **argv);

}  // namespace acpx::tools
