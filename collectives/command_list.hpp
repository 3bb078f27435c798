// The command list: what one round of a collective does, as
// [dst, src, size, dependency] entries (seed 002, section 4.3).
//
// An entry names members by their index in the group, not by GA: the
// middle layer binds indices to GAs once, at create. The size and the
// byte range are the round's (the same for every entry of a list), and
// the block an allgather entry moves is the list's own block (one list
// per block, seed 002 Fig. 6), so neither is stored. What is left is
// 12 bytes an entry, against 28 for a full [GA, GA, size, dep] (the
// seed's estimate used 24).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace acpx::collectives {

inline constexpr uint32_t kNoDep = UINT32_MAX;

struct Command {
    uint32_t dst;  // member receiving the bytes
    uint32_t src;  // member holding them
    uint32_t dep;  // entry of the same list that must complete first
                   // (it delivered the bytes to src), or kNoDep
};
static_assert(sizeof(Command) == 12, "the entry size is part of the memory budget");

using CommandList = std::vector<Command>;

// Checks a list moving one block from member `origin` to all `members`
// members: every other member receives exactly once, nobody sends to
// `origin`, entries come in dependency order, and an entry whose source is
// not `origin` depends on the entry that delivered to that source.
// Returns "" when sound, else what is wrong (for tests and debug builds).
std::string check_list(const CommandList &list, uint32_t members, uint32_t origin);

}  // namespace acpx::collectives
