// The soundness check of a one-block command list (see command_list.hpp).
#include <string>

#include "command_list.hpp"

namespace acpx::collectives {

std::string check_list(const CommandList &list, uint32_t members, uint32_t origin) {
    if (members == 0) return "no members";
    if (list.size() != members - 1)
        return std::to_string(list.size()) + " entries for " + std::to_string(members) +
               " members (want one per member but the origin)";
    std::vector<uint32_t> into(members, kNoDep);  // entry that delivered to a member
    for (uint32_t e = 0; e < list.size(); ++e) {
        const Command &c = list[e];
        const std::string at = "entry " + std::to_string(e) + ": ";
        if (c.dst >= members || c.src >= members) return at + "member index out of range";
        if (c.dst == c.src) return at + "copies a member onto itself";
        if (c.dst == origin) return at + "sends to the origin";
        if (into[c.dst] != kNoDep) return at + "member " + std::to_string(c.dst) + " receives twice";
        if (c.src == origin) {
            if (c.dep != kNoDep) return at + "waits although its source is the origin";
        } else if (into[c.src] == kNoDep) {
            return at + "reads member " + std::to_string(c.src) + " before anything reached it";
        } else if (c.dep != into[c.src]) {
            return at + "depends on entry " + std::to_string(c.dep) + ", not on entry " + std::to_string(into[c.src]) +
                   " that delivered to its source";
        }
        into[c.dst] = e;
    }
    return "";
}

}  // namespace acpx::collectives
