// The persistent allreduce's rounds (allreduce.hpp, acp.h): sends, waits,
// the redundant butterfly, failures; its shape is allreduce_shape.cpp's.
#include "allreduce.hpp"

#include <algorithm>

#include "basic/copy_bytes.hpp"
#include "basic/errors.hpp"
#include "basic/ga.hpp"
#include "col.hpp"
#include "round.hpp"
#include "shared_words.hpp"

namespace acpx::middle {

size_t Allreduce::memory() const {
    return sizeof(Allreduce) + steps.capacity() * sizeof(ar::Step) + peer_rank.capacity() * sizeof(int32_t) +
           peer_ctl.capacity() * sizeof(acp_ga_t) + peer_mapped.capacity() * sizeof(char *) +
           src_at.capacity() * sizeof(size_t) + keep.capacity() * sizeof(std::shared_ptr<void>) + sent.capacity();
}

void allreduce_plan(Col &c, uint32_t me, const std::vector<int> &group, const std::vector<MemberAddr> &table) {
    auto a = std::make_unique<Allreduce>(ar::shape_of(c.p));
    a->me = me;
    a->steps = ar::steps_of(a->shape, me);
    for (const ar::Step &s : a->steps) {
        a->peer_rank.push_back(group[s.peer]);
        a->peer_ctl.push_back(table[s.peer].ctl);
    }
    c.ar = std::move(a);
}

namespace {

using ar::Step;

size_t bytes_of(const Col &c) { return c.p.size; }
size_t count_of(const Col &c) { return c.p.size / size_of(c.p.dtype); }

std::string step_name(const Allreduce &a, size_t i) {
    const Step &s = a.steps[i];
    const uint32_t n = s.id - ar::kStage0, k = a.shape.k, m = a.shape.m;
    return s.id == ar::kFoldIn     ? "the folded vector"
           : s.id == ar::kResultIn ? "the result"
           : n < k                 ? "stage " + std::to_string(n)
           : a.shape.halving       ? "gathering stage " + std::to_string(n - k)
           : n < k + m             ? "mid exchange " + std::to_string(n - k)
                                   : "end exchange " + std::to_string(n - k - m);
}

bool on_node(const Col &c, int32_t rank) { return basic::layer::node_id(rank) == basic::layer::node_id(c.rank); }

// Each send step's peer block mapped here, up to the inline cap
// (ACP_COL_INLINE when set), else a registered source for acp_copy.
bool find_peers(Col &c, const char *fn) {
    Allreduce &a = *c.ar;
    const size_t bytes = bytes_of(c);
    const bool stores = c.p.inline_max == kInlineAuto || bytes <= c.p.inline_max;
    size_t src_bytes = 0;
    a.peer_mapped.assign(a.steps.size(), nullptr);
    a.src_at.assign(a.steps.size(), SIZE_MAX);
    for (size_t i = 0; i < a.steps.size(); ++i) {
        if (!on_node(c, a.peer_rank[i])) c.direct.off_node = true;
        if (!a.steps[i].send) continue;
        if (stores) {
            const auto m = basic::layer::mapped(a.peer_ctl[i], ar::ctl_bytes(a.shape, a.steps[i].peer));
            if (m.keep) a.keep.push_back(m.keep);
            a.peer_mapped[i] = m.ptr;
        }
        // By acp_copy (not a signal put): from a registered copy.
        const size_t step_bytes = a.steps[i].count * a.shape.elem;
        const bool by_copy = on_node(c, a.peer_rank[i]) || step_bytes > ar::kSignalPutMax;
        if (!a.peer_mapped[i] && by_copy && step_bytes) {
            a.src_at[i] = src_bytes;
            src_bytes += ar::data_bytes(step_bytes);
        }
    }
    if (src_bytes && !basic::layer::alloc_block(src_bytes, fn, &c.mem.buffer)) return false;
    a.known = true;
    return true;
}

// The vector this member holds now: its own, or the partial so far.
const char *held(const Col &c) { return c.ar->combined ? c.out : c.in; }

// Step i, a send: its elements of `data` (a whole vector) and the stamp
// saying `what` they are into the peer's slot (a failed stamp alone).
bool send_copy(Col &c, size_t i, uint64_t what, const char *data) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const size_t elem = a.shape.elem, bytes = s.count * elem;
    data += s.first * elem;
    const size_t stamp_off = ar::slot_offset(a.shape, s.peer, s.id, c.round);
    const size_t at = ar::data_at(ar::slot_elems(a.shape, s.id) * elem), off = stamp_off + at;
    const uint64_t stamp = ar::stamp_of(c.round, what);
    if (char *peer = a.peer_mapped[i]) {
        if (what != ar::kFailed) basic::copy_bytes(peer + off, data, bytes);
        store_release(peer + stamp_off, stamp);
        return true;
    }
    const acp_ga_t stamp_dst = a.peer_ctl[i] + stamp_off;
    acp_handle_t h = ACP_HANDLE_NULL;
    const size_t body = what == ar::kFailed ? 0 : bytes;
    if (a.src_at[i] == SIZE_MAX || body == 0) {  // another node, or a stamp alone: one message, its stamp stored last
        const uint64_t head[8] = {stamp};
        h = basic::layer::put_signal(stamp_dst, head, body ? at : 8, data, body, 8, ACP_HANDLE_NULL, "acp_wait_col");
    } else {
        char *src = static_cast<char *>(c.mem.buffer.base) + a.src_at[i];
        basic::copy_bytes(src, data, bytes);
        const acp_handle_t copy = acp_copy(a.peer_ctl[i] + off, c.mem.buffer.ga + a.src_at[i], bytes, ACP_HANDLE_NULL);
        if (copy == ACP_HANDLE_NULL) return false;
        track(c, copy);
        h = acp_copy(stamp_dst, c.mem.ctl.ga + ar::stamp_word(what), 8, copy);
    }
    if (h == ACP_HANDLE_NULL) return false;
    track(c, h);
    c.cur.notices.push_back({h, stamp_dst, a.peer_rank[i], static_cast<uint32_t>(i), 8});
    return true;
}

// Step i of the plain butterfly, a send (a failed stamp once this round
// failed here).
bool send_step(Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    return send_copy(c, i, a.failing ? ar::kFailed : a.steps[i].result ? ar::kResult : ar::kPartial, held(c));
}

// This round's copy in this member's slot of step i: its stamp (0 if not
// this round's), its elements (from the step's first).
uint64_t stamp_in(const Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    const uint64_t s = load_acquire(c.ctl_base() + ar::slot_offset(a.shape, a.me, a.steps[i].id, c.round));
    return ar::stamp_is(s, c.round) ? s : 0;
}
const char *data_in(const Col &c, size_t i) {
    const Allreduce &a = *c.ar;
    const uint32_t id = a.steps[i].id;
    return reinterpret_cast<const char *>(c.ctl_base()) + ar::slot_offset(a.shape, a.me, id, c.round) +
           ar::data_at(ar::slot_elems(a.shape, id) * a.shape.elem);
}

// Step i, a wait: has the peer's slot this round's stamp? Then takes it.
bool take_step(Col &c, size_t i) {
    Allreduce &a = *c.ar;
    const Step &s = a.steps[i];
    const uint64_t stamp = stamp_in(c, i);
    if (!stamp) return false;
    if ((stamp & 3) == ar::kFailed) {
        if (!a.failing)
            note_error(c, step_name(a, i) + " from rank " + std::to_string(a.peer_rank[i]) +
                              " failed on its way here (a copy failed: the rank that issued it named it)");
        a.failing = true;
        return true;
    }
    if (a.failing) return true;
    const char *theirs = data_in(c, i);
    const size_t at = s.first * a.shape.elem;
    if (s.gather) {  // the result, or a reduced range: into place
        basic::copy_bytes(c.out + at, theirs, s.count * a.shape.elem);
    } else {
        const char *mine = held(c) + at;
        const bool lower = a.me < s.peer;
        ar::combine(c.p.dtype, c.p.op, c.out + at, lower ? mine : theirs, lower ? theirs : mine, s.count);
    }
    a.combined = true;
    return true;
}

bool send_failure_stamps(Col &c);

// A member waiting for a copy: has one of its own copies of this round
// failed? Its receiver may be the member it waits for (Rabenseifner
// gathers from its first partner last), so the failed stamps go now, not
// at the round's end, and what it still sends goes as failed stamps.
// Looked at every 16th wait: a look costs a walk of the round's GMAs.
// Always true (a broken handle is the caller's).
bool blocked(Col &c) {
    Allreduce &a = *c.ar;
    if (a.failing || c.cur.failing || c.cur.first == ACP_HANDLE_NULL || ++a.waits % 16 != 0) return true;
    if (acp_query_failed(c.cur.first, c.cur.last) != ACP_HANDLE_NULL && send_failure_stamps(c)) a.failing = true;
    return true;
}

// The plain butterfly: its steps in order. False when broken (reported).
bool run_steps(Col &c, bool *moved) {
    Allreduce &a = *c.ar;
    while (a.step < a.steps.size()) {
        if (a.steps[a.step].send) {
            if (!send_step(c, a.step)) return false;
        } else if (!take_step(c, a.step)) {
            return blocked(c);
        }
        ++a.step;
        *moved = true;
    }
    return true;
}

bool sent_all(const Allreduce &a) { return std::find(a.sent.begin(), a.sent.end(), 0) == a.sent.end(); }

// Sends exchange n's copy once.
bool send_once(Col &c, size_t n, uint64_t what, const char *data, bool *moved) {
    Allreduce &a = *c.ar;
    if (a.sent[n]) return true;
    if (!send_copy(c, n, what, data)) return false;
    a.sent[n] = 1;
    *moved = true;
    return true;
}

// The redundant butterfly (seed 001): stages 0..D-1, unless a mid copy
// (the partial of this member's 2^D members, bit-identical to its own)
// comes first; then that partial to its M mid partners; stages D..K-1;
// the result to its L end partners. A result in any slot is final at
// once; every exchange not yet sent then carries it, marked as the
// result, so each slot is written once a round and nobody waits for a
// partial that will not come. A failed stamp anywhere before the result
// fails the round here, and what is owed goes as failed stamps.
bool run_redundant(Col &c, bool *moved) {
    Allreduce &a = *c.ar;
    const ar::Shape &sh = a.shape;
    const size_t bytes = bytes_of(c);
    while (!a.final_held) {
        for (size_t n = 0; n < a.steps.size() && !a.final_held; ++n) {
            const uint64_t st = stamp_in(c, n);
            if ((st & 3) == ar::kFailed) {
                note_error(c, step_name(a, n) + " from rank " + std::to_string(a.peer_rank[n]) +
                                  " failed on its way here (a copy failed: the rank that issued it named it)");
                a.failing = a.final_held = true;
            } else if ((st & 3) == ar::kResult) {
                basic::copy_bytes(c.out, data_in(c, n), bytes);
                a.combined = a.final_held = true;
            }
        }
        if (a.final_held) {
            *moved = true;
            break;
        }
        if (a.stage == sh.d && !a.mid_sent) {
            for (uint32_t j = 0; j < sh.m; ++j)
                if (!send_once(c, sh.k + j, ar::kPartial, held(c), moved)) return false;
            a.mid_sent = true;
        }
        if (a.stage == sh.k) {
            a.final_held = true;
            *moved = true;
            break;
        }
        if (!send_once(c, a.stage, ar::kPartial, held(c), moved)) return false;
        if (a.stage < sh.d) {
            bool shortcut = false;
            for (uint32_t j = 0; j < sh.m && !shortcut; ++j)
                if ((stamp_in(c, sh.k + j) & 3) == ar::kPartial) {
                    basic::copy_bytes(c.out, data_in(c, sh.k + j), bytes);
                    shortcut = true;
                }
            if (shortcut) {
                a.combined = true;
                a.stage = sh.d;
                *moved = true;
                continue;
            }
        }
        const uint64_t st = stamp_in(c, a.stage);
        if (!st) return blocked(c);
        if ((st & 3) != ar::kPartial) continue;  // a result or a failure, come since the look above
        const bool lower = a.me < a.steps[a.stage].peer;
        const char *theirs = data_in(c, a.stage);
        ar::combine(c.p.dtype, c.p.op, c.out, lower ? held(c) : theirs, lower ? theirs : held(c), count_of(c));
        a.combined = true;
        ++a.stage;
        *moved = true;
    }
    const uint64_t what = a.failing ? ar::kFailed : ar::kResult;
    for (uint32_t n = 0; n < a.steps.size(); ++n)
        if (!send_once(c, n, what, c.out, moved)) return false;
    return true;
}

// The round's GMAs are complete and one failed: a failed stamp to each
// receiver whose stamp did not land, so it fails the round at once.
bool send_failure_stamps(Col &c) {
    std::string what;
    for (const auto &n : c.cur.notices)
        if (basic::layer::poll(n.gma) < 0)
            what += (what.empty() ? "" : ", ") + step_name(*c.ar, n.block) + " to rank " + std::to_string(n.to) +
                    " (GMA " + std::to_string(n.gma) + ")";
    if (what.empty()) return false;
    note_error(c, "a copy this rank issued failed: " + what);
    c.cur.failing = true;
    bool sent = false;
    for (const auto &n : c.cur.notices) {
        if (basic::layer::poll(n.gma) >= 0) continue;
        const acp_handle_t h = acp_copy(n.slot, c.mem.ctl.ga + ar::stamp_word(ar::kFailed), 8, ACP_HANDLE_NULL);
        if (h != ACP_HANDLE_NULL) sent = true, c.cur.last = h;
    }
    return sent;
}

// Rounds whose copies may still be on their way to other nodes.
constexpr size_t kMaxTrailingRounds = 16;

void finish(Col &c) {
    c.set_active(false);
    c.done_round = c.round;
}

}  // namespace

bool allreduce_start(Col &c, const char *fn) {
    Allreduce &a = *c.ar;
    // (No peer is looked up for empty rounds: members may free such a
    // handle at once.)
    if (!a.known && bytes_of(c) > 0 && !find_peers(c, fn)) return false;
    ++c.round;
    c.set_active(true);
    c.cur.reset();
    a.step = 0;
    a.combined = false;
    a.failing = false;
    a.stage = 0;
    a.mid_sent = a.final_held = false;
    a.sent.assign(a.shape.redundant() ? a.steps.size() : 0, 0);
    uint8_t *ctl = c.ctl_base();
    for (const uint64_t what : {ar::kPartial, ar::kResult, ar::kFailed})
        store_release(ctl + ar::stamp_word(what), ar::stamp_of(c.round, what));
    if (bytes_of(c) == 0) finish(c);  // a no-op round, as in MPI
    return true;
}

bool allreduce_advance(Col &c) {
    Allreduce &a = *c.ar;
    bool moved = retire_trail_into_round(c);  // earlier rounds' copies to other nodes, landed since?
    if (!(a.shape.redundant() ? run_redundant(c, &moved) : run_steps(c, &moved))) {
        const std::string what = "could not issue a copy of a vector";
        break_handle(c, what);
        return basic::report("acp_wait_col", "handle", "handle %llu round %llu: %s",
                             static_cast<unsigned long long>(c.id), static_cast<unsigned long long>(c.round),
                             what.c_str());
    }
    if (a.shape.redundant() ? !(a.final_held && sent_all(a)) : a.step < a.steps.size()) return moved;
    if (c.cur.last != ACP_HANDLE_NULL) {
        // Copies to other nodes whose bytes left (signal puts copy them at
        // once): their landing is a network round trip, as long as the
        // round; it is checked by the next rounds and by the free, as a
        // bcast's small rounds' (Col::trail; a failure fails a later round
        // naming this one). Each slot's next write comes after in the same
        // pair's order, and reads its round's stamp.
        if (c.direct.off_node && c.trail.size() < kMaxTrailingRounds && basic::layer::completion(c.cur.last) == 1 &&
            basic::layer::sources_free(c.cur.first, c.cur.last)) {
            c.trail.push_back({c.cur.first, c.cur.last, c.round});
            c.cur.first = c.cur.last = ACP_HANDLE_NULL;
        } else if (basic::layer::poll(c.cur.last) == 1) {
            return moved;
        }
    }
    if (!c.cur.failing && c.cur.first != ACP_HANDLE_NULL &&
        acp_query_failed(c.cur.first, c.cur.last) != ACP_HANDLE_NULL && send_failure_stamps(c))
        return true;  // then waits for those
    if (!a.combined && !a.failing && c.out != c.in) basic::copy_bytes(c.out, c.in, bytes_of(c));  // one member
    finish(c);
    return true;
}

std::string allreduce_pending(const Col &c) {
    const Allreduce &a = *c.ar;
    if (a.shape.redundant() && !a.final_held) {
        std::string who;  // the stage it is at, and every copy not here yet
        for (size_t n = 0; n < a.steps.size(); ++n)
            if (!stamp_in(c, n) && (n >= a.shape.k || n == a.stage))
                who += (who.empty() ? "" : ", ") +
                       ("rank " + std::to_string(a.peer_rank[n]) + " (" + step_name(a, n) + ")");
        return who;
    }
    if (!a.shape.redundant() && a.step < a.steps.size())
        return "rank " + std::to_string(a.peer_rank[a.step]) + " (" + step_name(a, a.step) + ")";
    return "this rank's own copies to complete";
}

std::string allreduce_lagging(const Col &c) {
    const Allreduce &a = *c.ar;
    if (c.round == 0 || c.p.size == 0) return "";
    std::string who;
    for (size_t n = 0; n < a.steps.size(); ++n)
        if ((a.shape.redundant() || !a.steps[n].send) && !stamp_in(c, n))
            who += (who.empty() ? "" : ", ") + ("rank " + std::to_string(a.peer_rank[n]));
    return who;
}

}  // namespace acpx::middle
