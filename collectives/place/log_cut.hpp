// Concurrent Communication Sets from a communication log: the seed's
// Fig. 2 (section 4.3), with what it leaves open decided as below.
//
// The log: one line per call, "TASK OP PEER [BYTES]", in each task's
// order of calls (lines of different tasks may interleave in any way);
// OP is send or recv (blocking), isend or irecv (non-blocking), or wait
// (completes every earlier non-blocking call of TASK with PEER). BYTES is
// a send's message size (default 1 MiB; ignored elsewhere). # comments.
//
// Matching (open in the seed): MPI's non-overtaking order, the k-th send
// of task a to b with the k-th receive of b from a, over the whole log.
// Each pass of Fig. 2 looks at every task's window: its calls from the
// first not yet taken, up to and including the first blocking call or
// wait. A send or receive may go when its partner call lies in the
// partner's window; a wait when every call it completes went in this
// pass or before. Everything that may go is taken; the messages of the
// sends taken are the pass's CCS (messages of a task to itself cross no
// link and are left out; passes without messages make no CCS). A pass
// that takes nothing while calls remain is a deadlock: the log is
// rejected, naming a task and its stuck call.
#pragma once

#include <string>
#include <vector>

#include "pattern.hpp"

namespace acpx::collectives::place {

struct LogCall {
    enum Kind : uint8_t { kSend, kIsend, kRecv, kIrecv, kWait } kind;
    uint32_t peer = 0;
    uint64_t bytes = 0;
    int line = 0;  // in the log file, for errors
};

// calls[t]: task t's calls in order. The CCS, or false with *why naming
// the task, the call and its line when sends and receives do not match.
bool cut_log(const std::vector<std::vector<LogCall>> &calls, std::vector<Ccs> *out, std::string *why);

// Reads a log (above) and cuts it: the pattern's tasks are the largest
// task or peer index + 1.
bool read_log_pattern(const std::string &path, Pattern *out, std::string *why);

}  // namespace acpx::collectives::place
