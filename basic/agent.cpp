// The progress agent: a thread per process that carries delegated copies,
// registration look-ups, barrier messages and ordered GMAs while the
// application computes. Idle, it sleeps in epoll on the transport's event
// fd (armed first). It also wakes every 500 ms, a safety net for anything
// that arrived without an event: an idle rank costs ~0.1-0.3% of a core.
// While the upper layer has rounds in flight it asks to be called again
// within tens of microseconds (layer::set_agent_work) and the sleep is that
// long.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>

#include "errors.hpp"
#include "idle.hpp"
#include "runtime.hpp"

namespace acpx::basic {

thread_local bool Runtime::Agent::on_agent_thread __attribute__((tls_model("initial-exec"))) = false;

void Runtime::start_agent() {
    agent.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    agent.thread = std::thread([this] {
        Agent::on_agent_thread = true;
        // The upper layer's rounds ask for looks tens of microseconds
        // apart; the default 50 us of timer slack would stretch each.
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        try {
            agent_main();
        } catch (const std::exception &e) {  // out of memory handling a message: end the job, say why
            fatal("progress agent: %s", e.what());
        }
    });
}

void Runtime::wake_agent() {
    const uint64_t one = 1;
    if (agent.wake_fd >= 0 && write(agent.wake_fd, &one, sizeof one) < 0) { /* the safety wake-up comes anyway */
    }
}

namespace {
constexpr int kSafetyWakeMs = 500;
}  // namespace

bool Runtime::pause_unless_woken(unsigned us) {
    pollfd p{agent.wake_fd, POLLIN, 0};
    const timespec t{0, static_cast<long>(us) * 1000};
    if (ppoll(&p, 1, &t, nullptr) <= 0) return false;
    uint64_t v;
    if (read(agent.wake_fd, &v, sizeof v) < 0) { /* drained by another reader */
    }
    return true;
}

void Runtime::agent_main() {
    const int ep = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = tp->event_fd();
    epoll_ctl(ep, EPOLL_CTL_ADD, tp->event_fd(), &ev);
    ev.data.fd = agent.wake_fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, agent.wake_fd, &ev);
    // After acpx work (a message handled) the agent keeps polling for a moment
    // (yielding the core each round): commands come in bursts, and a wake-up from epoll costs
    // tens of microseconds on a loaded node.
    using clock = std::chrono::steady_clock;
    constexpr auto kLinger = std::chrono::microseconds(200);
    auto last_work = clock::now() - kLinger;
    // While the application thread polls (a collective's wait with members
    // on other nodes), it makes every bit of progress the agent would: the
    // agent stays off the lock and the core, else the two take turns at the
    // lock and the transport, which costs a small round across two hosts
    // about half its time. It looks again after kAppPolls, without the
    // lock: a condition variable's wake-up takes the lock back, and the
    // application thread, which holds it while it polls, then hands it
    // over through the kernel at every look.
    static constexpr auto kAppPolls = std::chrono::microseconds(500);
    const auto app_polls = [this] {
        return Agent::now_ns() - agent.app_polled_ns.load(std::memory_order_relaxed) <
               std::chrono::nanoseconds(kAppPolls).count();
    };
    // The upper layer's rounds, if it set any (nullptr: none, or acpx is
    // finalizing).
    const auto upper_work = [this] {
        auto *work = agent.upper_work.load(std::memory_order_acquire);
        return finalizing ? nullptr : work;
    };
    bool pwait2_missing = false;
    std::unique_lock lk(mu);
    while (!agent.stop) {
        // The upper layer's rounds first (outside the lock: they call the
        // API): `due` microseconds at most until they want another look.
        unsigned due = 0;
        if (auto *work = upper_work()) {
            lk.unlock();
            due = work();
            lk.lock();
            if (agent.stop) break;
        }
        if (app_polls()) {
            lk.unlock();
            // Until the application stops polling or wakes the agent (it
            // blocks, or acpx stops); the upper layer's rounds still get
            // their looks (a member may poll in acp_sync while its round
            // waits for it).
            while (!pause_unless_woken(due ? std::min<unsigned>(due, kAppPolls.count()) : kAppPolls.count()) &&
                   app_polls())
                if (auto *work = upper_work()) due = work();
            lk.lock();
            continue;
        }
        const uint64_t handled = mail.handled;
        const unsigned n = progress_locked();
        if (n != 0 && agent.app_blocked) agent.progressed.notify_one();
        if (mail.handled != handled) last_work = clock::now();
        if (n == 0 && clock::now() - last_work < kLinger) {
            lk.unlock();
            sched_yield();
            lk.lock();
            continue;
        }
        if (n != 0 || !tp->arm()) {
            // Busy (idle::agent_yields): no sleep, but maybe the core.
            if (idle::agent_yields(n, agent.api_waiters.load(std::memory_order_relaxed) > 0, yield_at_once)) {
                lk.unlock();
                sched_yield();
                lk.lock();
            }
            continue;
        }
        lk.unlock();
        epoll_event out[2];
        timespec wait{};
        wait.tv_sec = due ? 0 : kSafetyWakeMs / 1000;
        wait.tv_nsec = due ? static_cast<long>(due) * 1000 : (kSafetyWakeMs % 1000) * 1000000L;
        // epoll_pwait2 (Linux 5.11) takes microseconds; before it, epoll_wait
        // rounds the upper layer's looks up to a millisecond.
        int ready = pwait2_missing ? -1 : epoll_pwait2(ep, out, 2, &wait, nullptr);
        if (ready < 0 && (pwait2_missing || errno == ENOSYS)) {
            pwait2_missing = true;
            ready = epoll_wait(ep, out, 2, due ? static_cast<int>((due + 999) / 1000) : kSafetyWakeMs);
        }
        for (int i = 0; i < ready; ++i)
            if (out[i].data.fd == agent.wake_fd) {
                uint64_t v;
                if (read(agent.wake_fd, &v, sizeof v) < 0) { /* nothing to drain */
                }
            }
        lk.lock();
    }
    close(ep);
}

void Runtime::stop_agent_thread(std::unique_lock<std::mutex> &lk) {
    if (!agent.thread.joinable()) return;
    agent.stop = true;
    wake_agent();
    lk.unlock();
    agent.thread.join();
    lk.lock();
    close(agent.wake_fd);
    agent.wake_fd = -1;
}

std::unique_lock<std::mutex> Runtime::lock_api() {
    agent.api_waiters.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lk(mu);
    agent.api_waiters.fetch_sub(1, std::memory_order_relaxed);
    return lk;
}

}  // namespace acpx::basic
