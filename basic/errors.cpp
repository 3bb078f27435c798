#include "errors.hpp"

#include <cstdarg>
#include <cstdio>

#include "acp.h"

namespace acpx::basic {
namespace {
thread_local std::string tls_last_error, tls_last_arg, tls_last_reason;

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
    tls_last_reason = vformat(fmt, ap);
    va_end(ap);
    tls_last_arg = arg;
    tls_last_error = std::string("acpx: ") + fn + ": " + arg + ": " + tls_last_reason;
    std::fprintf(stderr, "%s\n", tls_last_error.c_str());
    return false;
}

const std::string &last_error() { return tls_last_error; }
const std::string &last_error_arg() { return tls_last_arg; }
const std::string &last_error_reason() { return tls_last_reason; }
void clear_last_error() {
    tls_last_error.clear();
    tls_last_arg.clear();
    tls_last_reason.clear();
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
