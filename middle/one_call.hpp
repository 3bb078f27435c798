// The one-call collectives' handle caches (one_call.cpp), as tests see them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "basic/layer.hpp"

namespace acpx::middle {

struct State;

// How many handles this process holds cached for `group` (0 if none).
size_t cached_handles(int np_group, const int *group);

// The one-call collectives' messages (collect_mail files them here): a
// member whose call of a group timed out tells the group's other members.
constexpr uint8_t kOneCallMsgFirst = 0x60;
void one_call_mail(State &st, const basic::layer::Bytes &m);

}  // namespace acpx::middle
