// acpx-model merge: several calibration files of one machine as one, each
// sample the median of theirs (model::median_calibration, what calibrate
// does with its sweeps). For calibrations taken at different times, e.g.
// bench/model_check's launches, or a user's several calibrate runs.
#pragma once

namespace acpx::tools {

// argv[1] is "merge": [--out FILE] FILE... ; 0 done, 2 bad use or input
// (said on stderr, naming the file and why).
int merge_calibrations(int argc, char **argv);

}  // namespace acpx::tools
