// The middle layer's per-process state and handle memory accounting.
#include "col.hpp"

#include <typeinfo>

namespace acpx::middle {

State &State::get() {
    // The slot is this layer's alone; typeid, not dynamic_cast, which took
    // an eighth of a small round on the root (every API call gets here).
    if (auto *s = basic::layer::state(); s && typeid(*s) == typeid(State)) return *static_cast<State *>(s);
    basic::layer::set_state(std::make_unique<State>());
    return *static_cast<State *>(basic::layer::state());
}

size_t Col::memory() const {
    return sizeof(Col) + plan.bytes() - sizeof(Plan) + ctl_mem.size + buffer.size + out_issued.capacity() +
           ready_known.capacity() + member_known.capacity() + seen.capacity() + out_direct.capacity() * sizeof(Direct) +
           ready_direct.capacity() * sizeof(uint8_t *) + mappings.capacity() * sizeof(std::shared_ptr<void>) +
           notices.capacity() * sizeof(Notice);
}

}  // namespace acpx::middle
