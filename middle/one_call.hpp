// The one-call collectives' handle caches (one_call.cpp), as tests see them.
#pragma once

#include <cstddef>

namespace acpx::middle {

// How many handles this process holds cached for `group` (0 if none).
size_t cached_handles(int np_group, const int *group);

}  // namespace acpx::middle
