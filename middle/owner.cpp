// The handover of rounds between the application thread and the progress
// agent (owner.hpp), and the agent's pass over them.
#include "owner.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "col.hpp"

namespace acpx::middle {

namespace {

int membarrier(int cmd) { return static_cast<int>(syscall(SYS_membarrier, cmd, 0, 0)); }

// The agent's looks while a round is in flight. A look wakes the agent on
// the core it shares with the application, and a wake-up costs that core
// ~28 us of its work on the reference VM when they come every 10-50 us (a
// timer, two context switches, cold caches; nothing measurable at one a
// millisecond: doc/measurements/2026-12-05-agent-rounds.md). So the agent looks
// rarely unless the application is away:
// - it was in a call (send, wait: they move the rounds themselves), or no
//   round is in flight: the next look comes twice as late as the last, up
//   to kMaxBusyWaitUs (0.3% of a core);
// - it was out of them but made one since the previous look: again after
//   kMinWaitUs, to see whether it went computing;
// - it made none since (away): the agent takes the rounds and polls them
//   until kIdlePolls polls in a row move nothing, then looks again after
//   kMinWaitUs, twice as late after each pass that moved nothing, up to
//   kMaxIdleWaitUs (a round waiting for a late member).
// Rounds shorter than a few looks' wait finish in the application's wait.
constexpr unsigned kMinWaitUs = 50, kMaxBusyWaitUs = 10000, kMaxIdleWaitUs = 1000;
constexpr unsigned kIdlePolls = 64;

}  // namespace

Owner::Owner() { heavy_ = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0; }

void Owner::wait_for_agent() {
    app_waits_.store(1, std::memory_order_relaxed);
    // The agent may share this core: give it the core to finish its poll.
    while (agent_.load(std::memory_order_acquire) != 0) sched_yield();
    app_waits_.store(0, std::memory_order_relaxed);
}

Owner::Seen Owner::look() {
    const uint32_t calls = calls_.load(std::memory_order_relaxed);
    const bool moved = calls != seen_calls_;
    seen_calls_ = calls;
    if (inside_.load(std::memory_order_relaxed) != 0) return Seen::kInside;
    return moved ? Seen::kOutside : Seen::kAway;
}

void Owner::heavy_fence() const {
    if (!heavy_ || membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
        std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Owner::wake_agent_if_asleep() {
    light_fence();
    if (asleep_.load(std::memory_order_relaxed) == 0) return;
    asleep_.store(0, std::memory_order_relaxed);
    basic::layer::wake_agent();
}

bool Owner::may_sleep() {
    asleep_.store(1, std::memory_order_relaxed);
    heavy_fence();
    if (!rounds_in_flight()) return true;
    asleep_.store(0, std::memory_order_relaxed);
    return false;
}

bool Owner::take() {
    agent_.store(1, std::memory_order_relaxed);
    heavy_fence();
    if (inside_.load(std::memory_order_acquire) == 0) return true;
    let_go();
    return false;
}

unsigned agent_work() {
    auto *st = static_cast<State *>(basic::layer::state());
    if (!st) return 0;
    Owner &o = st->owner;
    const auto now = Clock::now();
    if (now < o.next_look)
        return static_cast<unsigned>(std::chrono::duration_cast<std::chrono::microseconds>(o.next_look - now).count()) +
               1;
    const Owner::Seen seen = o.look();
    if (!o.rounds_in_flight()) {
        // Between rounds: a program that runs them keeps the agent looking
        // (a send that has to wake it costs a system call); one that made
        // no call since a look kMaxBusyWaitUs ago lets it sleep.
        if (seen == Owner::Seen::kAway && o.wait_us >= kMaxBusyWaitUs && o.may_sleep()) {
            o.wait_us = 0;
            return 0;
        }
        o.wait_us = std::clamp(o.wait_us * 2, kMinWaitUs, kMaxBusyWaitUs);
        o.next_look = now + std::chrono::microseconds(o.wait_us);
        return o.wait_us;
    }
    if (seen == Owner::Seen::kOutside) {  // maybe gone computing: look again soon
        o.next_look = now + std::chrono::microseconds(kMinWaitUs);
        return kMinWaitUs;
    }
    if (seen == Owner::Seen::kInside || !o.take()) {
        o.wait_us = std::clamp(o.wait_us * 2, kMinWaitUs, kMaxBusyWaitUs);
        o.next_look = now + std::chrono::microseconds(o.wait_us);
        return o.wait_us;
    }
    bool moved = false;
    {
        struct LetGo {  // also when a pass throws (out of memory): the application must get in
            Owner &o;
            ~LetGo() { o.let_go(); }
        } let_go{o};
        for (unsigned idle = 0; idle < kIdlePolls && !o.wanted() && o.rounds_in_flight();) {
            const bool m = progress_all(*st);
            moved |= m;
            idle = m ? 0 : idle + 1;
        }
    }
    o.wait_us = moved ? kMinWaitUs : std::clamp(o.wait_us * 2, kMinWaitUs, kMaxIdleWaitUs);
    o.next_look = Clock::now() + std::chrono::microseconds(o.wait_us);
    return o.wait_us;
}

}  // namespace acpx::middle
