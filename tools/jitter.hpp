// acpx-model jitter: seed 001's simulation of a butterfly allreduce under
// OS jitter, its lines, gate and report (tools/jitter.cpp).
#pragma once

namespace acpx::tools {

// argv[1] is "jitter". Writes OUT/seed001.csv and OUT/seed001.md; 0 on
// success, 2 on bad options, 1 if the files cannot be written.
int run_jitter(int argc, char **argv);

}  // namespace acpx::tools
