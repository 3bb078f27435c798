// acpx-model simcheck: the collision model (seed 003) against the flow
// simulator and SimGrid on tori too large to launch here
// (tools/simcheck.cpp).
#pragma once

namespace acpx::tools {

// argv[1] is "simcheck". Writes OUT/simcheck.csv and OUT/simcheck.md; 0
// on success, 2 on bad options or a failed simulation, 1 if the files
// cannot be written.
int run_simcheck(int argc, char **argv);

}  // namespace acpx::tools
