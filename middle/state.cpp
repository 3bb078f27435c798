// The middle layer's per-process state and handle memory accounting.
#include "col.hpp"

#include <algorithm>

namespace acpx::middle {

// Called while current_ is null: no State is in the runtime's slot, since
// only this function fills it and ~State clears current_.
State &State::make() {
    basic::layer::set_state(std::make_unique<State>());
    if (basic::layer::agent_runs_rounds()) basic::layer::set_agent_work(&agent_work);
    return *(current_ = static_cast<State *>(basic::layer::state()));
}

// The runtime lets its slot go at acp_finalize: the next acp_init's
// first call makes a new one.
State::~State() {
    if (current_ == this) current_ = nullptr;
}

size_t Col::memory() const {
    return sizeof(Col) + plan.bytes() - sizeof(Plan) + mem.ctl.size + mem.buffer.size + ready_known.capacity() +
           member_known.capacity() + (cur.out_issued.capacity() + cur.seen.capacity()) * sizeof(uint32_t) +
           cur.notices.capacity() * sizeof(Notice) + direct.out.capacity() * sizeof(Direct) +
           direct.ready.capacity() * sizeof(uint8_t *) + direct.mappings.capacity() * sizeof(std::shared_ptr<void>) +
           (ar ? ar->memory() : 0);
}

void Col::Segment::reset() {
    issued = false;
    staged = false;
    issued_count = 0;
    pulls = 0;
    first = last = ACP_HANDLE_NULL;
    notices.clear();
    failing = false;
    start = {};
    polls = 0;
}

}  // namespace acpx::middle
