// How the persistent collectives' waits use the core (ACP_IDLE; the
// middle layer asks layer::yield_at_once()). A rank that polls while
// a rank sharing its core has work delays that rank by the rest of its
// time slice or until it yields: on the 2-core VM, 4 ranks' 8 B allgather
// took 9-10 us a round when waits polled 64 times before yielding, and
// 2.7-3.3 us when they yielded after every empty poll. With a core to
// itself a rank does better polling (2 ranks: 0.29 against 0.34 us), so
// the default decides by whether the node's ranks outnumber its CPUs.
// The basic layer's own waits (wait.ipp) keep polling first: a copy
// through the transport completes by the waiting thread's progress calls.
// The progress agent (agent.cpp) follows the same policy between rounds
// it cannot sleep through (agent_yields).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace acpx::basic::idle {

enum class Policy : uint8_t { kAuto, kSpin, kYield };

// "auto", "spin" or "yield"; false for anything else.
bool parse(const char *text, Policy *out);
const char *name(Policy p);

// The CPUs this process may run on (its affinity mask, CPUs 0-1023), in
// the form the ranks exchange at start-up.
using CpuMask = std::array<uint64_t, 16>;
CpuMask own_cpus();

// The CPUs that ranks with these masks may run on: those in any of them.
unsigned cpus_in_union(const std::vector<CpuMask> &masks);

// Whether an empty poll should yield the core at once: always for kYield,
// never for kSpin; for kAuto when the ranks of this node outnumber the
// CPUs they may run on (bound or not: the union of their masks).
bool yield_at_once(Policy p, unsigned node_ranks, unsigned node_cpus);

// Whether the progress agent yields the core before its next round when
// it cannot sleep (its round made `progressed` progress calls' worth, or
// the transport would not arm its event): when an application thread
// waits for the lock; and after an empty round where empty polls yield at
// once. The transport cannot arm while a put into a user's array waits
// for its target's progress (UCX's emulated RMA, without CMA), and that
// target may need this very core: polling on, a crowded 4-rank binomial
// bcast of 1 MiB (ACP_CMA=0) took 28-72 ms a round instead of 0.5-1 ms.
bool agent_yields(unsigned progressed, bool app_waiting, bool yield_at_once);

}  // namespace acpx::basic::idle
