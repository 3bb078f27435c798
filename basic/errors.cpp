#include "errors.hpp"

#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>

#include "acp.h"

namespace acpx::basic {
namespace {
// One thread_local: each API call clears it, and in a shared library
// every thread_local costs a __tls_get_addr call to find.
struct LastError {
    std::string error, arg, reason;
};
thread_local LastError tls_last;

std::string vformat(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, ap);
    return out;
}
}  // namespace

bool report(const char *fn, const char *arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    LastError &e = tls_last;
    e.reason = vformat(fmt, ap);
    va_end(ap);
    e.arg = arg;
    e.error = std::string("acpx: ") + fn + ": " + arg + ": " + e.reason;
    std::fprintf(stderr, "%s\n", e.error.c_str());
    return false;
}

void warn(const char *fn, const char *arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const std::string reason = vformat(fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "acpx: %s: %s: warning: %s\n", fn, arg, reason.c_str());
}

const std::string &last_error() { return tls_last.error; }
const std::string &last_error_arg() { return tls_last.arg; }
const std::string &last_error_reason() { return tls_last.reason; }
bool report_exception(const char *fn) {
    try {
        throw;
    } catch (const std::bad_alloc &) {
        return report(fn, "memory", "out of memory");
    } catch (const std::exception &e) {
        return report(fn, "internal", "%s", e.what());
    } catch (...) {
        return report(fn, "internal", "an unknown exception");
    }
}

void restore_last_error(const std::string &error, const std::string &arg, const std::string &reason) {
    tls_last = {error, arg, reason};
}

void clear_last_error() {
    LastError &e = tls_last;
    e.error.clear();
    e.arg.clear();
    e.reason.clear();
}

void fatal(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const std::string what = vformat(fmt, ap);
    va_end(ap);
    acp_abort(what.c_str());
    __builtin_unreachable();
}

}  // namespace acpx::basic

// For the C++ API's exceptions (include/acpx/acpx.hpp).
extern "C" const char *acpx_last_error(void) { return acpx::basic::last_error().c_str(); }
