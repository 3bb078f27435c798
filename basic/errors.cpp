#include "errors.hpp"

#include <cctype>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <unordered_map>

#include "acp.h"

namespace acpx::basic {
namespace {
// Each API call clears the calling thread's last error, so finding it
// must cost nothing: a plain pointer, initial-exec (a fixed offset from
// the thread pointer, no __tls_get_addr call, and 8 bytes fit glibc's
// static TLS reserve even when the library is dlopen'ed). An object with
// a constructor would need a guard variable, and that a __tls_get_addr
// call at every use (together a tenth of a one-member round). The object
// is a thread_local that only a thread's errors touch (the first sets the
// pointer; its destructor, at thread exit, clears it).
struct LastError {
    std::string error, arg, reason;
};
thread_local LastError *tls_last __attribute__((tls_model("initial-exec"))) = nullptr;

LastError &last_for_writing() {
    detail::tls_error_held = true;
    if (!tls_last) {
        struct Owner {
            LastError e;
            ~Owner() { tls_last = nullptr; }  // at thread exit
        };
        thread_local Owner owner;
        tls_last = &owner.e;
    }
    return *tls_last;
}

const std::string &none() {
    static const std::string empty;
    return empty;
}

std::string vformat(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, ap);
    return out;
}
// A program that ignores a failure and calls again, millions of times,
// must not bury its output (a run once wrote 117 million lines). Lines of
// one shape (the line with its numbers taken out: GMA 12 and GMA 13 are
// one shape) form a burst until a second passes without one; the first
// kAll lines of a burst are printed, then only its 128th, 256th, ...
// line, saying so: 117 million lines of one shape print 127.
class RepeatFilter {
  public:
    static constexpr uint64_t kAll = 100;

    // 0: do not print this line; else its number in its burst.
    uint64_t admit(const std::string &line) {
        std::string shape;
        shape.reserve(line.size());
        for (char c : line)
            if (!std::isdigit(static_cast<unsigned char>(c)))
                shape += c;
            else if (shape.empty() || shape.back() != '#')
                shape += '#';
        const auto now = std::chrono::steady_clock::now();
        std::lock_guard lk(mu_);
        if (bursts_.size() > 4096) bursts_.clear();  // that many shapes: a bound, not a burst
        Burst &b = bursts_[shape];
        if (now - b.last > std::chrono::seconds(1)) b.n = 0;
        b.last = now;
        const uint64_t n = ++b.n;
        return n <= kAll || (n & (n - 1)) == 0 ? n : 0;
    }

  private:
    struct Burst {
        uint64_t n = 0;
        std::chrono::steady_clock::time_point last{};
    };
    std::mutex mu_;  // report() runs on the application thread and the agent
    std::unordered_map<std::string, Burst> bursts_;
};

// Leaked on purpose: reports may come from threads still running at exit.
RepeatFilter &repeats() {
    static auto *f = new RepeatFilter;
    return *f;
}

void print(const std::string &line) {
    const uint64_t n = repeats().admit(line);
    if (n == 0) return;
    if (n <= RepeatFilter::kAll)
        std::fprintf(stderr, "%s\n", line.c_str());
    else
        std::fprintf(
            stderr,
            "%s [line %llu like this within a second of the last; past %llu, only every power of two is printed]\n",
            line.c_str(), static_cast<unsigned long long>(n), static_cast<unsigned long long>(RepeatFilter::kAll));
}

}  // namespace

bool report(const char *fn, const char *arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    LastError &e = last_for_writing();
    e.reason = vformat(fmt, ap);
    va_end(ap);
    e.arg = arg;
    e.error = std::string("acpx: ") + fn + ": " + arg + ": " + e.reason;
    print(e.error);
    return false;
}

void warn(const char *fn, const char *arg, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const std::string reason = vformat(fmt, ap);
    va_end(ap);
    print(std::string("acpx: ") + fn + ": " + arg + ": warning: " + reason);
}

const std::string &last_error() { return tls_last ? tls_last->error : none(); }
const std::string &last_error_arg() { return tls_last ? tls_last->arg : none(); }
const std::string &last_error_reason() { return tls_last ? tls_last->reason : none(); }
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
    last_for_writing() = {error, arg, reason};
}

namespace detail {

thread_local bool tls_error_held __attribute__((tls_model("initial-exec"))) = false;

void clear_held_error() {
    tls_error_held = false;
    if (LastError *e = tls_last) {
        e->error.clear();
        e->arg.clear();
        e->reason.clear();
    }
}

}  // namespace detail

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
