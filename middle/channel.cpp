// ACP's channels (channel.hpp has the protocol): create, send, receive,
// free, and waiting on their requests.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>

#include "basic/errors.hpp"
#include "col.hpp"
#include "create.hpp"
#include "round.hpp"
#include "shared_words.hpp"

namespace acpx::middle {
namespace {

using basic::report;

enum class ChMsg : uint8_t { kHello = kChannelMsgFirst, kBye, kBroken };

struct ChWire {
    ChMsg type;
    int32_t sender, receiver;
    uint32_t n;
    uint64_t block;  // kHello: the GA of the announcing end's block
};

// Channel requests have the top bit set; collective requests never do
// (handle id << 24 | round).
constexpr uint64_t kChRequestBit = uint64_t{1} << 63;

acp_request_t as_request(uint64_t id) { return reinterpret_cast<acp_request_t>(kChRequestBit | id); }
acp_ch_t as_handle(uint64_t id) { return reinterpret_cast<acp_ch_t>(static_cast<uintptr_t>(id)); }

uint64_t now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}

// Offsets in the blocks.
constexpr size_t kConsumed = 0;                       // sender's block
constexpr size_t kStaging = 64;                       // sender's block: slot images
constexpr size_t kConsumedOut = kSlots * kSlotBytes;  // receiver's block: staged words
constexpr size_t kSenderBlock = kStaging + kSlots * kSlotBytes;
constexpr size_t kReceiverBlock = kConsumedOut + kSlots * 8;
size_t slot_at(uint64_t index) { return (index % kSlots) * kSlotBytes; }
static_assert(kSlotBytes % 64 == 0 && kStaging % 64 == 0, "slots start on cache lines (blocks are 64-byte aligned)");
static_assert(kSenderBlock == 4416 && kReceiverBlock == 4384, "acp.h says what a channel's ends hold");

std::string name(const Channel &ch) {
    return "channel " + std::to_string(ch.sender) + "->" + std::to_string(ch.receiver) + " #" + std::to_string(ch.n);
}

Channel *find_channel(State &st, acp_ch_t h, const char *fn) {
    const auto id = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
    auto it = st.channels.chans.find(id);
    if (it == st.channels.chans.end())
        return report(fn, "ch", "%p is not a live channel (ACP_CH_NULL, freed, or never created)",
                      static_cast<void *>(h)),
               nullptr;
    return it->second.get();
}

ChRequest *find_ch_request(State &st, acp_request_t r, const char *fn) {
    const auto v = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(r));
    auto it = (v & kChRequestBit) ? st.channels.reqs.find(v & ~kChRequestBit) : st.channels.reqs.end();
    if (it == st.channels.reqs.end())
        return report(fn, "request",
                      "%p is not a pending channel request (ACP_REQUEST_NULL, waited for already, or "
                      "a collective's)",
                      static_cast<void *>(r)),
               nullptr;
    return &it->second;
}

void finish(ChRequest &r, int status) {
    r.done = true;
    r.status = status;
    r.key = ACP_ATKEY_NULL;  // the registration stays in its channel's cache
}

// The registration of [buf, buf + size) from the channel's cache, or a new
// one (the least recently used goes when the cache is full and no
// pending request uses it). Registering a buffer, and a peer's looking it
// up and dropping it, cost message round trips to agents: a large message
// from a buffer used before costs none.
acp_atkey_t registered(State &st, Channel &ch, char *buf, size_t size) {
    ++ch.reg_clock;
    for (auto &c : ch.regs)
        if (buf >= c.base && buf + size <= c.base + c.size) {
            c.last_use = ch.reg_clock;
            return c.key;
        }
    if (ch.regs.size() >= kCachedRegistrations) {
        auto in_use = [&](acp_atkey_t k) {
            for (const uint64_t id : ch.queue)
                if (st.channels.reqs.at(id).key == k) return true;
            return false;
        };
        auto lru = ch.regs.end();
        for (auto it = ch.regs.begin(); it != ch.regs.end(); ++it)
            if (!in_use(it->key) && (lru == ch.regs.end() || it->last_use < lru->last_use)) lru = it;
        if (lru != ch.regs.end()) {
            acp_unregister_memory(lru->key);
            ch.regs.erase(lru);
        }
    }
    const acp_atkey_t key = acp_register_memory(buf, size, 0);
    if (key != ACP_ATKEY_NULL) ch.regs.push_back({buf, size, key, ch.reg_clock});
    return key;
}

void drop_registrations(Channel &ch) {
    for (const auto &c : ch.regs) acp_unregister_memory(c.key);
    ch.regs.clear();
}

bool fail(ChRequest &r, const char *fn, const Channel &ch, const std::string &why) {
    report(fn, "request", "%s, message %llu: %s", name(ch).c_str(), static_cast<unsigned long long>(r.index),
           why.c_str());
    finish(r, -1);
    return true;
}

// A copy for message r failed: r fails, and so does the channel, on both
// ends (the peer would otherwise wait for a message or a "consumed" that
// never comes, until ACP_TIMEOUT).
bool fail_copy(ChRequest &r, const char *fn, Channel &ch, const std::string &why) {
    fail(r, fn, ch, why);
    if (!ch.broken) {
        ch.broken = true;
        ch.broken_why = "message " + std::to_string(r.index) + " failed on rank " + std::to_string(acp_rank());
        const ChWire w{ChMsg::kBroken, ch.sender, ch.receiver, ch.n, 0};
        basic::layer::send(ch.peer_rank(), &w, sizeof w, fn);
    }
    return true;
}

// Whether the peer's block is known (its hello came); maps it where it can.
bool know_peer(State &st, Channel &ch) {
    if (ch.peer != ACP_GA_NULL) return true;
    auto it = st.channels.hellos.find({ch.sender, ch.receiver, ch.n});
    if (it == st.channels.hellos.end()) return false;
    ch.peer = it->second;
    st.channels.hellos.erase(it);
    const basic::layer::Mapped m = basic::layer::mapped(ch.peer, ch.i_send ? kReceiverBlock : kSenderBlock);
    ch.peer_at = m.ptr;
    ch.keep = m.keep;
    return true;
}

// A GA of `ch`'s block `g` at `offset`.
acp_ga_t at(acp_ga_t g, size_t offset) { return g + offset; }

// The receiver tells the sender it has consumed messages < count.
bool publish_consumed(Channel &ch, uint64_t count) {
    if (ch.peer_at) {
        store_release(ch.peer_at + kConsumed, count);
        return true;
    }
    const size_t w = kConsumedOut + (count % kSlots) * 8;
    if (ch.consumed_copy[count % kSlots] != ACP_HANDLE_NULL) acp_complete(ch.consumed_copy[count % kSlots]);
    std::memcpy(ch.mine_at + w, &count, 8);
    // In order: a later count must not be overwritten by an earlier one.
    const acp_handle_t h = acp_copy(at(ch.peer, kConsumed), at(ch.mine, w), 8, ch.last_consumed);
    if (h == ACP_HANDLE_NULL) return false;
    ch.consumed_copy[count % kSlots] = ch.last_consumed = h;
    return true;
}

// Writes message r into the receiver's slot. False when it cannot start yet.
bool start_send(State &st, Channel &ch, ChRequest &r, const char *fn) {
    if (ch.broken) return fail(r, fn, ch, "the channel broke: " + ch.broken_why);
    if (ch.peer_bye)
        return fail(r, fn, ch, "rank " + std::to_string(ch.receiver) + " freed its end before receiving it");
    if (!know_peer(st, ch)) return false;
    // The receiver's count is read again only when the slot seems taken:
    // its line moves between the ranks' caches at every read after a write.
    if (r.index - ch.consumed_seen >= kSlots) ch.consumed_seen = load_acquire(ch.mine_at + kConsumed);
    if (r.index - ch.consumed_seen >= kSlots) return false;  // its slot still holds message index - kSlots
    const bool large = r.size > kEager;
    uint64_t src = ACP_GA_NULL;
    if (large) {
        r.key = registered(st, ch, r.buf, r.size);
        if (r.key == ACP_ATKEY_NULL) return fail_copy(r, fn, ch, "its buffer could not be registered (the line above)");
        src = acp_query_ga(r.key, r.buf);
    }
    const uint64_t header[3] = {r.index + 1, r.size, src};
    const size_t slot = slot_at(r.index), payload = large ? 0 : r.size;
    if (ch.peer_at) {
        char *p = ch.peer_at + slot;
        std::memcpy(p + 8, header + 1, 16);
        if (payload) std::memcpy(p + kSlotHeader, r.buf, payload);
        store_release(p, header[0]);
        if (!large) finish(r, 0);
    } else {
        char *img = ch.mine_at + kStaging + slot;
        std::memcpy(img, header, 24);
        if (payload) std::memcpy(img + kSlotHeader, r.buf, payload);
        const acp_ga_t img_ga = at(ch.mine, kStaging + slot), slot_ga = at(ch.peer, slot);
        const acp_handle_t body = acp_copy(slot_ga + 8, img_ga + 8, kSlotHeader - 8 + payload, ACP_HANDLE_NULL);
        const acp_handle_t seq = body == ACP_HANDLE_NULL ? ACP_HANDLE_NULL : acp_copy(slot_ga, img_ga, 8, body);
        if (seq == ACP_HANDLE_NULL) return fail_copy(r, fn, ch, "its copy could not be issued (the line above)");
        r.copy = seq;
    }
    r.started = true;
    ++ch.messages;
    return true;
}

// Moves a started send on: done when its copies completed (small) or the
// receiver consumed it (large).
bool check_send(Channel &ch, ChRequest &r, const char *fn) {
    if (r.copy != ACP_HANDLE_NULL) {
        const int s = basic::layer::poll(r.copy);
        if (s == 1) return false;
        r.copy = ACP_HANDLE_NULL;
        if (s < 0) return fail_copy(r, fn, ch, "its copy to rank " + std::to_string(ch.receiver) + " failed");
        if (r.size <= kEager) {
            finish(r, 0);
            return true;
        }
    }
    if (r.size > kEager && load_acquire(ch.mine_at + kConsumed) > r.index) {
        finish(r, 0);
        return true;
    }
    if (ch.peer_bye)
        return fail(r, fn, ch, "rank " + std::to_string(ch.receiver) + " freed its end before receiving it");
    return false;
}

// Receives message r once it is in its slot.
bool check_recv(State &st, Channel &ch, ChRequest &r, const char *fn) {
    const char *slot = ch.mine_at + slot_at(r.index);
    if (!r.started) {
        if (load_acquire(slot) != r.index + 1) {
            if (ch.peer_bye)
                return fail(r, fn, ch, "rank " + std::to_string(ch.sender) + " freed its end before sending it");
            return false;
        }
        if (!know_peer(st, ch)) return false;  // its hello comes before its first message; checked anyway
        uint64_t size = 0, src = 0;
        std::memcpy(&size, slot + 8, 8);
        std::memcpy(&src, slot + 16, 8);
        r.got = static_cast<size_t>(std::min<uint64_t>(size, r.size));  // the rest is discarded
        r.started = true;
        if (size <= kEager) {
            if (r.got) std::memcpy(r.buf, slot + kSlotHeader, r.got);
        } else if (r.got) {
            r.key = registered(st, ch, r.buf, r.got);
            if (r.key == ACP_ATKEY_NULL)
                return fail_copy(r, fn, ch, "its buffer could not be registered (the line above)");
            r.copy = acp_copy(acp_query_ga(r.key, r.buf), src, r.got, ACP_HANDLE_NULL);
            if (r.copy == ACP_HANDLE_NULL) return fail_copy(r, fn, ch, "its copy could not be issued (the line above)");
        }
    }
    if (r.copy != ACP_HANDLE_NULL) {
        const int s = basic::layer::poll(r.copy);
        if (s == 1) return false;
        r.copy = ACP_HANDLE_NULL;
        if (s < 0) return fail_copy(r, fn, ch, "its copy from rank " + std::to_string(ch.sender) + "'s buffer failed");
    }
    ++ch.messages;
    if (!publish_consumed(ch, ch.messages)) return fail_copy(r, fn, ch, "telling the sender could not be issued");
    finish(r, 0);
    return true;
}

void send_bye(Channel &ch, const char *fn) {
    const ChWire w{ChMsg::kBye, ch.sender, ch.receiver, ch.n, 0};
    basic::layer::send(ch.peer_rank(), &w, sizeof w, fn);
}

// The free: once every earlier request of this end is done and its copies
// complete, says bye and ends; this end's block goes when the peer's bye
// has come too (the peer writes into it until then, and nothing after).
// Not waiting for the peer lets two ranks free their channels in any order.
bool check_free(State &st, Channel &ch, ChRequest &r, const char *fn) {
    if (ch.last_consumed != ACP_HANDLE_NULL && basic::layer::poll(ch.last_consumed) == 1) return false;
    send_bye(ch, fn);
    std::string left;
    if (!ch.i_send && !ch.broken && load_acquire(ch.mine_at + slot_at(ch.messages)) == ch.messages + 1)
        left = "message " + std::to_string(ch.messages) + " from rank " + std::to_string(ch.sender) +
               " arrived and was never received";
    drop_registrations(ch);
    if (ch.peer_bye)
        acp_free(ch.mine);
    else
        st.channels.parked[{ch.sender, ch.receiver, ch.n}] = ch.mine;
    const uint64_t id = ch.id;
    if (!left.empty())
        fail(r, fn, ch, left);
    else
        finish(r, 0);
    st.channels.chans.erase(id);
    return true;
}

// Takes the peer's word that it freed its end or broke the channel.
void take_notices(State &st, Channel &ch) {
    if (st.channels.byes.empty() && st.channels.broken.empty()) return;  // the common case, polled often
    if (!ch.peer_bye) {
        auto it = st.channels.byes.find({ch.sender, ch.receiver, ch.n});
        if (it != st.channels.byes.end()) {
            ch.peer_bye = true;
            st.channels.byes.erase(it);
        }
    }
    if (!ch.broken) {
        auto it = st.channels.broken.find({ch.sender, ch.receiver, ch.n});
        if (it != st.channels.broken.end()) {
            ch.broken = true;
            ch.broken_why =
                "rank " + std::to_string(ch.peer_rank()) + "'s copy for it failed (its own line says which)";
            st.channels.broken.erase(it);
        }
    }
}

// Moves the channel's requests on, in order. True if one moved.
bool progress_channel(State &st, Channel &ch, const char *fn) {
    take_notices(st, ch);
    bool moved = false;
    while (!ch.queue.empty()) {
        const uint64_t head = ch.queue.front();
        ChRequest &r = st.channels.reqs.at(head);
        if (ch.broken && r.kind != ChRequest::Kind::kFree && !r.done) {
            // Its copies may still be in flight: they complete (failed or
            // not) before it is given up, as a free would wait for them.
            if (r.copy != ACP_HANDLE_NULL && basic::layer::poll(r.copy) == 1) break;
            r.copy = ACP_HANDLE_NULL;
            fail(r, fn, ch, "the channel broke: " + ch.broken_why);
        }
        bool now = r.done;
        if (!now) {
            switch (r.kind) {
                case ChRequest::Kind::kSend: {
                    // Later sends start while earlier ones complete (up to
                    // kSlots), in order: the queue's first sends_started are.
                    while (ch.sends_started < ch.queue.size()) {
                        ChRequest &s = st.channels.reqs.at(ch.queue[ch.sends_started]);
                        if (s.kind != ChRequest::Kind::kSend) break;
                        if (!s.started && !s.done && !start_send(st, ch, s, fn)) break;
                        ++ch.sends_started;
                        moved = true;
                    }
                    now = r.done || (r.started && check_send(ch, r, fn));
                    break;
                }
                case ChRequest::Kind::kRecv: now = check_recv(st, ch, r, fn); break;
                case ChRequest::Kind::kFree: {
                    const bool freed = check_free(st, ch, r, fn);
                    if (freed) return true;  // ch is gone
                    break;
                }
            }
        }
        if (!now && !r.done) break;
        ch.queue.pop_front();
        if (ch.sends_started) --ch.sends_started;
        ch.quiet_since_ns = now_ns();
        moved = true;
    }
    return moved;
}

uint64_t enqueue(State &st, Channel &ch, ChRequest r) {
    const uint64_t id = st.channels.next_req++;
    r.ch = ch.id;
    if (ch.queue.empty()) ch.quiet_since_ns = now_ns();
    st.channels.reqs.emplace(id, r);
    ch.queue.push_back(id);
    return id;
}

// Progress for everything a wait may depend on: messages, this layer's
// channels and handles, and the transport where a peer is not mapped.
bool progress_everything(State &st, const char *fn) {
    collect_mail(st);
    bool moved = false, unmapped = false;
    std::vector<uint64_t> ids;
    for (auto &[id, ch] : st.channels.chans) ids.push_back(id);
    for (const uint64_t id : ids) {
        auto it = st.channels.chans.find(id);
        if (it == st.channels.chans.end()) continue;
        unmapped |= !it->second->peer_at;
        moved |= progress_channel(st, *it->second, fn);
    }
    moved |= progress_all(st);
    if (unmapped) basic::layer::progress();
    return moved;
}

// The request's channel has not moved for ACP_TIMEOUT: its head request
// fails, naming what it waits for.
bool timed_out(State &st, ChRequest &r, const char *fn) {
    auto it = st.channels.chans.find(r.ch);
    if (it == st.channels.chans.end()) return false;
    Channel &ch = *it->second;
    const double limit = basic::layer::timeout_seconds();
    if (static_cast<double>(now_ns() - ch.quiet_since_ns) * 1e-9 <= limit) return false;
    ChRequest &head = st.channels.reqs.at(ch.queue.front());
    const std::string peer = "rank " + std::to_string(ch.peer_rank());
    std::string what = ch.peer == ACP_GA_NULL                ? peer + " to create its end"
                       : head.kind == ChRequest::Kind::kRecv ? peer + " to send it"
                       : head.kind == ChRequest::Kind::kSend ? peer + " to receive"
                                                             : "this end's copies to complete";
    fail(head, fn, ch, "waited " + std::to_string(static_cast<int>(limit)) + " s (ACP_TIMEOUT) for " + what);
    ch.queue.pop_front();
    if (ch.sends_started) --ch.sends_started;
    ch.quiet_since_ns = now_ns();
    return true;
}

// A send or a receive, checked, queued and moved on as far as it goes.
acp_request_t post(const char *fn, acp_ch_t h, ChRequest::Kind kind, void *buf, size_t size) {
    if (!basic::layer::initialized(fn)) return ACP_REQUEST_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    Channel *ch = find_channel(st, h, fn);
    if (!ch) return ACP_REQUEST_NULL;
    const bool send = kind == ChRequest::Kind::kSend;
    if (ch->i_send != send)
        return report(fn, "ch", "this rank is the %s of %s, not its %s", send ? "receiver" : "sender",
                      name(*ch).c_str(), send ? "sender" : "receiver"),
               ACP_REQUEST_NULL;
    if (ch->freeing) return report(fn, "ch", "%s is being freed", name(*ch).c_str()), ACP_REQUEST_NULL;
    take_notices(st, *ch);
    if (ch->broken)
        return report(fn, "ch", "%s broke: %s", name(*ch).c_str(), ch->broken_why.c_str()), ACP_REQUEST_NULL;
    if (!buf && size) return report(fn, "buf", "is NULL but size is %zu", size), ACP_REQUEST_NULL;
    ChRequest r;
    r.kind = kind;
    r.buf = static_cast<char *>(buf);
    r.size = size;
    r.index = ch->posted++;
    const uint64_t id = enqueue(st, *ch, r);
    progress_channel(st, *ch, fn);
    return as_request(id);
}

}  // namespace

void channel_mail(State &st, const basic::layer::Bytes &m) {
    ChWire w{};
    if (m.size() < sizeof w) return;
    std::memcpy(&w, m.data(), sizeof w);
    const ChannelTable::Key key{w.sender, w.receiver, w.n};
    if (w.type == ChMsg::kHello) st.channels.hellos[key] = w.block;
    if (w.type == ChMsg::kBroken) st.channels.broken[key] = true;
    if (w.type != ChMsg::kBye) return;
    if (auto it = st.channels.parked.find(key); it != st.channels.parked.end()) {
        acp_free(it->second);  // this end was freed first: its block goes now
        st.channels.parked.erase(it);
    } else {
        st.channels.byes[key] = true;
    }
}

}  // namespace acpx::middle

using namespace acpx::middle;

extern "C" {

acp_ch_t acp_create_ch(int sender, int receiver) try {
    constexpr const char *fn = "acp_create_ch";
    if (!acpx::basic::layer::initialized(fn)) return ACP_CH_NULL;
    const int me = acp_rank(), np = acp_procs();
    if (sender < 0 || sender >= np) return report(fn, "sender", "%d is not in [0, %d)", sender, np), ACP_CH_NULL;
    if (receiver < 0 || receiver >= np)
        return report(fn, "receiver", "%d is not in [0, %d)", receiver, np), ACP_CH_NULL;
    if (sender == receiver) return report(fn, "receiver", "is the sender, %d", sender), ACP_CH_NULL;
    if (me != sender && me != receiver)
        return report(fn, "sender", "this rank, %d, is neither the sender %d nor the receiver %d", me, sender,
                      receiver),
               ACP_CH_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    auto ch = std::make_unique<Channel>();
    ch->sender = sender;
    ch->receiver = receiver;
    ch->i_send = me == sender;
    ch->mine = acp_malloc(ch->i_send ? kSenderBlock : kReceiverBlock, me);
    if (ch->mine == ACP_GA_NULL) return report(fn, "sender", "no memory for this end (the line above)"), ACP_CH_NULL;
    ch->mine_at = static_cast<char *>(acp_query_address(ch->mine));
    ch->n = st.channels.created[{sender, receiver}]++;
    ch->id = st.channels.next_ch++;
    const ChWire hello{ChMsg::kHello, sender, receiver, ch->n, ch->mine};
    if (!acpx::basic::layer::send(ch->peer_rank(), &hello, sizeof hello, fn)) {
        acp_free(ch->mine);
        return ACP_CH_NULL;
    }
    const uint64_t id = ch->id;
    st.channels.chans.emplace(id, std::move(ch));
    return as_handle(id);
} catch (...) {
    return acpx::basic::report_exception("acp_create_ch"), ACP_CH_NULL;
}

acp_request_t acp_nbsend_ch(acp_ch_t h, void *buf, size_t size) try {
    return post("acp_nbsend_ch", h, ChRequest::Kind::kSend, buf, size);
} catch (...) {
    return acpx::basic::report_exception("acp_nbsend_ch"), ACP_REQUEST_NULL;
}

acp_request_t acp_nbrecv_ch(acp_ch_t h, void *buf, size_t size) try {
    return post("acp_nbrecv_ch", h, ChRequest::Kind::kRecv, buf, size);
} catch (...) {
    return acpx::basic::report_exception("acp_nbrecv_ch"), ACP_REQUEST_NULL;
}

acp_request_t acp_nbfree_ch(acp_ch_t h) try {
    constexpr const char *fn = "acp_nbfree_ch";
    if (!acpx::basic::layer::initialized(fn)) return ACP_REQUEST_NULL;
    State &st = State::get();
    AppCall call(st.owner);
    Channel *ch = find_channel(st, h, fn);
    if (!ch) return ACP_REQUEST_NULL;
    if (ch->freeing) return report(fn, "ch", "%s is being freed already", name(*ch).c_str()), ACP_REQUEST_NULL;
    ch->freeing = true;
    ChRequest r;
    r.kind = ChRequest::Kind::kFree;
    r.index = ch->messages;
    const uint64_t id = enqueue(st, *ch, r);
    return as_request(id);
} catch (...) {
    return acpx::basic::report_exception("acp_nbfree_ch"), ACP_REQUEST_NULL;
}

size_t acp_wait_ch(acp_request_t req) try {
    constexpr const char *fn = "acp_wait_ch";
    constexpr size_t kFailed = static_cast<size_t>(-1);
    if (!acpx::basic::layer::initialized(fn)) return kFailed;
    State &st = State::get();
    AppCall call(st.owner);
    ChRequest *r = find_ch_request(st, req, fn);
    if (!r) return kFailed;
    const uint64_t id = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(req)) & ~kChRequestBit;
    // The request's own channel is polled every time; the rest (messages,
    // which take the runtime's lock and progress the transport, other
    // channels and handles) every 16th idle poll: for a peer on this node
    // a message lands by plain stores, seen by the channel's own poll.
    for (unsigned idle = 0, polls = 0; !r->done; ++polls) {
        bool moved = false;
        if (auto it = st.channels.chans.find(r->ch); it != st.channels.chans.end() && it->second->peer_at)
            moved = progress_channel(st, *it->second, fn);
        if (!moved && !r->done && idle % 16 == 0) moved = progress_everything(st, fn);
        idle = moved ? 0 : idle + 1;
        // The clock is read every 64th poll: a read costs as much as a
        // poll of a mapped channel.
        if (!r->done && polls % 64 == 63 && timed_out(st, *r, fn)) idle = 0;
        pause_if_idle(idle);
    }
    const ChRequest done = *r;
    st.channels.reqs.erase(id);
    if (done.status != 0) return kFailed;
    return done.kind == ChRequest::Kind::kRecv ? done.got : 0;
} catch (...) {
    return acpx::basic::report_exception("acp_wait_ch"), static_cast<size_t>(-1);
}

int acp_waitall_ch(acp_request_t *reqs, int n, size_t *sizes) try {
    constexpr const char *fn = "acp_waitall_ch";
    if (!acpx::basic::layer::initialized(fn)) return -1;
    if (n < 0) return report(fn, "n", "%d is negative", n), -1;
    if (n > 0 && !reqs) return report(fn, "requests", "is NULL but n is %d", n), -1;
    int rc = 0;
    for (int i = 0; i < n; ++i) {
        const size_t s = acp_wait_ch(reqs[i]);
        if (sizes) sizes[i] = s;
        if (s == static_cast<size_t>(-1)) rc = -1;
    }
    return rc;
} catch (...) {
    return acpx::basic::report_exception("acp_waitall_ch"), -1;
}

int acp_send_ch(acp_ch_t h, void *buf, size_t size) try {
    const acp_request_t r = acp_nbsend_ch(h, buf, size);
    if (r == ACP_REQUEST_NULL) return -1;
    return acp_wait_ch(r) == static_cast<size_t>(-1) ? -1 : 0;
} catch (...) {
    return acpx::basic::report_exception("acp_send_ch"), -1;
}

int acp_recv_ch(acp_ch_t h, void *buf, size_t size) try {
    const acp_request_t r = acp_nbrecv_ch(h, buf, size);
    if (r == ACP_REQUEST_NULL) return -1;
    const size_t got = acp_wait_ch(r);
    if (got == static_cast<size_t>(-1)) return -1;
    return static_cast<int>(std::min<size_t>(got, INT_MAX));
} catch (...) {
    return acpx::basic::report_exception("acp_recv_ch"), -1;
}

int acp_free_ch(acp_ch_t h) try {
    const acp_request_t r = acp_nbfree_ch(h);
    if (r == ACP_REQUEST_NULL) return -1;
    return acp_wait_ch(r) == static_cast<size_t>(-1) ? -1 : 0;
} catch (...) {
    return acpx::basic::report_exception("acp_free_ch"), -1;
}

}  // extern "C"
