// Create: the coordinator (the group's lowest rank) chooses the algorithm
// and sends it to every member (the control block's layout depends on
// it); every member then sends the coordinator its arguments and GAs; the
// coordinator compares them and answers every member: go, or the first
// disagreement (or a member without memory). Then each member sends its
// GAs to its neighbours, the members its plan shares entries with
// (PlanBuilder::neighbours), and derives its plan from theirs (plan.cpp).
// The whole table went to every member before: 16 bytes a member to each,
// P^2 x 16 bytes from the coordinator (16 GB at 32,768 members); now a
// member sends and receives a message per neighbour (a binomial tree's:
// log2 P at most). Creates are matched by the member set and the number
// of creates this process made on that set, so handles on different or
// overlapping groups may be created in any order.
#include "create.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "basic/config.hpp"
#include "basic/errors.hpp"
#include "choose.hpp"
#include "one_call.hpp"

namespace acpx::middle {
namespace {

using basic::report;
using basic::layer::Bytes;

enum class MsgType : uint8_t { kInfo = 1, kReply = 2, kChoice = 3, kAddr = 4 };

struct Header {
    MsgType type;
    uint32_t seq;
    uint64_t set_hash;
    int32_t from;
};
struct Info {
    Header h;
    Params p;
    MemberAddr addr;
    char error[200];  // "arg: reason" when the member's own arguments are bad; then p is not compared
};
struct Reply {
    Header h;
    int32_t status;  // 0 ok
    char reason[240];
};
// A member's GAs, to each of its neighbours once the coordinator said go.
struct Addr {
    Header h;
    uint32_t index;  // the sender's index in the lists (placed: ACP_COL_PLACE's order)
    MemberAddr addr;
};
// The coordinator's algorithm, sent before anything else: one member
// models the candidates, not all of them (on a node with more ranks than
// cores, each rank's modelling competed for the cores).
struct Choice {
    Header h;
    int32_t status;  // 0 ok; else the coordinator could not choose, and reason says why
    uint8_t auto_algo, algo, radix, hier;
    uint32_t placed;  // 1: np_group uint32 follow kChoiceOk, the member index each list index is played by
    double predicted_s;
    char arg[48], reason[240];  // what its message named, and why: sent only on failure
};
constexpr size_t kChoiceOk = offsetof(Choice, arg);

template <class T>
Bytes bytes_of(const T &v, const void *tail = nullptr, size_t tail_len = 0) {
    Bytes b(sizeof(T) + tail_len);
    std::memcpy(b.data(), &v, sizeof(T));
    if (tail_len) std::memcpy(b.data() + sizeof(T), tail, tail_len);
    return b;
}

}  // namespace

uint64_t group_hash(const int *group, size_t n) {
    uint64_t h = 1469598103934665603ULL;  // FNV-1a over the ranks' bytes
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k) {
            h ^= static_cast<uint8_t>(static_cast<uint32_t>(group[i]) >> (8 * k));
            h *= 1099511628211ULL;
        }
    return h;
}

void collect_mail(State &st) {
    for (auto &m : basic::layer::take_messages()) {
        if (!m.empty() && m[0] >= kOneCallMsgFirst) {
            one_call_mail(st, m);
            continue;
        }
        if (!m.empty() && m[0] >= kSegbufMsgFirst) {
            segbuf_mail(st, m);
            continue;
        }
        if (!m.empty() && m[0] >= kChannelMsgFirst) {
            channel_mail(st, m);
            continue;
        }
        if (m.size() < sizeof(Header)) continue;
        Header h;
        std::memcpy(&h, m.data(), sizeof h);
        st.mailbox[{h.set_hash, h.seq}].push_back(std::move(m));
    }
}

namespace {

// Waits (poll_until) for the message of `type`, at least min_size bytes,
// that this create's coordinator sends, and takes it out of the mailbox.
bool await_message(State &st, const CreateKey &key, MsgType type, size_t min_size, Bytes *out) {
    return poll_until(st, [&] {
        auto it = st.mailbox.find(key);
        if (it == st.mailbox.end()) return false;
        for (auto m = it->second.begin(); m != it->second.end(); ++m)
            if (m->size() >= min_size && static_cast<MsgType>((*m)[0]) == type) {
                *out = std::move(*m);
                it->second.erase(m);
                return true;
            }
        return false;
    });
}

// The coordinator: gathers every member's Info, checks, answers.
bool coordinate(const char *fn, State &st, const CreateKey &key, const Params &p, const int *group, uint32_t me,
                const MemberAddr &mine, std::vector<MemberAddr> *table) {
    const uint32_t n = p.members;
    std::vector<int> have(n, 0);
    table->assign(n, MemberAddr{});
    (*table)[me] = mine;
    have[me] = 1;
    std::string why;
    auto &box = st.mailbox[key];
    size_t next = 0;
    uint32_t count = 1;
    auto take = [&] {
        for (; next < box.size(); ++next) {
            if (box[next].size() < sizeof(Info)) continue;
            Info in;
            std::memcpy(&in, box[next].data(), sizeof in);
            if (in.h.type != MsgType::kInfo) continue;
            const int *pos = std::find(group, group + n, in.h.from);
            if (pos == group + n) {
                if (why.empty()) why = "rank " + std::to_string(in.h.from) + " is not in this group";
                continue;
            }
            const auto i = static_cast<uint32_t>(pos - group);
            if (have[i]) continue;
            have[i] = 1;
            ++count;
            (*table)[i] = in.addr;
            in.error[sizeof in.error - 1] = '\0';
            if (in.error[0]) {
                if (why.empty()) why = "rank " + std::to_string(in.h.from) + ": " + in.error;
                continue;
            }
            if (std::string d = first_difference(in.p, p); !d.empty() && why.empty())
                why = "members disagree: rank " + std::to_string(in.h.from) + " vs rank " + std::to_string(group[me]) +
                      ": " + d;
        }
        return count == n;
    };
    const bool all = poll_until(st, take);
    if (!all) {
        std::string missing;
        for (uint32_t i = 0; i < n; ++i)
            if (!have[i]) missing += (missing.empty() ? "" : ", ") + std::to_string(group[i]);
        why = "waited " + std::to_string(static_cast<int>(basic::layer::timeout_seconds())) +
              " s (ACP_TIMEOUT) for rank(s) " + missing +
              " to create it (a member that never calls create, or one passing a different group)";
    }
    // A member that could not allocate or register sent NULL GAs: every
    // member fails, not only its neighbours.
    for (uint32_t i = 0; i < n && why.empty(); ++i)
        if ((*table)[i].data == ACP_GA_NULL || (*table)[i].ctl == ACP_GA_NULL)
            why = "rank " + std::to_string(group[i]) + " could not allocate or register its memory";
    Reply r{};
    r.h = {MsgType::kReply, key.seq, key.set_hash, group[me]};
    r.status = why.empty() ? 0 : 1;
    std::snprintf(r.reason, sizeof r.reason, "%s", why.c_str());
    const Bytes m = bytes_of(r);
    for (uint32_t i = 0; i < n; ++i)
        if (i != me && have[i]) basic::layer::send(group[i], m.data(), m.size(), fn);
    if (!why.empty()) {
        st.mailbox.erase(key);
        return report(fn, "group", "%s", why.c_str());
    }
    return true;  // its mailbox stays: neighbours' GAs come into it next
}

// A member: sends its Info, waits for the coordinator's Reply. quiet: it
// reported its own failure already.
bool join(const char *fn, State &st, const CreateKey &key, const Params &p, int coordinator, int my_rank,
          const MemberAddr &mine, const std::string &own_error, bool quiet) {
    Info in{{MsgType::kInfo, key.seq, key.set_hash, my_rank}, p, mine, {}};
    std::snprintf(in.error, sizeof in.error, "%s", own_error.c_str());
    if (!basic::layer::send(coordinator, &in, sizeof in, fn)) return false;
    Bytes reply;
    if (!await_message(st, key, MsgType::kReply, sizeof(Reply), &reply))
        return st.mailbox.erase(key), report(fn, "group",
                                             "waited %.0f s (ACP_TIMEOUT) for rank %d (the group's lowest rank) to "
                                             "answer; it never created this handle with the same group",
                                             basic::layer::timeout_seconds(), coordinator);
    Reply r;
    std::memcpy(&r, reply.data(), sizeof r);
    r.reason[sizeof r.reason - 1] = '\0';
    if (r.status != 0 || reply.size() != sizeof r) st.mailbox.erase(key);
    if (r.status != 0) return quiet || report(fn, "group", "%s", r.reason), false;  // quiet: its own line said it
    if (reply.size() != sizeof r) return report(fn, "group", "malformed answer from rank %d", coordinator);
    return true;  // its mailbox stays: neighbours' GAs come into it next
}

// Once the coordinator said go: this member's GAs to each neighbour
// (list indices; play[j]: the rank playing index j), theirs into
// table[j]. Every other entry stays empty: the plan does not read it.
bool exchange_addresses(const char *fn, State &st, const CreateKey &key, const std::vector<uint32_t> &near,
                        const std::vector<int> &play, uint32_t my_index, const MemberAddr &mine,
                        std::vector<MemberAddr> *table) {
    const auto n = static_cast<uint32_t>(play.size());
    table->assign(n, MemberAddr{});
    (*table)[my_index] = mine;
    const Addr out{{MsgType::kAddr, key.seq, key.set_hash, play[my_index]}, my_index, mine};
    for (uint32_t j : near)
        if (!basic::layer::send(play[j], &out, sizeof out, fn)) return st.mailbox.erase(key), false;
    std::vector<uint8_t> awaited(n, 0);
    for (uint32_t j : near) awaited[j] = 1;
    size_t got = 0;
    auto &box = st.mailbox[key];
    const bool all = poll_until(st, [&] {
        for (auto m = box.begin(); m != box.end();) {
            Addr in;
            if (m->size() != sizeof in || static_cast<MsgType>((*m)[0]) != MsgType::kAddr) {
                ++m;
                continue;
            }
            std::memcpy(&in, m->data(), sizeof in);
            if (in.index < n && awaited[in.index] && play[in.index] == in.h.from) {
                awaited[in.index] = 0;
                (*table)[in.index] = in.addr;
                ++got;
            }
            m = box.erase(m);
        }
        return got == near.size();
    });
    st.mailbox.erase(key);
    if (all) return true;
    std::string missing;
    for (uint32_t j = 0; j < n; ++j)
        if (awaited[j]) missing += (missing.empty() ? "" : ", ") + std::to_string(play[j]);
    return report(fn, "group", "waited %.0f s (ACP_TIMEOUT) for the addresses of rank(s) %s",
                  basic::layer::timeout_seconds(), missing.c_str());
}

// The coordinator: chooses (choose.hpp), places the members
// (ACP_COL_PLACE: *order), and tells every other member.
bool send_choice(const char *fn, State &st, const CreateKey &key, const int *group, uint32_t me, Params *p,
                 const std::string &own_error, double *predicted_s, std::vector<uint32_t> *order) {
    basic::clear_last_error();
    const std::vector<int> grp(group, group + p->members);
    const bool ok = own_error.empty() && choose_algorithm(fn, st, grp, p, predicted_s) &&
                    place_members(fn, st, grp, *p, order, predicted_s);
    Choice ch{{MsgType::kChoice, key.seq, key.set_hash, group[me]},
              ok ? 0 : 1,
              p->auto_algo,
              p->algo,
              p->radix,
              p->hier,
              ok && !order->empty(),
              *predicted_s,
              {},
              {}};
    if (!ok) {  // what its own message named, and why
        // Its own bad argument ("arg: reason"), else what choosing said.
        const size_t colon = own_error.find(": ");
        const std::string arg = colon != std::string::npos ? own_error.substr(0, colon) : basic::last_error_arg();
        const std::string why = colon != std::string::npos ? own_error.substr(colon + 2) : basic::last_error_reason();
        std::snprintf(ch.arg, sizeof ch.arg, "%s", arg.empty() ? "group" : arg.c_str());
        std::snprintf(ch.reason, sizeof ch.reason, "%s", why.c_str());
    }
    Bytes msg(ok ? kChoiceOk + order->size() * sizeof(uint32_t) : sizeof ch);
    std::memcpy(msg.data(), &ch, ok ? kChoiceOk : sizeof ch);
    if (ok && !order->empty()) std::memcpy(msg.data() + kChoiceOk, order->data(), order->size() * sizeof(uint32_t));
    for (uint32_t i = 0; i < p->members; ++i)
        if (i != me && !basic::layer::send(group[i], msg.data(), msg.size(), fn)) return false;
    return ok;
}

// A member: takes the coordinator's choice when it too lets the model
// choose; a forced algorithm it checks itself, and the exchange compares it.
// *order: the coordinator's placement (empty: the group's order), checked
// to be one (a permutation; a bcast's keeps the root's index).
// *settled: false when it failed only in its own choice (a forced
// algorithm this member cannot run): it still takes part in the exchange.
// quiet: this member reported its own bad argument already; one line is enough.
bool take_choice(const char *fn, State &st, const CreateKey &key, int coordinator, const int *group, Params *p,
                 double *predicted_s, bool quiet, bool *settled, std::vector<uint32_t> *order) {
    *settled = true;
    Bytes msg;
    if (!await_message(st, key, MsgType::kChoice, kChoiceOk, &msg))
        return report(fn, "group",
                      "waited %.0f s (ACP_TIMEOUT) for rank %d (the group's lowest rank) to create it; it never "
                      "created this handle with the same group",
                      basic::layer::timeout_seconds(), coordinator);
    Choice ch{};
    std::memcpy(&ch, msg.data(), std::min(msg.size(), sizeof ch));
    const size_t placed_size = kChoiceOk + size_t{p->members} * sizeof(uint32_t);
    if (ch.status == 0 && ch.placed && msg.size() != placed_size && msg.size() > kChoiceOk &&
        (msg.size() - kChoiceOk) % sizeof(uint32_t) == 0)
        return report(fn, "np_group", "is %u here; rank %d (the group's lowest rank) placed %zu members", p->members,
                      coordinator, (msg.size() - kChoiceOk) / sizeof(uint32_t));
    if (msg.size() != (ch.status != 0 ? sizeof(Choice) : ch.placed ? placed_size : kChoiceOk))
        return report(fn, "group", "malformed choice from rank %d", coordinator);
    ch.arg[sizeof ch.arg - 1] = ch.reason[sizeof ch.reason - 1] = '\0';
    if (ch.status != 0)
        return quiet || report(fn, ch.arg, "on rank %d (the group's lowest rank): %s", coordinator, ch.reason), false;
    if (ch.placed) {
        order->resize(p->members);
        std::memcpy(order->data(), msg.data() + kChoiceOk, p->members * sizeof(uint32_t));
        std::vector<uint8_t> seen(p->members, 0);
        const uint32_t root = p->kind == Kind::kBcast ? root_index_of(*p, std::vector<int>(group, group + p->members))
                                                      : UINT32_MAX;  // an allgather has none to keep
        for (uint32_t j = 0; j < p->members; ++j)
            if ((*order)[j] >= p->members || seen[(*order)[j]]++ || (j == root && (*order)[j] != root))
                return report(fn, "group", "malformed placement from rank %d", coordinator);
    }
    if (quiet) return true;  // its own arguments are bad: nothing to choose, the exchange says so
    if (!p->auto_algo) {
        *settled = false;
        return choose_algorithm(fn, st, {}, p, predicted_s);
    }
    if (!ch.auto_algo) return true;  // it forced one: the exchange reports the disagreement
    p->algo = ch.algo;
    p->radix = ch.radix;
    p->hier = ch.hier;
    *predicted_s = ch.predicted_s;
    return true;
}

}  // namespace

bool check_group(const char *fn, int np_group, const int *group, uint32_t *me) {
    const int procs = acp_procs(), rank = acp_rank();
    if (np_group < 1) return report(fn, "np_group", "is %d; a group has at least 1 member", np_group);
    if (!group) return report(fn, "group", "is NULL");
    std::vector<int> sorted(group, group + np_group);
    for (int i = 0; i < np_group; ++i)
        if (group[i] < 0 || group[i] >= procs)
            return report(fn, "group", "group[%d] = %d is not a rank of this job [0, %d)", i, group[i], procs);
    std::sort(sorted.begin(), sorted.end());
    if (auto d = std::adjacent_find(sorted.begin(), sorted.end()); d != sorted.end())
        return report(fn, "group", "rank %d is listed twice", *d);
    const int *mine = std::find(group, group + np_group, rank);
    if (mine == group + np_group)
        return report(fn, "group", "does not contain the calling rank %d (only members call create)", rank);
    *me = static_cast<uint32_t>(mine - group);
    return true;
}

bool check_root(const char *fn, int root, int np_group, const int *group) {
    if (root != -1 && std::find(group, group + np_group, root) == group + np_group)
        return report(fn, "root", "rank %d is not in the group", root);
    return true;
}

bool read_choices(const char *fn, Params *p) {
    const char *exec = basic::config_env("ACP_COL_EXEC");
    if (!exec || !std::strcmp(exec, "delegated"))
        p->exec = Exec::kDelegated;
    else if (!std::strcmp(exec, "root"))
        p->exec = Exec::kRoot;
    else
        return report(fn, "ACP_COL_EXEC", "'%s' is not one of: root, delegated", exec);
    if (std::string why; !inline_max_from_env(&p->inline_max, &why))
        return report(fn, "ACP_COL_INLINE", "%s", why.c_str());
    if (std::string why; !ring_max_from_env(&p->ring_max, &why))
        return report(fn, "ACP_COL_RING_DEPTH", "%s", why.c_str());
    if (std::string why; !place_trials_from_env(&p->place_trials, &why))
        return report(fn, "ACP_COL_PLACE", "%s", why.c_str());
    size_t pool = 0;
    uint8_t pool_mode = kPoolNone;
    if (std::string why; !pool_bytes_from_env(&pool, &pool_mode, &why))
        return report(fn, "ACP_COL_POOL", "%s", why.c_str());
    State &st = State::get();
    if (std::string why; !pull_from_env(&st.pull, &why)) return report(fn, "ACP_COL_PULL", "%s", why.c_str());
    st.pool.set_capacity(pool);  // read at each create; the pool is allocated once, at its first chunk
    p->pooled = pool_mode;       // create_col: only where the group is on one node
    return read_algorithm(fn, st, p);
}

void quarantine(State &st, basic::layer::SharedMemory &m) {
    st.quarantined_bytes += m.size;
    m = {};
}

// A direct handle's array, registered once for every live handle over the
// same bytes (one array, several handles, is common: a field with a bcast
// and an allgather): one of the process's 1023 registrations, not one each.
acp_atkey_t register_array(State &st, void *array, size_t bytes) {
    auto [it, fresh] = st.arrays.try_emplace({array, bytes});
    if (fresh) it->second.key = acp_register_memory(array, bytes, 0);
    if (it->second.key == ACP_ATKEY_NULL) {
        st.arrays.erase(it);
        return ACP_ATKEY_NULL;
    }
    ++it->second.handles;
    return it->second.key;
}

void release(Col &c) {
    if (c.mem.array_key != ACP_ATKEY_NULL) {
        State &st = State::get();
        const auto it = std::find_if(st.arrays.begin(), st.arrays.end(),
                                     [&](const auto &a) { return a.second.key == c.mem.array_key; });
        if (it == st.arrays.end() || --it->second.handles == 0) {
            acp_unregister_memory(c.mem.array_key);
            if (it != st.arrays.end()) st.arrays.erase(it);
        }
    }
    c.mem.array_key = ACP_ATKEY_NULL;
    basic::layer::free_shared(c.mem.buffer);
    basic::layer::free_shared(c.mem.ctl);
}

Col *create_col(const char *fn, State &st, Params p, uint32_t me, const int *group, void *array, size_t array_bytes,
                const std::string &own_error, double *predicted_s) {
    const uint32_t n = p.members;
    p.group_hash = group_hash(group, n);
    std::vector<int> grp(group, group + n);
    const collectives::model::Topology nodes = nodes_of(grp);
    p.across_nodes = nodes.nodes() > 1;
    p.crowded = !p.across_nodes && basic::layer::node_crowded();  // one node: every member sees the same
    p.alone = p.across_nodes && nodes.nodes() == n;
    if (p.across_nodes && p.exec == Exec::kDelegated && p.kind != Kind::kAllreduce)
        p.held_kib = static_cast<uint8_t>(std::min<size_t>(kHeldEagerMax, basic::layer::held_put_max()) / 1024);
    // Across nodes a pooled bcast sends to the members of other nodes as
    // held puts (round.cpp), to those of its own through the pool; an
    // allgather keeps its slots there (plan.hpp: kHeldInlineAcrossNodes).
    const bool held_across = p.kind == Kind::kBcast && p.held_kib;
    if (p.exec != Exec::kDelegated || p.kind == Kind::kAllreduce || (p.across_nodes && !held_across))
        p.pooled = kPoolNone;
    else if (p.pooled == kPoolLarge)  // by default the larger handles (plan.hpp)
        p.pooled = pools_by_default(p) ? kPoolEvery : kPoolNone;
    std::vector<int> sorted(group, group + n);
    std::sort(sorted.begin(), sorted.end());
    const uint64_t set_hash = group_hash(sorted.data(), n);
    const CreateKey key{set_hash, st.creates_per_set[set_hash]++};
    const int coordinator = sorted[0];
    *predicted_s = 0;
    std::string own = own_error;
    std::vector<uint32_t> order;  // ACP_COL_PLACE: list index j is played by member order[j]
    if (coordinator == group[me]) {
        if (!send_choice(fn, st, key, group, me, &p, own, predicted_s, &order)) return nullptr;
    } else if (bool settled = true;
               !take_choice(fn, st, key, coordinator, group, &p, predicted_s, !own.empty(), &settled, &order)) {
        if (settled) return nullptr;  // every member fails with the coordinator's message
        if (own.empty()) own = basic::last_error_arg() + ": " + basic::last_error_reason();
    }
    auto c = std::make_unique<Col>();
    c->st = &st;
    c->p = p;
    c->pull = st.pull;
    c->rank = group[me];
    // Not for a member whose own arguments are bad: p may make no sense.
    const bool allreduce = p.kind == Kind::kAllreduce;
    // Placed: the lists' members in the order the coordinator chose; the
    // plan numbers them so (its GA table too, below).
    std::vector<int> play = grp;
    uint32_t my_index = me;
    for (uint32_t j = 0; j < order.size(); ++j) {
        play[j] = grp[order[j]];
        if (order[j] == me) my_index = j;
    }
    std::optional<PlanBuilder> planner;
    if (own.empty() && !allreduce) planner.emplace(p, my_index, play, p.hier ? nodes.map : std::vector<uint32_t>{});
    const size_t ctl_bytes = !own.empty() ? 0
                             : allreduce  ? ar::ctl_bytes(ar::shape_of(p), me)
                                          : layout_of(p).ready() + planner->ready_count();
    bool ok = own.empty() && basic::layer::alloc_block(ctl_bytes, fn, &c->mem.ctl);
    if (ok && allreduce) {
        c->mem.data = c->mem.ctl.ga;  // its slots are in the control block
    } else if (ok && p.storage == Storage::kDirect) {
        c->mem.array = static_cast<char *>(array);
        if (array_bytes) {
            c->mem.array_key = register_array(st, array, array_bytes);
            ok = c->mem.array_key != ACP_ATKEY_NULL;
            if (ok) c->mem.data = acp_query_ga(c->mem.array_key, array);
            c->array_mapped = ok && basic::layer::shared_with_node(c->mem.data);
        } else {
            c->mem.data = c->mem.ctl.ga;  // nothing to reach; keeps the rank in the GA
        }
    } else if (ok) {
        // A bcast's blocks are ranges of one array-sized buffer. A block
        // of the arenas, as the control block: no registration of its own
        // (a process has 1023), and back to the next creates at free.
        const size_t blocks = p.kind == Kind::kAllgather ? n : 1;
        ok = basic::layer::alloc_block(blocks * p.size, fn, &c->mem.buffer, basic::layer::BlockContents::kAsLeft);
        if (ok) c->mem.data = c->mem.buffer.ga;
    }
    // A member that failed here still takes part, so the others do not wait
    // for it until ACP_TIMEOUT: it sends a NULL GA, which fails them all.
    const MemberAddr mine{ok ? c->mem.data : ACP_GA_NULL, ok ? c->mem.ctl.ga : ACP_GA_NULL};
    std::vector<MemberAddr> table;  // by list index; the neighbours' and its own
    const bool go = coordinator == c->rank ? coordinate(fn, st, key, p, group, me, mine, &table)
                                           : join(fn, st, key, p, coordinator, c->rank, mine, own, !own.empty() || !ok);
    const std::vector<uint32_t> near = !go         ? std::vector<uint32_t>{}
                                       : allreduce ? ar::neighbours(ar::shape_of(p), me)
                                                   : planner->neighbours();
    if (!go || !ok || !exchange_addresses(fn, st, key, near, play, my_index, mine, &table)) {
        if (go && !ok) st.mailbox.erase(key);  // (the coordinator refuses a member without memory first)
        // Its address may have reached neighbours that created the handle.
        if (go) quarantine(st, c->mem.ctl);
        release(*c);
        return nullptr;
    }
    c->placed = !order.empty();
    if (allreduce)
        allreduce_plan(*c, me, grp, table);
    else
        c->plan = planner->build(table);
    // A placed allgather's list block j is the block of the member who plays j.
    if (p.kind == Kind::kAllgather && !order.empty()) c->plan.data_blocks = order;
    c->id = st.next_id++;
    Col *out = c.get();
    st.cols[c->id] = std::move(c);
    return out;
}

}  // namespace acpx::middle
