// What a placement is searched for (seed 000, section 4.3): a program's
// tasks and the messages of its kernel, grouped into Concurrent
// Communication Sets (CCS). A CCS holds messages that start at the same
// time: none depends on another, and (for TAC3's own objective) no two
// share a sender or a receiver. The CCS come in the order the kernel runs
// them; one pass of the kernel is the pattern.
//
// Sources (parse_pattern's spec):
//   cg:N[:BYTES]                 NPB CG's kernel on N tasks (cg_pattern)
//   bcast:ALGO:P[:BYTES]         a persistent collective's command lists,
//   allgather:ALGO:P[:BYTES]       one CCS per step of the model's schedule
//                                (knomial and pipeline with their parameter:
//                                bcast:knomial:4:64)
//   log:FILE                     a per-task communication log, cut into
//                                CCS by the seed's Fig. 2 (log_cut.hpp)
//   ccs:FILE                     CCS given by hand (read_ccs), as the seed's
//                                authors built theirs (section 7)
//   matrix:FILE                  bytes between tasks, no CCS (TAHB, O2F only)
// BYTES defaults to 1 MiB, the seed's message size (section 5.1).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "collectives/model/flowsim.hpp"
#include "collectives/model/predict.hpp"

namespace acpx::collectives::place {

struct Message {
    uint32_t src = 0, dst = 0;
    uint64_t bytes = 0;
    bool operator==(const Message &o) const { return src == o.src && dst == o.dst && bytes == o.bytes; }
};

using Ccs = std::vector<Message>;

struct Pattern {
    uint32_t tasks = 0;
    std::vector<Ccs> ccs;  // in the kernel's order; empty for a traffic matrix
    // Bytes from task to task over the whole kernel, each pair once
    // (src != dst): what the hop-bytes objectives (TAHB, O2F) weigh. Built
    // from the CCS (traffic_of) or read from a matrix.
    std::vector<Message> traffic;
};

inline constexpr uint64_t kDefaultBytes = 1 << 20;

// The pair totals of ccs, sorted by (src, dst); messages of a task to
// itself are left out (they cross no link).
std::vector<Message> traffic_of(uint32_t tasks, const std::vector<Ccs> &ccs);

// A round as the model schedules it (predict.hpp), over its members:
// one CCS a step, steps without messages left out; a message of no bytes
// counts as one (it still takes its links and ports).
Pattern pattern_of_steps(const std::vector<model::Step> &steps, uint32_t tasks);

// NPB CG (3.3, setup_submatrix_info and conj_grad) on n tasks, a power of
// two: the tasks sit on an npcols x nprows grid (task = row * npcols +
// col), npcols = nprows, or 2 x nprows where n is not a square. Each
// iteration has log2(npcols) row exchanges: at step s = 1.., column c
// swaps `bytes` with column c xor (npcols >> s) of its row, both ways,
// one CCS a step; then the transpose, one CCS: task t sends to NPB's
// exch_proc(t) (a task paired with itself sends nothing).
bool cg_pattern(uint32_t n, uint64_t bytes, Pattern *out, std::string *why);

// The first problem that makes pattern p unfit for TAC3's eq. (1), whose
// coll counts links only: "CCS 3: task 5 sends twice; use tac3-ports"
// (or receives twice); "" when every CCS is one message a task each way.
std::string single_port_problem(const Pattern &p);

// A traffic matrix: one line per pair, "SRC DST BYTES" (# comments, blank
// lines skipped); the task count is the largest index + 1. Pairs may
// repeat (their bytes add up).
bool read_matrix(const std::string &path, Pattern *out, std::string *why);

// CCS by hand: one message per line, "SRC DST [BYTES]" (BYTES default
// 1 MiB), a line "--" between two CCS (# comments, blank lines skipped);
// the task count is the largest index + 1.
bool read_ccs(const std::string &path, Pattern *out, std::string *why);

// The pattern files' reader: each line of the file at `path` as its
// words, after a # comment is cut, blank lines skipped. take(line number,
// words) returns "" or why the line is bad; then false, *why
// "PATH:LINE: why".
bool read_words(const std::string &path, const std::function<std::string(int, const std::vector<std::string> &)> &take,
                std::string *why);

// The CCS as the flow simulator's steps (model/flowsim.hpp).
std::vector<model::flowsim::Step> flow_steps(const Pattern &p);

// Any of the sources above, by spec. Errors name the spec's part.
bool parse_pattern(const std::string &spec, Pattern *out, std::string *why);

}  // namespace acpx::collectives::place
