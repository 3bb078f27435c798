// The middle layer's per-process state and handle memory accounting.
#include "col.hpp"

#include <algorithm>
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
    return sizeof(Col) + plan.bytes() - sizeof(Plan) + mem.ctl.size + mem.buffer.size + ready_known.capacity() +
           member_known.capacity() + cur.out_issued.capacity() + cur.seen.capacity() +
           cur.notices.capacity() * sizeof(Notice) + direct.out.capacity() * sizeof(Direct) +
           direct.ready.capacity() * sizeof(uint8_t *) + direct.mappings.capacity() * sizeof(std::shared_ptr<void>);
}

void Col::Segment::reset() {
    issued = false;
    std::fill(out_issued.begin(), out_issued.end(), 0);
    std::fill(seen.begin(), seen.end(), 0);
    first = last = ACP_HANDLE_NULL;
    notices.clear();
    failing = false;
    start = {};
}

}  // namespace acpx::middle
