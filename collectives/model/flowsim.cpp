#include "flowsim.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

namespace acpx::collectives::model::flowsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// A flow with less than this many bytes left has ended (rates and times
// are doubles: a flow meant to end with another ends a rounding later).
constexpr double kDoneBytes = 1e-6;

struct Flow {
    uint64_t inst;  // the step instance (iteration x steps + step)
    uint32_t src, dst;
    double left;  // bytes
    double rate = 0;
    const std::vector<uint32_t> *links;
};

// The flows in progress on the links, their max-min fair rates, and the
// clock: starts come in (at their time), ends go out through on_end.
class Fluid {
  public:
    // ports: each node's way into and out of the network is a link of
    // its own too (after the network's links in the arrays).
    Fluid(const Topology &t, double bandwidth, bool ports)
        : t_(t),
          bw_(bandwidth),
          nodes_(t.nodes()),
          ports_(ports),
          cap_(nodes_ * t.dims.size() * 2 + (ports ? 2 * nodes_ : 0)),
          count_(cap_.size(), 0) {}

    const std::vector<uint32_t> *route(uint32_t a, uint32_t b) {
        auto [it, fresh] = routes_.try_emplace(uint64_t{a} * nodes_ + b);
        if (!fresh) return &it->second;
        const uint64_t ports_at = nodes_ * t_.dims.size() * 2;
        if (ports_ && a != b) it->second.push_back(static_cast<uint32_t>(ports_at + a));
        for (const Link &l : model::route(t_, a, b))
            it->second.push_back(static_cast<uint32_t>((l.node * t_.dims.size() + l.dim) * 2 + (l.dir > 0)));
        if (ports_ && a != b) it->second.push_back(static_cast<uint32_t>(ports_at + nodes_ + b));
        return &it->second;
    }

    void start_at(double when, Flow f) { starts_.push({when, seq_++, f}); }

    // Runs until no flow is waiting or in progress; on_end(flow, time)
    // may start more.
    double run(const std::function<void(const Flow &, double)> &on_end) {
        while (!starts_.empty() || !active_.empty()) {
            double next = starts_.empty() ? kInf : starts_.top().when;
            for (const Flow &f : active_) next = std::min(next, now_ + f.left / f.rate);
            // The flows that end at `next` end exactly (their bytes over
            // the clock's rounding could leave a remainder forever).
            for (Flow &f : active_) f.left = now_ + f.left / f.rate <= next ? 0 : f.left - f.rate * (next - now_);
            now_ = std::max(now_, next);
            bool changed = false;
            for (size_t i = 0; i < active_.size();) {
                if (active_[i].left > kDoneBytes) {
                    ++i;
                    continue;
                }
                const Flow done = active_[i];
                active_[i] = active_.back();
                active_.pop_back();
                changed = true;
                on_end(done, now_);
            }
            while (!starts_.empty() && starts_.top().when <= now_) {
                Flow f = starts_.top().flow;
                starts_.pop();
                changed = true;
                if (f.left <= kDoneBytes) {
                    on_end(f, now_);
                    continue;
                }
                active_.push_back(f);
            }
            if (changed) share();
        }
        return now_;
    }

    double now() const { return now_; }

  private:
    // Max-min fairness by progressive filling: the links whose fair share
    // is the lowest fix the rate of every flow still free on them; repeat
    // with what is left. No flow runs above the bandwidth.
    void share() {
        touched_.clear();
        for (Flow &f : active_) {
            f.rate = -1;
            for (const uint32_t l : *f.links) {
                if (count_[l]++ == 0) touched_.push_back(l), cap_[l] = bw_;
            }
        }
        size_t free = active_.size();
        while (free) {
            double s = bw_;
            for (const uint32_t l : touched_)
                if (count_[l]) s = std::min(s, cap_[l] / count_[l]);
            for (Flow &f : active_) {
                if (f.rate >= 0) continue;
                bool bottleneck = s >= bw_;
                for (const uint32_t l : *f.links)
                    if (count_[l] && cap_[l] / count_[l] <= s * (1 + 1e-12)) bottleneck = true;
                if (!bottleneck) continue;
                f.rate = s;
                --free;
                for (const uint32_t l : *f.links) cap_[l] -= s, --count_[l];
            }
        }
        for (const uint32_t l : touched_) count_[l] = 0;
    }

    struct Start {
        double when;
        uint64_t seq;  // first come, first started among equal times
        Flow flow;
        bool operator<(const Start &o) const { return when != o.when ? when > o.when : seq > o.seq; }
    };

    const Topology &t_;
    double bw_;
    uint64_t nodes_;
    bool ports_;
    std::unordered_map<uint64_t, std::vector<uint32_t>> routes_;
    std::vector<double> cap_;
    std::vector<uint32_t> count_, touched_;
    std::vector<Flow> active_;
    std::priority_queue<Start> starts_;
    uint64_t seq_ = 0;
    double now_ = 0;
};

}  // namespace

Result simulate(const Topology &t, const std::vector<uint32_t> &map, const std::vector<Step> &steps_in,
                const Params &p) {
    // Messages of a task to itself are dropped: they hold nothing up.
    std::vector<Step> steps;
    uint32_t tasks = 0;
    for (const Step &s : steps_in) {
        Step kept;
        for (const Message &m : s)
            if (m.src != m.dst) kept.push_back(m), tasks = std::max({tasks, m.src + 1, m.dst + 1});
        if (!kept.empty()) steps.push_back(std::move(kept));
    }
    Result r;
    if (steps.empty() || p.iterations == 0) return r;
    Fluid net(t, p.bandwidth, p.ports);
    const uint64_t n = steps.size(), instances = n * p.iterations;
    auto flow_of = [&](uint64_t inst, const Message &m) {
        ++r.flows;
        return Flow{inst, m.src, m.dst, static_cast<double>(m.bytes), 0, net.route(map[m.src], map[m.dst])};
    };

    if (p.barrier) {
        for (uint64_t k = 0; k < instances; ++k) {
            const double at = net.now() + (k ? p.beta : 0) + p.alpha;
            for (const Message &m : steps[k % n]) net.start_at(at, flow_of(k, m));
            net.run([](const Flow &, double) {});
        }
        r.seconds = net.now();
        return r;
    }

    // Per step, the messages of each task (as sender or receiver).
    std::vector<std::vector<std::vector<uint32_t>>> mine(n, std::vector<std::vector<uint32_t>>(tasks));
    for (uint64_t s = 0; s < n; ++s)
        for (uint32_t i = 0; i < steps[s].size(); ++i) {
            mine[s][steps[s][i].src].push_back(i);
            mine[s][steps[s][i].dst].push_back(i);
        }
    // Each task works through its instances in order: inst[t] is the one
    // it is in (instances when done), left[t] its messages there not yet
    // ended, ready[t] when it ended the one before.
    std::vector<uint64_t> inst(tasks, instances);
    std::vector<uint32_t> left(tasks, 0);
    std::vector<double> ready(tasks, 0);
    std::vector<uint8_t> arrived(tasks, 0);
    auto next_of = [&](uint32_t task, uint64_t from) {
        for (uint64_t k = from; k < instances; ++k)
            if (!mine[k % n][task].empty()) return k;
        return instances;
    };
    // Task `task` enters instance k at `when`: each of its messages there
    // whose other task is in k already starts alpha after both.
    std::function<void(uint32_t, uint64_t, double)> enter = [&](uint32_t task, uint64_t k, double when) {
        inst[task] = k;
        ready[task] = when;
        if (k >= instances) return;
        left[task] = static_cast<uint32_t>(mine[k % n][task].size());
        arrived[task] = 1;
        for (const uint32_t i : mine[k % n][task]) {
            const Message &m = steps[k % n][i];
            const uint32_t other = m.src == task ? m.dst : m.src;
            if (inst[other] == k && arrived[other])
                net.start_at(std::max(ready[m.src], ready[m.dst]) + p.alpha, flow_of(k, m));
        }
    };
    for (uint32_t task = 0; task < tasks; ++task) enter(task, next_of(task, 0), 0);
    auto end_of = [&](uint32_t task, double when) {
        if (--left[task] == 0) {
            arrived[task] = 0;
            enter(task, next_of(task, inst[task] + 1), when);
        }
    };
    r.seconds = net.run([&](const Flow &f, double when) {
        end_of(f.src, when);
        end_of(f.dst, when);
    });
    return r;
}

}  // namespace acpx::collectives::model::flowsim
