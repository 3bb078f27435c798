// The round calls of acp.h without their entry (the initialized check,
// State::get, AppCall): api.cpp's C functions make that entry and call
// these; so do the one-call collectives (one_call.cpp), once for the
// whole call and under their own name, so a small round pays for one
// entry, not three, and an error is reported once, naming the user's call.
#pragma once

#include <acp.h>

#include <string>

#include "col.hpp"

namespace acpx::middle {

// acp_send_bcast_buffered (in == out) and acp_send_allgather_buffered.
acp_request_t send_buffered_on(const char *fn, State &st, acp_col_t h, Kind kind, const void *in, void *out,
                               size_t size);
// acp_send_allreduce.
acp_request_t send_allreduce_on(const char *fn, State &st, acp_col_t h, const void *sendbuf, void *recvbuf);
// What a wait asks, every kStopPolls polls in a row that moved nothing:
// a reason to give the round up (it fails with it, and the handle is
// unusable), or "" to go on.
struct WaitStop {
    std::string (*why)(State &st, const void *arg);
    const void *arg;
};
inline constexpr unsigned kStopPolls = 256;
// acp_wait_col (stop: nullptr).
int wait_on(const char *fn, State &st, acp_request_t req, const WaitStop *stop = nullptr);

}  // namespace acpx::middle
