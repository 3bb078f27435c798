// acpx-model seed000: seed 000's Table 1 (and the analogues of its
// Tables 2 and 3) reproduced with acpx-model place's searches and the
// flow simulator (tools/seed000.cpp).
#pragma once

namespace acpx::tools {

// argv[1] is "seed000". Writes OUT/seed000.csv and OUT/seed000.md; 0 on
// success, 2 on bad options, 1 if the files cannot be written.
int run_seed000(int argc, char **argv);

}  // namespace acpx::tools
