// C API of the persistent collectives (acp.h): argument checks, handle and
// request look-up, waiting. A handle is its id (never reused), so a freed
// handle is recognised rather than dereferenced; a request is the handle
// id and the round's low 24 bits.
#include <chrono>
#include <cstdio>

#include "basic/errors.hpp"
#include "choose.hpp"
#include "create.hpp"
#include "calls.hpp"
#include "round.hpp"

using namespace acpx::middle;
using acpx::basic::report;

namespace {

constexpr uint64_t kRoundBits = 24, kRoundMask = (uint64_t{1} << kRoundBits) - 1;

acp_col_t to_handle(const Col *c) { return reinterpret_cast<acp_col_t>(static_cast<uintptr_t>(c->id)); }

Col *find_col(State &st, acp_col_t h, const char *fn) {
    Col *c = h == ACP_COL_NULL ? nullptr : st.find(reinterpret_cast<uintptr_t>(h));
    if (!c)
        return report(fn, "handle", "%p is not a live handle (ACP_COL_NULL, freed, or never created)",
                      static_cast<void *>(h)),
               nullptr;
    return c;
}

// args_ok: false when the caller already reported one of this member's
// own arguments as bad. Such a member still takes part in the create
// exchange (create.hpp), so every member fails this create with its
// message and the next create on the group works.
acp_col_t create(const char *fn, Params p, int root, int np_group, const int *group, void *array, size_t array_bytes,
                 bool args_ok) {
    // Taken at once: every acp_* call (acp_rank, ...) clears the last
    // error, and the C++ API rethrows this member's own line at the end.
    std::string own_error, own_line, own_arg, own_reason;
    auto keep_error = [&] {
        own_line = acpx::basic::last_error();
        own_arg = acpx::basic::last_error_arg();
        own_reason = acpx::basic::last_error_reason();
        own_error = own_arg + ": " + own_reason;
    };
    if (!args_ok) keep_error();
    uint32_t me = 0;
    // A group that cannot be read leaves no exchange to take part in.
    if (!check_group(fn, np_group, group, &me)) return ACP_COL_NULL;
    if (own_error.empty() && !(check_root(fn, root, np_group, group) && read_choices(fn, &p))) keep_error();
    if (p.kind == Kind::kAllreduce) p.exec = Exec::kDelegated;  // its only way (acp.h)
    p.members = static_cast<uint32_t>(np_group);
    p.root = root;
    State &st = State::get();
    AppCall call(st.owner);
    double predicted_s = 0;
    Col *c = create_col(fn, st, p, me, group, array, array_bytes, own_error, &predicted_s);
    if (!c && !own_error.empty()) acpx::basic::restore_last_error(own_line, own_arg, own_reason);
    if (!c) return ACP_COL_NULL;
    p = c->p;  // with the algorithm
    c->algo_label = st.name_of(algo_name(p));
    if (acpx::basic::layer::verbose() && (p.kind == Kind::kBcast ? c->rank == root : me == 0))
        std::fprintf(stderr,
                     "acpx: rank %d: %s %s handle %llu: %u members, algorithm %s%s (%s), exec %s, "
                     "%zu bytes here\n",
                     c->rank, name_of(p.kind), name_of(p.storage), static_cast<unsigned long long>(c->id), p.members,
                     algo_name(p).c_str(), c->placed ? " placed by tac3" : "",
                     p.auto_algo ? ("model: " + std::to_string(predicted_s * 1e6) + " us a round of " +
                                    std::to_string(p.size) + " B")
                                       .c_str()
                                 : "forced",
                     name_of(p.exec), c->memory());
    return to_handle(c);
}

// The checks every send shares; then starts the round.
acp_request_t start(const char *fn, Col &c) {
    if (!start_round(c, fn)) return ACP_REQUEST_NULL;
    advance(c);
    return reinterpret_cast<acp_request_t>(static_cast<uintptr_t>(c.id << kRoundBits | (c.round & kRoundMask)));
}

// A round from `in` into `out` (buffered, allreduce): its arguments into
// c, then start.
acp_request_t start_from(const char *fn, Col &c, size_t size, const void *in, void *out) {
    c.offset = 0;
    c.size = size;
    c.in = static_cast<const char *>(in);
    c.out = static_cast<char *>(out);
    return start(fn, c);
}

Col *sendable(const char *fn, State &st, acp_col_t h, Storage storage, Kind kind) {
    Col *c = find_col(st, h, fn);
    if (!c) return nullptr;
    if (c->p.storage != storage || c->p.kind != kind)
        return report(fn, "handle", "is a %s %s handle", name_of(c->p.storage), name_of(c->p.kind)), nullptr;
    if (!c->broken.empty())
        return report(fn, "handle", "is unusable after a failed round (%s); free it", c->broken.c_str()), nullptr;
    if (c->active) advance(*c);
    if (c->active)
        return report(fn, "handle", "round %llu is not finished here; acp_wait_col its request first",
                      static_cast<unsigned long long>(c->round)),
               nullptr;
    return c;
}

bool check_range(const char *fn, const Col &c, size_t offset, size_t size) {
    const char *what = c.p.kind == Kind::kBcast ? "arraysize" : "blocksize";
    if (offset > c.p.size || size > c.p.size - offset)
        return report(fn, "size", "offset %zu + size %zu passes %s %llu", offset, size, what,
                      static_cast<unsigned long long>(c.p.size));
    return true;
}

acp_request_t send_direct(const char *fn, acp_col_t h, Kind kind, size_t offset, size_t size) {
    if (!acpx::basic::layer::initialized(fn)) return ACP_REQUEST_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    Col *c = sendable(fn, st, h, Storage::kDirect, kind);
    if (!c || !check_range(fn, *c, offset, size)) return ACP_REQUEST_NULL;
    c->offset = offset;
    c->size = size;
    return start(fn, *c);
}

}  // namespace

namespace acpx::middle {

acp_request_t send_buffered_on(const char *fn, State &st, acp_col_t h, Kind kind, const void *in, void *out,
                               size_t size) {
    Col *c = sendable(fn, st, h, Storage::kBuffered, kind);
    if (!c) return ACP_REQUEST_NULL;
    if (size > ctl::kMaxSize)
        return report(fn, "size", "%zu bytes is more than a round carries (2^40 - 2)", size), ACP_REQUEST_NULL;
    if (size && (kind == Kind::kBcast ? !out : !in))
        return report(fn, kind == Kind::kBcast ? "array" : "sendbuf", "is NULL but size is %zu", size),
               ACP_REQUEST_NULL;
    if (size && kind == Kind::kAllgather && !out)
        return report(fn, "recvbuf", "is NULL but size is %zu", size), ACP_REQUEST_NULL;
    if (size && kind == Kind::kAllgather) {
        // In place (sendbuf is this member's block of recvbuf), or apart:
        // recvbuf's other blocks are written by the other members while
        // sendbuf is read.
        const auto *send = static_cast<const char *>(in), *recv = static_cast<const char *>(out);
        const size_t all = size_t{c->plan.members} * size, own = size_t{c->plan.data_block(c->plan.me)} * size;
        if (send != recv + own && send < recv + all && recv < send + size)
            return report(fn, "sendbuf", "overlaps recvbuf; in place it must be this member's block, recvbuf + %zu",
                          own),
                   ACP_REQUEST_NULL;
    }
    return start_from(fn, *c, size, in, out);
}

}  // namespace acpx::middle

namespace {

acp_request_t send_buffered(const char *fn, acp_col_t h, Kind kind, const void *in, void *out, size_t size) {
    if (!acpx::basic::layer::initialized(fn)) return ACP_REQUEST_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    return send_buffered_on(fn, st, h, kind, in, out, size);
}

// The request's handle and full round number; nullptr (reported) if its
// handle is gone.
Col *find_request(State &st, acp_request_t req, const char *fn, uint64_t *round) {
    const auto v = reinterpret_cast<uintptr_t>(req);
    Col *c = req == ACP_REQUEST_NULL ? nullptr : st.find(v >> kRoundBits);
    if (!c)
        return report(fn, "request",
                      "%p is not a request of a live handle (ACP_REQUEST_NULL, or "
                      "its handle was freed)",
                      static_cast<void *>(req)),
               nullptr;
    const uint64_t low = v & kRoundMask;
    *round = (c->round & ~kRoundMask) | low;
    if (*round > c->round) *round -= uint64_t{1} << kRoundBits;
    return c;
}

// 1 done, 0 not yet, -1 failed (reported).
int status_of(const char *fn, Col &c, uint64_t r) {
    if (round_done(c, r)) {
        if (c.error_round == r && !c.round_error.empty()) {
            report(fn, "request", "handle %llu round %llu: %s", static_cast<unsigned long long>(c.id),
                   static_cast<unsigned long long>(r), c.round_error.c_str());
            c.round_error.clear();
            return -1;
        }
        return 1;
    }
    if (!c.broken.empty())
        return report(fn, "request", "handle %llu round %llu failed: %s", static_cast<unsigned long long>(c.id),
                      static_cast<unsigned long long>(r), c.broken.c_str()),
               -1;
    if (overdue(c)) {
        const std::string who = pending(c);
        break_handle(c, "timed out");
        return report(fn, "request", "handle %llu round %llu (segment %u of %u): waited %.0f s (ACP_TIMEOUT) for %s",
                      static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(r), c.seg + 1, c.nseg,
                      acpx::basic::layer::timeout_seconds(), who.c_str()),
               -1;
    }
    return 0;
}

// Small rounds run ahead of slow members (round.cpp), whose "I called
// send" bytes still come into this control block: they must have started
// the last round before it goes. False, reported, after ACP_TIMEOUT.
bool members_caught_up(const char *fn, State &st, Col &c) {
    const auto start = Clock::now();
    const std::chrono::duration<double> limit(acpx::basic::layer::timeout_seconds());
    for (unsigned idle = 0;;) {
        if (!c.broken.empty()) return true;  // nothing more is coming that matters
        const std::string who = lagging(c);
        if (who.empty()) return true;
        if (Clock::now() - start > limit)
            return report(fn, "handle", "handle %llu: waited %.0f s (ACP_TIMEOUT) for %s %s round %llu; freed anyway",
                          static_cast<unsigned long long>(c.id), limit.count(), who.c_str(),
                          c.ar ? "to copy their part of" : "to send", static_cast<unsigned long long>(c.round)),
                   false;
        idle = progress_all(st) ? 0 : idle + 1;
        // Copies from other nodes may land only in this process's transport
        // calls (an allreduce's last ones come after its round ended here).
        if (c.direct.off_node) acpx::basic::layer::progress();
        pause_if_idle(idle);
    }
}

// A handle's trailing segments (Col::trail) land before its control block
// goes. False, reported, if one of their copies failed or they did not
// complete within ACP_TIMEOUT.
bool trail_landed(const char *fn, State &st, Col &c) {
    const auto start = Clock::now();
    const std::chrono::duration<double> limit(acpx::basic::layer::timeout_seconds());
    std::string lost;
    for (unsigned idle = 0; !c.trail.empty();) {
        idle = retire_trail(c, &lost) || progress_all(st) ? 0 : idle + 1;
        // Waited for now: asks the transport for the flush that completes
        // them (it batches those otherwise), and makes progress.
        if (!c.trail.empty()) acpx::basic::layer::poll(c.trail.back().last);
        if (!c.trail.empty() && Clock::now() - start > limit)
            return report(fn, "handle", "handle %llu: waited %.0f s (ACP_TIMEOUT) for the copies of round %llu to land",
                          static_cast<unsigned long long>(c.id), limit.count(),
                          static_cast<unsigned long long>(c.trail.front().round)),
                   false;
        pause_if_idle(idle);
    }
    if (!lost.empty())
        return report(fn, "handle", "handle %llu: %s", static_cast<unsigned long long>(c.id), lost.c_str()), false;
    return true;
}

}  // namespace

namespace acpx::middle {

acp_request_t send_allreduce_on(const char *fn, State &st, acp_col_t h, const void *sendbuf, void *recvbuf) {
    Col *c = sendable(fn, st, h, Storage::kBuffered, Kind::kAllreduce);
    if (!c) return ACP_REQUEST_NULL;
    const size_t n = c->p.size;
    if (n && !sendbuf) return report(fn, "sendbuf", "is NULL but the vector is %zu bytes", n), ACP_REQUEST_NULL;
    if (n && !recvbuf) return report(fn, "recvbuf", "is NULL but the vector is %zu bytes", n), ACP_REQUEST_NULL;
    const auto in = reinterpret_cast<uintptr_t>(sendbuf), out = reinterpret_cast<uintptr_t>(recvbuf);
    if (n && in != out && in < out + n && out < in + n)
        return report(fn, "recvbuf", "overlaps sendbuf without being equal to it (in place: pass the same pointer)"),
               ACP_REQUEST_NULL;
    return start_from(fn, *c, n, sendbuf, recvbuf);
}

int wait_on(const char *fn, State &st, acp_request_t req, const WaitStop *stop) {
    uint64_t r = 0;
    Col *c = find_request(st, req, fn, &r);
    if (!c) return -1;
    for (unsigned idle = 0;;) {
        idle = progress_all(st) ? 0 : idle + 1;
        if (stop && idle % kStopPolls == 0 && idle != 0 && c->broken.empty() && !round_done(*c, r))
            if (std::string why = stop->why(st, stop->arg); !why.empty()) break_handle(*c, why);
        if (const int s = status_of(fn, *c, r); s != 0) return s == 1 ? 0 : -1;
        pause_if_idle(idle);
    }
}

}  // namespace acpx::middle

extern "C" {

acp_col_t acp_create_bcast_direct(int root, int np_group, int *group, void *array, size_t arraysize) try {
    constexpr const char *fn = "acp_create_bcast_direct";
    if (!acpx::basic::layer::initialized(fn)) return ACP_COL_NULL;
    const bool ok = array || !arraysize || report(fn, "array", "is NULL but arraysize is %zu", arraysize);
    Params p;
    p.kind = Kind::kBcast;
    p.storage = Storage::kDirect;
    p.size = arraysize;
    return create(fn, p, root, np_group, group, array, arraysize, ok);
} catch (...) {
    return acpx::basic::report_exception("acp_create_bcast_direct"), ACP_COL_NULL;
}

acp_col_t acp_create_bcast_buffered(int root, int np_group, int *group, size_t buffersize) try {
    constexpr const char *fn = "acp_create_bcast_buffered";
    if (!acpx::basic::layer::initialized(fn)) return ACP_COL_NULL;
    const bool ok = buffersize || report(fn, "buffersize", "is 0");
    Params p;
    p.kind = Kind::kBcast;
    p.storage = Storage::kBuffered;
    p.size = buffersize;
    return create(fn, p, root, np_group, group, nullptr, 0, ok);
} catch (...) {
    return acpx::basic::report_exception("acp_create_bcast_buffered"), ACP_COL_NULL;
}

acp_col_t acp_create_allgather_direct(int np_group, int *group, void *array, size_t blocksize) try {
    constexpr const char *fn = "acp_create_allgather_direct";
    if (!acpx::basic::layer::initialized(fn)) return ACP_COL_NULL;
    const bool overflows = np_group > 0 && blocksize > SIZE_MAX / static_cast<size_t>(np_group);
    const bool ok = (array || !blocksize || report(fn, "array", "is NULL but blocksize is %zu", blocksize)) &&
                    (!overflows || report(fn, "blocksize", "%zu x np_group %d overflows", blocksize, np_group));
    Params p;
    p.kind = Kind::kAllgather;
    p.storage = Storage::kDirect;
    p.size = blocksize;
    return create(fn, p, -1, np_group, group, array,
                  np_group > 0 && !overflows ? blocksize * static_cast<size_t>(np_group) : 0, ok);
} catch (...) {
    return acpx::basic::report_exception("acp_create_allgather_direct"), ACP_COL_NULL;
}

acp_col_t acp_create_allgather_buffered(int np_group, int *group, size_t buffersize) try {
    constexpr const char *fn = "acp_create_allgather_buffered";
    if (!acpx::basic::layer::initialized(fn)) return ACP_COL_NULL;
    const bool ok = (buffersize || report(fn, "buffersize", "is 0")) &&
                    (np_group <= 0 || buffersize <= SIZE_MAX / static_cast<size_t>(np_group) ||
                     report(fn, "buffersize", "%zu x np_group %d overflows", buffersize, np_group));
    Params p;
    p.kind = Kind::kAllgather;
    p.storage = Storage::kBuffered;
    p.size = buffersize;
    return create(fn, p, -1, np_group, group, nullptr, 0, ok);
} catch (...) {
    return acpx::basic::report_exception("acp_create_allgather_buffered"), ACP_COL_NULL;
}

acp_col_t acp_create_allreduce(int np_group, int *group, size_t count, int type, int op) try {
    constexpr const char *fn = "acp_create_allreduce";
    if (!acpx::basic::layer::initialized(fn)) return ACP_COL_NULL;
    Params p;
    p.kind = Kind::kAllreduce;
    p.storage = Storage::kBuffered;
    const bool type_ok = type == ACP_TYPE_INT32 || type == ACP_TYPE_INT64 || type == ACP_TYPE_DOUBLE;
    const bool op_ok = op == ACP_OP_SUM || op == ACP_OP_MAX || op == ACP_OP_MIN;
    p.dtype = type_ok ? static_cast<DType>(type) : DType::kNone;
    p.op = op_ok ? static_cast<ROp>(op) : ROp::kNone;
    constexpr size_t kMaxBytes = size_t{16} << 30;
    const size_t elem = size_of(p.dtype);
    const bool ok =
        (type_ok ||
         report(fn, "type", "%d is not ACP_TYPE_INT32 (1), ACP_TYPE_INT64 (2) or ACP_TYPE_DOUBLE (3)", type)) &&
        (op_ok || report(fn, "op", "%d is not ACP_OP_SUM (1), ACP_OP_MAX (2) or ACP_OP_MIN (3)", op)) &&
        (count <= kMaxBytes / elem ||
         report(fn, "count", "%zu elements of %zu bytes is more than 16 GiB", count, elem));
    p.size = ok ? count * elem : 0;
    return create(fn, p, -1, np_group, group, nullptr, 0, ok);
} catch (...) {
    return acpx::basic::report_exception("acp_create_allreduce"), ACP_COL_NULL;
}

acp_request_t acp_send_allreduce(acp_col_t h, const void *sendbuf, void *recvbuf) try {
    constexpr const char *fn = "acp_send_allreduce";
    if (!acpx::basic::layer::initialized(fn)) return ACP_REQUEST_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    return send_allreduce_on(fn, st, h, sendbuf, recvbuf);
} catch (...) {
    return acpx::basic::report_exception("acp_send_allreduce"), ACP_REQUEST_NULL;
}

acp_request_t acp_send_bcast_direct(acp_col_t h, size_t offset, size_t size) try {
    return send_direct("acp_send_bcast_direct", h, Kind::kBcast, offset, size);
} catch (...) {
    return acpx::basic::report_exception("acp_send_bcast_direct"), ACP_REQUEST_NULL;
}

acp_request_t acp_send_allgather_direct(acp_col_t h, size_t offset, size_t size) try {
    return send_direct("acp_send_allgather_direct", h, Kind::kAllgather, offset, size);
} catch (...) {
    return acpx::basic::report_exception("acp_send_allgather_direct"), ACP_REQUEST_NULL;
}

acp_request_t acp_send_bcast_buffered(acp_col_t h, void *array, size_t size) try {
    return send_buffered("acp_send_bcast_buffered", h, Kind::kBcast, array, array, size);
} catch (...) {
    return acpx::basic::report_exception("acp_send_bcast_buffered"), ACP_REQUEST_NULL;
}

acp_request_t acp_send_allgather_buffered(acp_col_t h, const void *sendbuf, void *recvbuf, size_t size) try {
    return send_buffered("acp_send_allgather_buffered", h, Kind::kAllgather, sendbuf, recvbuf, size);
} catch (...) {
    return acpx::basic::report_exception("acp_send_allgather_buffered"), ACP_REQUEST_NULL;
}

int acp_test_col(acp_request_t req) try {
    constexpr const char *fn = "acp_test_col";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    State &st = State::get();
    AppCall call(st.owner);
    uint64_t r = 0;
    Col *c = find_request(st, req, fn, &r);
    if (!c) return -1;
    progress_all(st);
    return status_of(fn, *c, r);
} catch (...) {
    return acpx::basic::report_exception("acp_test_col"), -1;
}

int acp_wait_col(acp_request_t req) try {
    constexpr const char *fn = "acp_wait_col";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    State &st = State::get();
    AppCall call(st.owner);
    return wait_on(fn, st, req);
} catch (...) {
    return acpx::basic::report_exception("acp_wait_col"), -1;
}

int acp_free_col(acp_col_t h) try {
    constexpr const char *fn = "acp_free_col";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    State &st = State::get();
    AppCall call(st.owner);
    Col *c = find_col(st, h, fn);
    if (!c) return -1;
    if (c->active) advance(*c);
    if (c->active)
        return report(fn, "handle", "round %llu is still running here; acp_wait_col its request first",
                      static_cast<unsigned long long>(c->round)),
               -1;
    // Its own last ready byte to executors on other nodes first: theirs
    // may wait for it (below), so no two members wait for each other.
    const bool said = say_ready(*c, fn);
    const bool caught_up = members_caught_up(fn, st, *c);
    const bool landed = trail_landed(fn, st, *c);
    if (c->cur.last != ACP_HANDLE_NULL) acp_complete(c->cur.last);  // a broken round's GMAs
    // The control block is a block of an arena that the next create may
    // get: it goes back only once no peer can write into it any more. A
    // broken round's peers, or receivers on this node that did not catch
    // up, may write at any time: kept until acp_finalize. Receivers on
    // other nodes whose last ready byte is still on its way (they send it
    // at their own free, which may come after this one's): kept until it
    // has landed. (On this node, members_caught_up saw their last bytes.)
    // A buffered handle's buffer, a block too, takes data only for rounds
    // this member started, all of which ended here: it goes back at once,
    // but for a broken round's, whose late data may still come.
    if (!c->broken.empty()) quarantine(st, c->mem.buffer);
    if (!c->broken.empty() || !caught_up)
        quarantine(st, c->mem.ctl);
    else if (std::vector<size_t> unsettled = unsettled_ready(*c); !unsettled.empty()) {
        st.parked_ctls.push_back({c->mem.ctl, std::move(unsettled), static_cast<uint8_t>(c->seq)});
        c->mem.ctl = {};
    }
    give_back_every_chunk(*c);
    // Its receivers may still read its last chunks: their slots stay mapped.
    st.pool.retain(c->id, std::move(c->direct.mappings));
    release(*c);
    st.erase(c->id);
    return said && caught_up && landed ? 0 : -1;
} catch (...) {
    return acpx::basic::report_exception("acp_free_col"), -1;
}

size_t acp_query_col_memory(acp_col_t h) try {
    constexpr const char *fn = "acp_query_col_memory";
    if (!acpx::basic::layer::initialized(fn)) return 0;
    State &st = State::get();
    AppCall call(st.owner);
    Col *c = find_col(st, h, fn);
    return c ? c->memory() : 0;
} catch (...) {
    return acpx::basic::report_exception("acp_query_col_memory"), 0;
}

const char *acp_query_col_algorithm(acp_col_t h) try {
    constexpr const char *fn = "acp_query_col_algorithm";
    if (!acpx::basic::layer::initialized(fn)) return nullptr;
    State &st = State::get();
    AppCall call(st.owner);
    Col *c = find_col(st, h, fn);
    return c ? c->algo_label : nullptr;
} catch (...) {
    return acpx::basic::report_exception("acp_query_col_algorithm"), nullptr;
}

int acp_set_col_algorithm(const char *bcast, const char *allgather) try {
    constexpr const char *fn = "acp_set_col_algorithm";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    State &st = State::get();
    AppCall call(st.owner);
    // Checked with the parser create uses, before anything changes.
    Params b, a;
    b.kind = Kind::kBcast;
    a.kind = Kind::kAllgather;
    if ((bcast && !parse_algorithm(fn, "bcast", bcast, &b)) ||
        (allgather && !parse_algorithm(fn, "allgather", allgather, &a)))
        return -1;
    if (bcast) st.set_bcast = bcast;
    if (allgather) st.set_allgather = allgather;
    return 0;
} catch (...) {
    return acpx::basic::report_exception("acp_set_col_algorithm"), -1;
}

int acp_set_col_allreduce_algorithm(const char *name) try {
    constexpr const char *fn = "acp_set_col_allreduce_algorithm";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    if (!name) return report(fn, "name", "is NULL (\"\" returns to ACP_COL_ALLREDUCE_ALGO)");
    Params p;
    p.kind = Kind::kAllreduce;
    if (!parse_algorithm(fn, "name", name, &p)) return -1;
    State::get().set_allreduce = name;
    return 0;
} catch (...) {
    return acpx::basic::report_exception("acp_set_col_allreduce_algorithm"), -1;
}

}  // extern "C"
