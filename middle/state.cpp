// The middle layer's per-process state and handle memory accounting.
#include "col.hpp"

namespace acpx::middle {

State &State::get() {
    if (auto *s = dynamic_cast<State *>(basic::layer::state())) return *s;
    basic::layer::set_state(std::make_unique<State>());
    return *static_cast<State *>(basic::layer::state());
}

size_t Col::memory() const {
    return sizeof(Col) + plan.bytes() - sizeof(Plan) + ctl_mem.size + buffer.size +
           out_issued.capacity() + seen.capacity() + out_direct.capacity() * sizeof(Direct) +
           ready_direct.capacity() * sizeof(uint8_t *) + mappings.capacity() * sizeof(std::shared_ptr<void>);
}

}  // namespace acpx::middle
