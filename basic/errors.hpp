// One place that formats and prints every error of the runtime, so that
// all of them share the "acpx: <function>: <argument>: <reason>" shape the
// C API documents, and so the C++ API can rethrow the same text.
#pragma once

#include <string>

namespace acpx::basic {

// Prints "acpx: fn: arg: reason" (printf-style reason) on stderr and keeps
// the line as this thread's last error. Lines that repeat, but for their
// numbers, within a second of each other are thinned out past the 100th
// (errors.cpp); every one is still this thread's last error. Always returns false so callers can
// write `return report(...), FAILURE_VALUE;` or `if (!ok) return report(...)`.
[[gnu::format(printf, 3, 4)]] bool report(const char *fn, const char *arg, const char *fmt, ...);

// The last line report() printed on this thread ("" if none), and the
// argument and reason it named, to pass on to another rank.
const std::string &last_error();
const std::string &last_error_arg();
const std::string &last_error_reason();
// Every API call clears it on entry: while there is none to clear, that
// costs a load of a thread-local flag (initial-exec: a fixed offset from
// the thread pointer), inline.
namespace detail {
extern thread_local bool tls_error_held __attribute__((tls_model("initial-exec")));
void clear_held_error();
}  // namespace detail
inline void clear_last_error() {
    if (detail::tls_error_held) detail::clear_held_error();
}
// Makes a line printed earlier this thread's last error again, without
// printing it (a call that failed on an argument reported before other
// calls cleared it).
void restore_last_error(const std::string &error, const std::string &arg, const std::string &reason);

// Inside a catch handler of a C entry point: reports the exception in
// flight as fn's error ("acpx: fn: memory: out of memory", or its what()),
// so that nothing is thrown across the C ABI. Always returns false.
bool report_exception(const char *fn);

// Prints "acpx: fn: arg: warning: <reason>" on stderr: something the
// job survives but its user should hear of (a slower path taken). Not an
// error: last_error() stays as it was.
[[gnu::format(printf, 3, 4)]] void warn(const char *fn, const char *arg, const char *fmt, ...);

// Prints "acpx: rank R: fatal: <what>" and ends the job (acp_abort).
[[noreturn, gnu::format(printf, 1, 2)]] void fatal(const char *fmt, ...);

}  // namespace acpx::basic
