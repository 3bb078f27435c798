// The one-call collectives (acp.h: acp_bcast, acp_allgather,
// acp_allreduce): blocking, MPI-like, over a cache of persistent handles
// (seed 002, section 3: create inside the first send, a buffered handle's
// buffer chosen by the library).
//
// Every member of a group makes the group's calls in the same order (as
// MPI asks of a communicator's collectives), so a cache per group, keyed
// by what every member passes alike, finds, creates and evicts the same
// handle on every member at the same call: no message decides it. A
// member's array address is its own, so it is not in the key and the
// handles are buffered (any array, copied in and out); a direct handle
// would need every member's array where it was at create.
#include "one_call.hpp"

#include <acp.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "basic/config.hpp"
#include "basic/errors.hpp"
#include "calls.hpp"
#include "col.hpp"
#include "create.hpp"

using acpx::basic::report;

namespace acpx::middle {
namespace {

// A buffered handle's buffer: the round's bytes rounded up to a power of
// two (at least 64, so sizes that differ a little share a handle), at most
// kMaxBuffer: larger rounds go through it in segments, pipelined along the
// tree (acp.h, buffered handles).
constexpr size_t kMinBuffer = 64, kMaxBuffer = size_t{1} << 20;

size_t buffer_for(size_t bytes) {
    size_t b = kMinBuffer;
    while (b < bytes && b < kMaxBuffer) b <<= 1;
    return b;
}

// ACP_COL_CACHE's default (basic/config.cpp's table says "16:64M").
constexpr size_t kDefaultEntries = 16, kDefaultBytes = size_t{64} << 20;

struct Key {
    Kind kind;
    int root;       // bcast; else -1
    size_t buffer;  // bcast, allgather: buffer_for(size); allreduce: the vector's bytes
    int type, op;   // allreduce; else 0
    bool operator==(const Key &) const = default;
};

struct Entry {
    Key key;
    acp_col_t h;
    size_t charge;  // what the group's byte bound counts for it
};

// One group's handles, most recently used first.
struct GroupCache {
    size_t max_entries = kDefaultEntries, max_bytes = kDefaultBytes;  // ACP_COL_CACHE, read at each miss
    size_t bytes = 0;
    std::list<Entry> lru;
    // Why this group's calls fail at once here ("" while they work): a
    // round left its handle unusable (timed out) on this member, or a
    // member's message said so of its own (kGaveUp): the caches differ.
    std::string unusable;
    uint64_t hash = 0;                          // of its members, in order (create.hpp's group_hash)
    const std::vector<int> *members = nullptr;  // they (the map's key)
};

// A member whose call of a group timed out sends this to the group's
// other members: their calls of the group fail from then on, at once, and
// a call that waits ends (before, each waited out its own ACP_TIMEOUT,
// and a bcast root's calls kept returning 0 for rounds no member ran).
// Its bytes: kGaveUp, the group's group_hash (8), the member's rank (4),
// then why its handle is unusable there (at most kGaveUpWhy bytes).
constexpr uint8_t kGaveUp = kOneCallMsgFirst;
constexpr size_t kGaveUpBytes = 1 + 8 + 4, kGaveUpWhy = 200;

// The bound's charge of a handle: the buffer bytes it holds on a member
// (the same figure on every member, from the key alone).
size_t charge_of(const Key &k, int np_group) {
    if (k.kind == Kind::kAllgather) return k.buffer * static_cast<size_t>(np_group) * 2;  // in + out blocks
    if (k.kind == Kind::kAllreduce) return k.buffer * 2;                                  // landing slots
    return k.buffer;
}

// ACP_COL_CACHE: ENTRIES[:BYTES] per group (else 16:64M).
bool read_bounds(const char *fn, GroupCache *g) {
    g->max_entries = kDefaultEntries;
    g->max_bytes = kDefaultBytes;
    const char *v = basic::config_env("ACP_COL_CACHE");
    if (!v) return true;
    char *end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (end == v || (*end && *end != ':') || n > 4096)
        return report(fn, "ACP_COL_CACHE", "'%s' is not ENTRIES (0-4096) or ENTRIES:BYTES", v);
    g->max_entries = n;
    if (*end == ':' && !basic::parse_size(end + 1, &g->max_bytes))
        return report(fn, "ACP_COL_CACHE", "'%s': '%s' is not a size (K/M/G)", v, end + 1);
    return true;
}

struct Caches {
    std::map<std::vector<int>, GroupCache> groups;
    // The group of the last call, in front of the map: a program calls on
    // one group many times in a row, and the look-up by the group's
    // members would cost a third of a small round.
    const std::vector<int> *last_members = nullptr;
    GroupCache *last = nullptr;
    // Groups a member gave up on (its GaveUp message), by group_hash: what
    // to say of it. Kept whether or not this member has called the group yet.
    std::unordered_map<uint64_t, std::string> gave_up;
};

Caches &caches(State &st) {
    if (!st.one_call) st.one_call = std::make_shared<Caches>();
    return *static_cast<Caches *>(st.one_call.get());
}

bool same_members(const std::vector<int> &members, const int *group, size_t n) {
    if (members.size() != n) return false;
    // Most groups are small: a loop here costs less than the call of memcmp.
    if (n > 16) return std::memcmp(members.data(), group, n * sizeof(int)) == 0;
    for (size_t i = 0; i < n; ++i)
        if (members[i] != group[i]) return false;
    return true;
}

GroupCache &group_cache(Caches &c, int np_group, const int *group) {
    const auto n = static_cast<size_t>(np_group);
    if (c.last && same_members(*c.last_members, group, n)) return *c.last;
    auto [it, made] = c.groups.try_emplace(std::vector<int>(group, group + np_group));
    if (made) {
        it->second.hash = group_hash(group, n);
        it->second.members = &it->first;
    }
    c.last_members = &it->first;
    return *(c.last = &it->second);
}

// Files the members' GaveUp messages that arrived (as far as this
// process's progress has taken them in: a load when none did), and makes
// g unusable if its group is among them.
void note_gave_up(State &st, Caches &c, GroupCache &g) {
    if (basic::layer::mail_waiting()) collect_mail(st);
    if (!g.unusable.empty() || c.gave_up.empty()) return;
    if (auto it = c.gave_up.find(g.hash); it != c.gave_up.end()) g.unusable = it->second;
}

// A call of g left its handle unusable here (why): tells the group's
// other members (GaveUp). Sending is no API call of the user's: the error
// the call reports stays this thread's last.
void tell_members(const char *fn, const GroupCache &g, const std::string &why) {
    const std::string line = basic::last_error(), arg = basic::last_error_arg(), reason = basic::last_error_reason();
    const int32_t me = acp_rank();
    const size_t why_len = std::min(why.size(), kGaveUpWhy);
    basic::layer::Bytes b(kGaveUpBytes + why_len);
    b[0] = kGaveUp;
    std::memcpy(b.data() + 1, &g.hash, 8);
    std::memcpy(b.data() + 9, &me, 4);
    std::memcpy(b.data() + kGaveUpBytes, why.data(), why_len);
    for (int r : *g.members)
        if (r != me) basic::layer::send(r, b.data(), b.size(), fn);  // an unreachable member is reported
    basic::restore_last_error(line, arg, reason);
}

// Passes an inner call's failure on under the user's function.
bool failed(const char *fn) {
    return report(fn, basic::last_error_arg().empty() ? "round" : basic::last_error_arg().c_str(), "%s",
                  basic::last_error_reason().c_str());
}

// The group's handle for `key`, created (and the least recently used ones
// freed, past the bounds) on a miss; ACP_COL_NULL, reported under fn.
acp_col_t handle_for(const char *fn, State &st, int np_group, int *group, const Key &key, GroupCache **cache) {
    if (np_group <= 0 || !group)
        return report(fn, group ? "np_group" : "group", group ? "%d is not a group size" : "is NULL", np_group),
               ACP_COL_NULL;
    Caches &c = caches(st);
    GroupCache &g = group_cache(c, np_group, group);
    *cache = &g;
    note_gave_up(st, c, g);
    if (!g.unusable.empty())
        return report(fn, "group",
                      "its one-call collectives are unusable on this member since %s: the members' caches of "
                      "handles differ from then on; explicit handles still work",
                      g.unusable.c_str()),
               ACP_COL_NULL;
    if (!g.lru.empty() && g.lru.front().key == key) return g.lru.front().h;  // the same call again
    for (auto e = std::next(g.lru.begin()); e != g.lru.end(); ++e)
        if (e->key == key) {
            g.lru.splice(g.lru.begin(), g.lru, e);
            return e->h;
        }
    // Read at each miss, as the other ACP_COL_* variables at each create:
    // every member reads it at the same call.
    if (!read_bounds(fn, &g)) return ACP_COL_NULL;
    const size_t charge = charge_of(key, np_group);
    // Every member frees the same handles here: the list is the same on all.
    while (!g.lru.empty() && (g.lru.size() >= g.max_entries || g.bytes + charge > g.max_bytes)) {
        const Entry old = g.lru.back();
        g.lru.pop_back();
        g.bytes -= old.charge;
        if (acp_free_col(old.h) != 0) failed(fn);  // reported; the handle is gone either way
    }
    acp_col_t h = ACP_COL_NULL;
    switch (key.kind) {
        case Kind::kBcast: h = acp_create_bcast_buffered(key.root, np_group, group, key.buffer); break;
        case Kind::kAllgather: h = acp_create_allgather_buffered(np_group, group, key.buffer); break;
        case Kind::kAllreduce: {
            h = acp_create_allreduce(np_group, group, key.buffer / size_of(static_cast<DType>(key.type)), key.type,
                                     key.op);
            break;
        }
    }
    if (h == ACP_COL_NULL) return failed(fn), ACP_COL_NULL;
    if (g.max_entries == 0) return h;  // no caching: the caller frees it
    g.lru.push_front({key, h, charge});
    g.bytes += charge;
    return h;
}

// Why h can run no more rounds ("" if it can): it timed out, or a copy
// could not be issued (api.cpp's sendable refuses it).
std::string why_unusable(State &st, acp_col_t h) {
    const Col *c = st.find(reinterpret_cast<uintptr_t>(h));
    return !c ? "it was freed" : c->broken;
}

// What a one-call's wait asks while it waits (calls.hpp): has a member
// given the group up (note_gave_up)?
std::string gave_up_on(State &st, const void *arg) {
    auto *g = static_cast<GroupCache *>(const_cast<void *>(arg));
    note_gave_up(st, caches(st), *g);
    return g->unusable;
}

// Runs one round on h. Frees h after it when the group caches nothing, or
// when the round left it unusable. A round that failed otherwise (a copy
// failed) keeps its handle: it failed on the copy's issuer and the
// members below it only, the members above it succeeded and keep the
// handle, and the next round on it works (acp_wait_col). Dropping it here
// would leave the members' caches unlike: the next call would create a
// handle on some members and run a round of the old one on the others.
// That is what an unusable handle does, so its group's later calls fail
// at once on this member, and it tells the other members (GaveUp): their
// calls of the group fail at once from when the message arrives, and one
// waiting for this member ends then.
// The send and the wait are api.cpp's, without their entries (calls.hpp):
// they report under fn.
int run(const char *fn, State &st, GroupCache &g, acp_col_t h, acp_request_t r) {
    const WaitStop stop{&gave_up_on, &g};
    const int rc = r == ACP_REQUEST_NULL || wait_on(fn, st, r, g.max_entries != 0 ? &stop : nullptr) != 0 ? -1 : 0;
    if (rc != 0 && g.max_entries != 0 && g.unusable.empty()) {
        if (std::string why = why_unusable(st, h); !why.empty()) {
            g.unusable = "a round left its handle unusable (" + why + ")";
            tell_members(fn, g, why);
        }
    }
    if (g.max_entries != 0 && g.unusable.empty()) return rc;
    for (auto e = g.lru.begin(); e != g.lru.end(); ++e)
        if (e->h == h) {
            g.bytes -= e->charge;
            g.lru.erase(e);
            break;
        }
    if (acp_free_col(h) != 0 && rc == 0) return failed(fn), -1;
    return rc;
}

}  // namespace

size_t cached_handles(int np_group, const int *group) {
    State &st = State::get();
    if (!st.one_call || np_group <= 0 || !group) return 0;
    auto &groups = caches(st).groups;
    auto it = groups.find(std::vector<int>(group, group + np_group));
    return it == groups.end() ? 0 : it->second.lru.size();
}

void one_call_mail(State &st, const basic::layer::Bytes &m) {
    if (m.size() < kGaveUpBytes || m.size() > kGaveUpBytes + kGaveUpWhy || m[0] != kGaveUp)
        return;  // not one this version sends
    uint64_t group = 0;
    int32_t rank = -1;
    std::memcpy(&group, m.data() + 1, 8);
    std::memcpy(&rank, m.data() + 9, 4);
    const std::string why(m.begin() + kGaveUpBytes, m.end());
    caches(st).gave_up.emplace(group, "rank " + std::to_string(rank) +
                                          "'s call of the group left its handle unusable there (" + why +
                                          "; its message said so)");
}

}  // namespace acpx::middle

using namespace acpx::middle;

extern "C" {

int acp_bcast(int root, int np_group, int *group, void *array, size_t size) try {
    constexpr const char *fn = "acp_bcast";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    if (size && !array) return report(fn, "array", "is NULL but size is %zu", size), -1;
    State &st = State::get();
    AppCall call(st.owner);
    GroupCache *g = nullptr;
    const acp_col_t h = handle_for(fn, st, np_group, group, {Kind::kBcast, root, buffer_for(size), 0, 0}, &g);
    if (h == ACP_COL_NULL) return -1;
    return run(fn, st, *g, h, send_buffered_on(fn, st, h, Kind::kBcast, array, array, size));
} catch (...) {
    return acpx::basic::report_exception("acp_bcast"), -1;
}

int acp_allgather(int np_group, int *group, const void *sendbuf, void *recvbuf, size_t blocksize) try {
    constexpr const char *fn = "acp_allgather";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    if (blocksize && !sendbuf) return report(fn, "sendbuf", "is NULL but blocksize is %zu", blocksize), -1;
    if (blocksize && !recvbuf) return report(fn, "recvbuf", "is NULL but blocksize is %zu", blocksize), -1;
    State &st = State::get();
    AppCall call(st.owner);
    GroupCache *g = nullptr;
    const acp_col_t h = handle_for(fn, st, np_group, group, {Kind::kAllgather, -1, buffer_for(blocksize), 0, 0}, &g);
    if (h == ACP_COL_NULL) return -1;
    return run(fn, st, *g, h, send_buffered_on(fn, st, h, Kind::kAllgather, sendbuf, recvbuf, blocksize));
} catch (...) {
    return acpx::basic::report_exception("acp_allgather"), -1;
}

int acp_allreduce(int np_group, int *group, const void *sendbuf, void *recvbuf, size_t count, int type, int op) try {
    constexpr const char *fn = "acp_allreduce";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    if (type != ACP_TYPE_INT32 && type != ACP_TYPE_INT64 && type != ACP_TYPE_DOUBLE)
        return report(fn, "type", "%d is not ACP_TYPE_INT32, ACP_TYPE_INT64 or ACP_TYPE_DOUBLE", type), -1;
    const size_t elem = size_of(static_cast<DType>(type));
    if (count > (size_t{16} << 30) / elem)
        return report(fn, "count", "%zu elements of %zu bytes is more than 16 GiB", count, elem), -1;
    State &st = State::get();
    AppCall call(st.owner);
    GroupCache *g = nullptr;
    const acp_col_t h = handle_for(fn, st, np_group, group, {Kind::kAllreduce, -1, count * elem, type, op}, &g);
    if (h == ACP_COL_NULL) return -1;
    return run(fn, st, *g, h, send_allreduce_on(fn, st, h, sendbuf, recvbuf));
} catch (...) {
    return acpx::basic::report_exception("acp_allreduce"), -1;
}

}  // extern "C"
