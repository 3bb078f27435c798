// acpx C++ API for persistent collectives: RAII handles over the C API of
// <acp.h> (see its "Persistent collectives" section for the semantics).
//
//   std::vector<double> v(n);
//   acpx::BcastDirect bc(root, group, std::span(v));   // create (collective)
//   for (...) bc.send(0, v.size()).wait();              // rounds
//                                                       // ~BcastDirect: free
//
//   acpx::AllgatherBuffered ag(group, 64 << 10);
//   ag.send(std::span(mine), std::span(all)).wait();
//
//   acpx::Allreduce<double> sum(group, n, acpx::Op::kSum);
//   sum.send(std::span(in), std::span(out)).wait();      // or sum.send(std::span(v)): in place
//
//   acpx::AllgatherDirect ring(group, std::span(v), block, acpx::Algorithm{"ring"});
//   ring.algorithm();                                    // "ring"
//
// Without an Algorithm the model picks one per handle (or the
// ACP_COL_*_ALGO variables force one); see acp_set_col_algorithm.
//
// Every failure throws acpx::Error carrying the line the C API printed
// ("acpx: <function>: <argument>: <reason>").
#pragma once

#include <acp.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <span>
#include <utility>

#include "acpx.hpp"

namespace acpx {

// Forces the algorithm of one handle at its create, by the names
// ACP_COL_*_ALGO take ("ring", "knomial:3"); empty: the usual choice. It
// sets acp_set_col_algorithm for the create and clears it after.
struct Algorithm {
    const char *name = nullptr;
};

// One round of a handle. wait(): this member's part is done; test(): has it?
class Request {
  public:
    explicit Request(acp_request_t r) : r_(r) {}
    void wait() const {
        if (acp_wait_col(r_) != 0) throw Error("acpx: acp_wait_col failed");
    }
    bool test() const {
        const int s = acp_test_col(r_);
        if (s < 0) throw Error("acpx: acp_test_col failed");
        return s == 1;
    }
    acp_request_t get() const { return r_; }

  private:
    acp_request_t r_;
};

// What every handle shares: ownership (move-only; the destructor frees).
class Collective {
  public:
    Collective(const Collective &) = delete;
    Collective &operator=(const Collective &) = delete;
    Collective(Collective &&o) noexcept : h_(std::exchange(o.h_, ACP_COL_NULL)) {}
    Collective &operator=(Collective &&o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, ACP_COL_NULL);
        }
        return *this;
    }
    ~Collective() { reset(); }

    // Bytes this process holds for the handle (acp_query_col_memory).
    std::size_t memory() const { return acp_query_col_memory(h_); }
    // The handle's algorithm (acp_query_col_algorithm).
    const char *algorithm() const { return acp_query_col_algorithm(h_); }
    acp_col_t get() const { return h_; }

  protected:
    explicit Collective(acp_col_t h, const char *what) : h_(h) {
        if (h_ == ACP_COL_NULL) throw Error(what);
    }
    static Request started(acp_request_t r, const char *what) {
        if (r == ACP_REQUEST_NULL) throw Error(what);
        return Request(r);
    }
    // Runs create() with `a` forced for allreduce handles.
    template <class Create>
    static acp_col_t forcing_allreduce(Algorithm a, Create create) {
        if (!a.name) return create();
        if (acp_set_col_allreduce_algorithm(a.name) != 0) return ACP_COL_NULL;
        const acp_col_t h = create();
        acp_set_col_allreduce_algorithm("");
        return h;
    }
    // Runs create() with `a` forced for bcast (or allgather) handles.
    template <class Create>
    static acp_col_t forcing(Algorithm a, bool bcast, Create create) {
        if (!a.name) return create();
        if (acp_set_col_algorithm(bcast ? a.name : nullptr, bcast ? nullptr : a.name) != 0) return ACP_COL_NULL;
        const acp_col_t h = create();
        acp_set_col_algorithm(bcast ? "" : nullptr, bcast ? nullptr : "");
        return h;
    }
    static int *ranks(std::span<const int> group) { return const_cast<int *>(group.data()); }
    static int count(std::span<const int> group) { return static_cast<int>(group.size()); }

  private:
    void reset() {
        if (h_ != ACP_COL_NULL) acp_free_col(h_);
        h_ = ACP_COL_NULL;
    }
    acp_col_t h_ = ACP_COL_NULL;
};

// Broadcast between the members' own arrays (registered once, at create).
class BcastDirect : public Collective {
  public:
    template <class T, std::size_t N>
    BcastDirect(int root, std::span<const int> group, std::span<T, N> array, Algorithm algo = {})
        : Collective(forcing(algo, true,
                             [&] {
                                 return acp_create_bcast_direct(
                                     root, count(group), ranks(group),
                                     const_cast<void *>(static_cast<const void *>(array.data())), array.size_bytes());
                             }),
                     "acpx: acp_create_bcast_direct failed") {}
    // Bytes [offset, offset + bytes) of the root's array to everyone's.
    Request send(std::size_t offset, std::size_t bytes) {
        return started(acp_send_bcast_direct(get(), offset, bytes), "acpx: acp_send_bcast_direct failed");
    }
};

// Broadcast through library buffers: any array, any size, each round.
class BcastBuffered : public Collective {
  public:
    BcastBuffered(int root, std::span<const int> group, std::size_t buffer_bytes, Algorithm algo = {})
        : Collective(forcing(algo, true,
                             [&] { return acp_create_bcast_buffered(root, count(group), ranks(group), buffer_bytes); }),
                     "acpx: acp_create_bcast_buffered failed") {}
    template <class T, std::size_t N>
    Request send(std::span<T, N> data) {
        return started(acp_send_bcast_buffered(get(), const_cast<void *>(static_cast<const void *>(data.data())),
                                               data.size_bytes()),
                       "acpx: acp_send_bcast_buffered failed");
    }
};

// Allgather over np_group blocks of block_bytes in every member's array.
class AllgatherDirect : public Collective {
  public:
    template <class T, std::size_t N>
    AllgatherDirect(std::span<const int> group, std::span<T, N> array, std::size_t block_bytes, Algorithm algo = {})
        : Collective(checked(group, array.size_bytes(), block_bytes)
                         ? forcing(algo, false,
                                   [&] {
                                       return acp_create_allgather_direct(count(group), ranks(group), array.data(),
                                                                          block_bytes);
                                   })
                         : ACP_COL_NULL,
                     "acpx: acp_create_allgather_direct failed") {}
    Request send(std::size_t offset, std::size_t bytes) {
        return started(acp_send_allgather_direct(get(), offset, bytes), "acpx: acp_send_allgather_direct failed");
    }

  private:
    // The span must hold every block: the C API cannot check that.
    static bool checked(std::span<const int> group, std::size_t have, std::size_t block) {
        if (block != 0 && have / block < group.size())
            throw Error(Error::Own{}, "acpx: AllgatherDirect: array: the span is smaller than np_group x block_bytes");
        return true;
    }
};

// Allgather through library buffers: every member's `in` lands in
// everyone's `out` (np_group x in.size_bytes(), in group order).
class AllgatherBuffered : public Collective {
  public:
    AllgatherBuffered(std::span<const int> group, std::size_t buffer_bytes, Algorithm algo = {})
        : Collective(forcing(algo, false,
                             [&] { return acp_create_allgather_buffered(count(group), ranks(group), buffer_bytes); }),
                     "acpx: acp_create_allgather_buffered failed"),
          members_(group.size()) {}
    template <class T, std::size_t N, class U, std::size_t M>
    Request send(std::span<T, N> in, std::span<U, M> out) {
        if (out.size_bytes() < in.size_bytes() * members_)
            throw Error(Error::Own{}, "acpx: AllgatherBuffered::send: out: smaller than np_group x in");
        return started(acp_send_allgather_buffered(get(), in.data(), out.data(), in.size_bytes()),
                       "acpx: acp_send_allgather_buffered failed");
    }

  private:
    std::size_t members_ = 0;
};

// How an allreduce combines its members' elements (acp.h's ACP_OP_*).
enum class Op { kSum = ACP_OP_SUM, kMax = ACP_OP_MAX, kMin = ACP_OP_MIN };

// Allreduce of `count` elements of T (int32_t, int64_t or double) per
// member: any in and out spans of count elements each round.
template <class T>
class Allreduce : public Collective {
    static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, double>,
                  "acpx::Allreduce: T is int32_t, int64_t or double");
    static constexpr int kType = std::is_same_v<T, std::int32_t>   ? ACP_TYPE_INT32
                                 : std::is_same_v<T, std::int64_t> ? ACP_TYPE_INT64
                                                                   : ACP_TYPE_DOUBLE;

  public:
    Allreduce(std::span<const int> group, std::size_t count, Op op, Algorithm algo = {})
        : Collective(forcing_allreduce(algo,
                                       [&] {
                                           return acp_create_allreduce(count_of(group), ranks(group), count, kType,
                                                                       static_cast<int>(op));
                                       }),
                     "acpx: acp_create_allreduce failed"),
          count_(count) {}
    template <std::size_t N, std::size_t M>
    Request send(std::span<const T, N> in, std::span<T, M> out) {
        if (in.size() != count_ || out.size() != count_)
            throw Error(Error::Own{}, "acpx: Allreduce::send: in and out must each hold count elements");
        return started(acp_send_allreduce(get(), in.data(), out.data()), "acpx: acp_send_allreduce failed");
    }
    template <std::size_t N, std::size_t M>
    Request send(std::span<T, N> in, std::span<T, M> out) {
        return send(std::span<const T, N>(in), out);
    }
    // In place: each member's elements are replaced by the result.
    template <std::size_t N>
    Request send(std::span<T, N> inout) {
        return send(std::span<const T, N>(inout), inout);
    }
    std::size_t count() const { return count_; }

  private:
    static int count_of(std::span<const int> group) { return static_cast<int>(group.size()); }
    std::size_t count_ = 0;
};

}  // namespace acpx
