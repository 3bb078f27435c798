// acpx-model place: seed 000's task placement (TAC3) and its baselines
// from the command line (tools/place.cpp; collectives/place/).
#pragma once

namespace acpx::tools {

// argv[1] is "place". 0 on success, 2 on bad input (one line on stderr,
// "acpx-model: place: ..."), 1 if the map cannot be written.
int run_place(int argc, char **argv);

}  // namespace acpx::tools
