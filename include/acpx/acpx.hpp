// acpx C++ API: RAII and exceptions over the C API of <acp.h>.
//
//   acpx::Runtime rt(argc, argv);            // acp_init / acp_finalize
//   std::vector<double> v(n);
//   acpx::Registration reg(std::span(v));    // acp_register_memory / unregister
//   acpx::Handle h = acpx::copy(dst, reg.ga(), bytes);
//   h.wait();                                // acp_complete
//
// Every failure of the C API becomes an acpx::Error whose what() is the
// line the C API printed ("acpx: <function>: <argument>: <reason>").
#pragma once

#include <acp.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace acpx {

// The last error line acpx printed on this thread (for exceptions).
extern "C" const char *acpx_last_error(void);

class Error : public std::runtime_error {
  public:
    // After a failed C call: the line it printed (fallback if none).
    explicit Error(const char *fallback) : std::runtime_error(*acpx_last_error() ? acpx_last_error() : fallback) {}
    // A failure the C++ API itself detects, with its own text.
    struct Own {};
    Error(Own, const std::string &text) : std::runtime_error(text) {}
};

// Starts acpx for the lifetime of the object (one per process).
class Runtime {
  public:
    Runtime() : Runtime(nullptr, nullptr) {}
    Runtime(int *argc, char ***argv) {
        if (acp_init(argc, argv) != 0) throw Error("acpx: acp_init failed");
    }
    ~Runtime() { acp_finalize(); }
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    int rank() const { return acp_rank(); }
    int procs() const { return acp_procs(); }
    void sync() const {
        if (acp_sync() != 0) throw Error("acpx: acp_sync failed");
    }
};

// A registration of a span of this process's memory.
class Registration {
  public:
    template <class T, std::size_t N>
    explicit Registration(std::span<T, N> s, int color = 0)
        : base_(const_cast<void *>(static_cast<const void *>(s.data()))), bytes_(s.size_bytes()) {
        key_ = acp_register_memory(base_, bytes_, color);
        if (key_ == ACP_ATKEY_NULL) throw Error("acpx: acp_register_memory failed");
    }
    ~Registration() {
        if (key_ != ACP_ATKEY_NULL) acp_unregister_memory(key_);
    }
    Registration(Registration &&o) noexcept
        : key_(std::exchange(o.key_, ACP_ATKEY_NULL)), base_(o.base_), bytes_(o.bytes_) {}
    Registration &operator=(Registration &&) = delete;
    Registration(const Registration &) = delete;

    // GA of byte `offset` of the span.
    acp_ga_t ga(std::size_t offset = 0) const {
        if (offset >= bytes_) throw std::out_of_range("acpx::Registration::ga: offset past the span");
        return acp_query_ga(key_, static_cast<char *>(base_) + offset);
    }
    acp_atkey_t key() const { return key_; }
    std::size_t size_bytes() const { return bytes_; }

  private:
    acp_atkey_t key_ = ACP_ATKEY_NULL;
    void *base_ = nullptr;
    std::size_t bytes_ = 0;
};

// A GMA in flight. wait() and test() throw if it failed (acp_complete:
// its destination bytes are undefined; acpx printed a line naming it).
class Handle {
  public:
    explicit Handle(acp_handle_t h = ACP_HANDLE_NULL) : h_(h) {}
    void wait() const {
        acp_complete(h_);
        if (acp_inquire(h_) < 0) throw failed();
    }
    bool test() const {
        const int r = acp_inquire(h_);
        if (r < 0) throw failed();
        return r == 0;
    }
    acp_handle_t get() const { return h_; }

  private:
    Error failed() const {
        return Error(
            ("acpx: GMA " + std::to_string(h_) + " failed; its destination bytes are undefined (acpx printed why)")
                .c_str());
    }
    acp_handle_t h_;
};

inline Handle copy(acp_ga_t dst, acp_ga_t src, std::size_t bytes, Handle after = Handle(ACP_HANDLE_NULL)) {
    const acp_handle_t h = acp_copy(dst, src, bytes, after.get());
    if (h == ACP_HANDLE_NULL) throw Error("acpx: acp_copy failed");
    return Handle(h);
}

}  // namespace acpx
