// Who moves this process's rounds: the application thread inside its
// acp_* calls of this layer, or the progress agent while the application
// is away computing (seed 002's remote execution, ACP_PROGRESS=agent).
// One of them at a time owns every handle, so neither locks a handle.
//
// The application's side costs no atomic instruction: entering a call is
// a plain store of "inside", a compiler fence and a load of "agent holds".
// The agent, which takes over rarely, pays for both sides: it stores
// "agent holds" and issues membarrier(PRIVATE_EXPEDITED), a full barrier on
// every thread of the process, before it reads "inside" (Dekker's
// handshake with the heavy fence on one side, as in userspace RCU). Where
// the kernel has no membarrier, both sides use a full fence.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace acpx::middle {

class Owner {
  public:
    Owner();

    // --- the application thread ---
    // At the entry of every acp_* call of this layer, and at its exit
    // (nested calls count once). Entering waits while the agent runs a
    // pass (it lets go between polls once asked).
    void enter() {
        if (depth_++ != 0) return;
        calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        inside_.store(1, std::memory_order_relaxed);
        light_fence();
        if (agent_.load(std::memory_order_acquire) != 0) wait_for_agent();
    }
    void leave() {
        if (--depth_ == 0) inside_.store(0, std::memory_order_release);
    }
    // A round started / ended on some handle (Col::set_active): while any
    // is in flight the agent looks in. Only the owner of the handles
    // counts, so a load and a store do.
    void round_started() {
        const int n = in_flight_.load(std::memory_order_relaxed);
        in_flight_.store(n + 1, std::memory_order_relaxed);
        if (n == 0) wake_agent_if_asleep();
    }
    void round_ended() { in_flight_.store(in_flight_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed); }

    // --- the agent ---
    // Whether a round is in flight anywhere in this process.
    bool rounds_in_flight() const { return in_flight_.load(std::memory_order_relaxed) > 0; }
    // Before the agent sleeps without a timer: true if it may (no round
    // in flight, and a round started from now on wakes it).
    bool may_sleep();
    // Where the application is: in a call of this layer; out of them but
    // it made one since the previous look; or away (none since). Remembers
    // this look.
    enum class Seen { kInside, kOutside, kAway };
    Seen look();
    // Takes the handles if the application is in no call: false if it is.
    bool take();
    void let_go() { agent_.store(0, std::memory_order_release); }
    // The application waits to enter: the agent lets go at once.
    bool wanted() const { return app_waits_.load(std::memory_order_relaxed) != 0; }

    // The agent's schedule (agent_work): when to look next, and the wait
    // before that look (it doubles while looks find nothing to do).
    std::chrono::steady_clock::time_point next_look{};
    unsigned wait_us = 0;

  private:
    void wait_for_agent();
    void wake_agent_if_asleep();
    // Dekker's handshake with the heavy side on the agent's (as take()).
    void light_fence() const {
        if (heavy_)
            std::atomic_signal_fence(std::memory_order_seq_cst);
        else
            std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    void heavy_fence() const;

    unsigned depth_ = 0;  // the application's nesting, its own
    std::atomic<uint32_t> inside_{0}, calls_{0}, agent_{0}, app_waits_{0}, asleep_{0};
    std::atomic<int> in_flight_{0};
    uint32_t seen_calls_ = 0;  // the agent's, at its last look
    bool heavy_ = false;       // membarrier registered
};

// The application's hold on the rounds for one acp_* call (Owner::enter).
class AppCall {
  public:
    explicit AppCall(Owner &o) : o_(o) { o_.enter(); }
    ~AppCall() { o_.leave(); }
    AppCall(const AppCall &) = delete;
    AppCall &operator=(const AppCall &) = delete;

  private:
    Owner &o_;
};

// The agent's pass over this process's rounds (basic::layer::set_agent_work).
unsigned agent_work();

}  // namespace acpx::middle
