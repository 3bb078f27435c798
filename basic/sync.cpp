// acp_sync's barrier: dissemination over the transport, ceil(log2 P)
// rounds; in round k rank r signals r+2^k and waits for r-2^k. A peer can
// be at most one barrier ahead, so counts are kept per epoch parity.
#include "errors.hpp"
#include "protocol.hpp"
#include "runtime.hpp"

namespace acpx::basic {

bool Runtime::barrier(std::unique_lock<std::mutex> &lk, const char *fn) {
    const uint64_t epoch = sync.epoch++;
    unsigned round = 0;
    for (int dist = 1; dist < procs; dist <<= 1, ++round) {
        const int to = (rank + dist) % procs;
        const int from = (rank - dist % procs + procs) % procs;
        if (!send(to, proto::pack(proto::Sync{proto::Type::kSync, static_cast<uint32_t>(rank), epoch, round})))
            return report(fn, "barrier", "cannot reach rank %d", to);
        unsigned &count = sync.count[epoch & 1][round];
        wait_locked(
            lk, fn, [&] { return count > 0; },
            [&] {
                return "rank " + std::to_string(from) + " to reach the barrier (round " + std::to_string(round) + ")";
            },
            [] { return 0; }, [&] { return from; });
        --count;
    }
    return true;
}

}  // namespace acpx::basic
