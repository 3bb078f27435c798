// ACP's segmented buffers (segbuf.hpp has the protocol): create, connect,
// handing segments over and back, the queries, disconnect and free.
#include "segbuf.hpp"

#include <chrono>
#include <cstring>
#include <string>

#include "basic/errors.hpp"
#include "col.hpp"
#include "create.hpp"
#include "shared_words.hpp"

namespace acpx::middle {
namespace {

using basic::report;

enum class SbMsg : uint8_t { kHello = kSegbufMsgFirst, kBye, kBroken };

struct SbWire {
    SbMsg type;
    int32_t src, dst;
    uint32_t n;
    uint64_t block, buf, segsize, segnum;  // kHello: the announcing end's
};

constexpr size_t kWord = 8;
size_t src_block_bytes(size_t segnum) { return kWord + segnum * kWord; }
size_t dst_block_bytes(size_t segnum) { return segnum * kWord + kHeadStage * kWord; }
// Offsets in the blocks.
constexpr size_t kHeadWord = 0;  // source's block: the destination's count
size_t src_stage(const Segbuf &sb, uint64_t k) { return kWord + (k % sb.segnum) * kWord; }
size_t arrived_word(const Segbuf &sb, uint64_t k) { return (k % sb.segnum) * kWord; }
size_t head_stage(const Segbuf &sb, uint64_t count) { return sb.segnum * kWord + (count % kHeadStage) * kWord; }

acp_segbuf_t as_handle(uint64_t id) { return reinterpret_cast<acp_segbuf_t>(static_cast<uintptr_t>(id)); }

SegbufTable::Key key_of(const Segbuf &sb) { return {sb.src, sb.dst, sb.n}; }

std::string name(const Segbuf &sb) {
    return "segmented buffer " + std::to_string(sb.src) + "->" + std::to_string(sb.dst) + " #" + std::to_string(sb.n);
}

// The live segmented buffer h, inside acp_init .. acp_finalize; else
// nullptr, reported under fn.
Segbuf *find_segbuf(acp_segbuf_t h, const char *fn) {
    if (!basic::layer::initialized(fn)) return nullptr;
    State &st = State::get();
    const auto id = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
    auto it = st.segbufs.bufs.find(id);
    if (it == st.segbufs.bufs.end())
        return report(fn, "segbuf", "%p is not a live segmented buffer (ACP_SEGBUF_NULL, freed, or never created)",
                      static_cast<void *>(h)),
               nullptr;
    return it->second.get();
}

void send_msg(const Segbuf &sb, SbMsg type, const char *fn) {
    const SbWire w{type, sb.src, sb.dst, sb.n, 0, 0, 0, 0};
    basic::layer::send(sb.peer_rank(), &w, sizeof w, fn);
}

// The segmented buffer cannot go on: says why once, and tells the peer,
// whose waits would otherwise never end.
void mark_broken(Segbuf &sb, const char *fn, const std::string &why) {
    if (sb.broken) return;
    sb.broken = sb.broke_here = true;
    report(fn, "segbuf", "%s: %s", name(sb).c_str(), why.c_str());
    send_msg(sb, SbMsg::kBroken, fn);
}

// A poll that can never succeed: says why, once. -1.
int futile(Segbuf &sb, const char *fn, const std::string &why) {
    if (!sb.said_futile) report(fn, "segbuf", "%s: %s", name(sb).c_str(), why.c_str());
    sb.said_futile = true;
    return -1;
}

// Takes what the peer said (bye, broken) and what landed in this end's
// block; moves the counts on. Never waits.
void refresh(State &st, Segbuf &sb, const char *fn) {
    const auto k = key_of(sb);
    if (auto it = st.segbufs.byes.find(k); it != st.segbufs.byes.end()) {
        sb.peer_gone = true;
        st.segbufs.byes.erase(it);
    }
    if (auto it = st.segbufs.broken.find(k); it != st.segbufs.broken.end()) {
        st.segbufs.broken.erase(it);
        if (!sb.broken) {
            sb.broken = true;
            report(fn, "segbuf", "%s: rank %d's copies for it failed (its own message says which)", name(sb).c_str(),
                   sb.peer_rank());
        }
    }
    if (!sb.connected) return;
    if (sb.i_src) {
        const uint64_t given_back = load_acquire(sb.mine_at + kHeadWord);
        if (given_back > sb.head) sb.head = given_back;
        while (!sb.in_flight.empty()) {
            const acp_handle_t h = sb.in_flight.front();
            const int s = h == ACP_HANDLE_NULL ? 0 : basic::layer::completion(h);
            if (s == 1) break;
            if (s < 0) {
                mark_broken(sb, fn,
                            "the copy of segment " + std::to_string(sb.sent) + " to rank " + std::to_string(sb.dst) +
                                " failed");
                break;
            }
            sb.in_flight.pop_front();
            ++sb.sent;
        }
    } else {
        while (sb.tail - sb.head < sb.segnum && load_acquire(sb.mine_at + arrived_word(sb, sb.tail)) == sb.tail + 1)
            ++sb.tail;
        if (sb.last_head_copy != ACP_HANDLE_NULL && basic::layer::completion(sb.last_head_copy) < 0)
            mark_broken(sb, fn, "telling rank " + std::to_string(sb.src) + " about a segment given back failed");
    }
}

// refresh, and where that finds nothing new for `want`, the messages and
// the transport too (a peer on another node writes into this process only
// in its transport calls).
template <class Want>
bool refresh_for(State &st, Segbuf &sb, const char *fn, Want want) {
    refresh(st, sb, fn);
    if (want()) return true;
    collect_mail(st);
    basic::layer::progress();
    refresh(st, sb, fn);
    return want();
}

// Whether sb may hand segments over or back now (fn reports why not).
bool usable(const Segbuf &sb, const char *fn, bool want_src) {
    if (sb.i_src != want_src)
        return report(fn, "segbuf", "this rank is the %s of %s; %s is for its %s", sb.i_src ? "source" : "destination",
                      name(sb).c_str(), fn, want_src ? "source" : "destination");
    if (!sb.connected) return report(fn, "segbuf", "%s is not connected (acp_connect_segbuf)", name(sb).c_str());
    if (sb.disconnected) return report(fn, "segbuf", "%s is disconnected", name(sb).c_str());
    return true;
}

acp_segbuf_t create(const char *fn, bool i_src, int peer, void *buf, size_t segsize, size_t segnum) {
    if (!basic::layer::initialized(fn)) return ACP_SEGBUF_NULL;
    const char *peer_arg = i_src ? "dst_rank" : "src_rank";
    const int me = acp_rank(), np = acp_procs();
    if (peer < 0 || peer >= np) return report(fn, peer_arg, "%d is not in [0, %d)", peer, np), ACP_SEGBUF_NULL;
    if (peer == me) return report(fn, peer_arg, "is this rank, %d", me), ACP_SEGBUF_NULL;
    if (!buf) return report(fn, "buf", "is NULL"), ACP_SEGBUF_NULL;
    if (segsize == 0) return report(fn, "segsize", "is 0"), ACP_SEGBUF_NULL;
    if (segnum == 0) return report(fn, "segnum", "is 0"), ACP_SEGBUF_NULL;
    if (segnum > (SIZE_MAX / 2) / segsize || segnum > SIZE_MAX / 64)
        return report(fn, "segnum", "%zu segments of %zu bytes overflow the address space", segnum, segsize),
               ACP_SEGBUF_NULL;
    State &st = State::get();
    auto sb = std::make_unique<Segbuf>();
    sb->i_src = i_src;
    sb->src = i_src ? me : peer;
    sb->dst = i_src ? peer : me;
    sb->buf = static_cast<char *>(buf);
    sb->segsize = segsize;
    sb->segnum = segnum;
    sb->key = acp_register_memory(buf, segsize * segnum, 0);
    if (sb->key == ACP_ATKEY_NULL)
        return report(fn, "buf", "could not be registered (the line above)"), ACP_SEGBUF_NULL;
    sb->buf_ga = acp_query_ga(sb->key, buf);
    sb->mine = acp_malloc(i_src ? src_block_bytes(segnum) : dst_block_bytes(segnum), me);
    if (sb->mine == ACP_GA_NULL) {
        acp_unregister_memory(sb->key);
        return report(fn, "segnum", "no memory for this end's block (the line above)"), ACP_SEGBUF_NULL;
    }
    sb->mine_at = static_cast<char *>(acp_query_address(sb->mine));
    sb->n = st.segbufs.created[{sb->src, sb->dst}]++;
    sb->id = st.segbufs.next_id++;
    const SbWire hello{SbMsg::kHello, sb->src, sb->dst, sb->n, sb->mine, sb->buf_ga, segsize, segnum};
    if (!basic::layer::send(peer, &hello, sizeof hello, fn)) {
        acp_free(sb->mine);
        acp_unregister_memory(sb->key);
        return ACP_SEGBUF_NULL;
    }
    const uint64_t id = sb->id;
    st.segbufs.bufs.emplace(id, std::move(sb));
    return as_handle(id);
}

// A source's ack: segment tail's bytes to the destination's buffer, then
// its word, after them.
int hand_over(State &st, Segbuf &sb, const char *fn) {
    const bool room =
        refresh_for(st, sb, fn, [&] { return sb.broken || sb.peer_gone || sb.tail - sb.head < sb.segnum; });
    if (sb.broken) return 1;
    if (sb.peer_gone) return report(fn, "segbuf", "%s: rank %d disconnected its end", name(sb).c_str(), sb.dst), 1;
    if (!room)
        return report(fn, "segbuf",
                      "%s: no segment is ready: rank %d has not given back segment %llu (acp_ready_segbuf; "
                      "acp_isready_segbuf tells)",
                      name(sb).c_str(), sb.dst, static_cast<unsigned long long>(sb.head)),
               1;
    const uint64_t k = sb.tail;
    const size_t off = (k % sb.segnum) * sb.segsize;
    const acp_handle_t data = acp_copy(sb.peer_buf + off, sb.buf_ga + off, sb.segsize, ACP_HANDLE_NULL);
    if (data == ACP_HANDLE_NULL)
        return mark_broken(sb, fn, "segment " + std::to_string(k) + "'s copy could not be issued (the line above)"), 1;
    const uint64_t word = k + 1;
    std::memcpy(sb.mine_at + src_stage(sb, k), &word, kWord);
    acp_handle_t flag = ACP_HANDLE_NULL;
    if (sb.peer_at && basic::layer::completion(data) == 0) {
        store_release(sb.peer_at + arrived_word(sb, k), word);  // the bytes are there already
    } else {
        flag = acp_copy(sb.peer_block + arrived_word(sb, k), sb.mine + src_stage(sb, k), kWord, data);
        if (flag == ACP_HANDLE_NULL)
            return mark_broken(sb, fn, "segment " + std::to_string(k) + "'s word could not be issued (the line above)"),
                   1;
    }
    sb.in_flight.push_back(flag);
    ++sb.tail;
    return 0;
}

// A destination's ready: segment head goes back to the source.
int give_back(State &st, Segbuf &sb, const char *fn) {
    // Segments that arrived before a failure are whole, and may go back.
    if (!refresh_for(st, sb, fn, [&] { return sb.tail > sb.head; })) {
        if (sb.broken) return 1;
        return report(fn, "segbuf", "%s: segment %llu has not arrived (acp_isacked_segbuf tells)", name(sb).c_str(),
                      static_cast<unsigned long long>(sb.head)),
               1;
    }
    const uint64_t count = ++sb.head;
    if (sb.peer_at) {
        store_release(sb.peer_at + kHeadWord, count);
        return 0;
    }
    // Counts go in order (each copy after the previous one), from a ring
    // of staged words; a word is reused once its copy is complete.
    acp_handle_t &slot = sb.head_copies[count % kHeadStage];
    if (slot != ACP_HANDLE_NULL) acp_complete(slot);
    std::memcpy(sb.mine_at + head_stage(sb, count), &count, kWord);
    slot = acp_copy(sb.peer_block + kHeadWord, sb.mine + head_stage(sb, count), kWord, sb.last_head_copy);
    if (slot == ACP_HANDLE_NULL)
        return mark_broken(sb, fn, "telling rank " + std::to_string(sb.src) + " could not be issued (the line above)"),
               1;
    sb.last_head_copy = slot;
    return 0;
}

// A query's common part: the segmented buffer, connected once, its counts
// brought up to date.
Segbuf *queried(acp_segbuf_t h, const char *fn) {
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb) return nullptr;
    if (!sb->connected)
        return report(fn, "segbuf", "%s is not connected (acp_connect_segbuf)", name(*sb).c_str()), nullptr;
    refresh(State::get(), *sb, fn);
    return sb;
}

}  // namespace

void segbuf_mail(State &st, const basic::layer::Bytes &m) {
    SbWire w{};
    if (m.size() < sizeof w) return;
    std::memcpy(&w, m.data(), sizeof w);
    const SegbufTable::Key key{w.src, w.dst, w.n};
    switch (w.type) {
        case SbMsg::kHello: st.segbufs.hellos[key] = {w.block, w.buf, w.segsize, w.segnum}; break;
        case SbMsg::kBroken: st.segbufs.broken[key] = true; break;
        case SbMsg::kBye:
            if (auto it = st.segbufs.parked.find(key); it != st.segbufs.parked.end()) {
                acp_free(it->second);  // this end was freed first: its block goes now
                st.segbufs.parked.erase(it);
            } else {
                st.segbufs.byes[key] = true;
            }
            break;
    }
}

}  // namespace acpx::middle

using namespace acpx::middle;
using acpx::basic::report;
using acpx::basic::report_exception;

extern "C" {

acp_segbuf_t acp_create_src_segbuf(int dst_rank, void *buf, size_t segsize, size_t segnum) try {
    return create("acp_create_src_segbuf", true, dst_rank, buf, segsize, segnum);
} catch (...) {
    return report_exception("acp_create_src_segbuf"), ACP_SEGBUF_NULL;
}

acp_segbuf_t acp_create_dst_segbuf(int src_rank, void *buf, size_t segsize, size_t segnum) try {
    return create("acp_create_dst_segbuf", false, src_rank, buf, segsize, segnum);
} catch (...) {
    return report_exception("acp_create_dst_segbuf"), ACP_SEGBUF_NULL;
}

int acp_connect_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_connect_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb) return 1;
    State &st = State::get();
    if (sb->connected)
        return report(fn, "segbuf", "%s is connected already%s", name(*sb).c_str(),
                      sb->disconnected ? " (and disconnected since)" : ""),
               1;
    const auto key = key_of(*sb);
    auto &hellos = st.segbufs.hellos;
    if (!poll_until(st, [&] { return hellos.count(key) != 0; }))
        return report(fn, "segbuf", "%s: waited %.0f s (ACP_TIMEOUT) for rank %d to create its end", name(*sb).c_str(),
                      acpx::basic::layer::timeout_seconds(), sb->peer_rank()),
               1;
    const SegbufTable::Hello peer = hellos.at(key);
    hellos.erase(key);
    if (peer.segsize != sb->segsize || peer.segnum != sb->segnum)
        return report(fn, "segbuf", "%s: rank %d's end has %llu segments of %llu bytes, this end %zu of %zu",
                      name(*sb).c_str(), sb->peer_rank(), static_cast<unsigned long long>(peer.segnum),
                      static_cast<unsigned long long>(peer.segsize), sb->segnum, sb->segsize),
               1;
    sb->peer_block = peer.block;
    sb->peer_buf = peer.buf;
    const auto m =
        acpx::basic::layer::mapped(peer.block, sb->i_src ? dst_block_bytes(sb->segnum) : src_block_bytes(sb->segnum));
    sb->peer_at = m.ptr;
    sb->keep = m.keep;
    sb->connected = true;
    return 0;
} catch (...) {
    return report_exception("acp_connect_segbuf"), 1;
}

int acp_isconnected_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_isconnected_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb) return 1;
    State &st = State::get();
    collect_mail(st);
    refresh(st, *sb, fn);
    return sb->connected && !sb->disconnected && !sb->peer_gone ? 0 : 1;
} catch (...) {
    return report_exception("acp_isconnected_segbuf"), 1;
}

int acp_ack_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_ack_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb || !usable(*sb, fn, true)) return 1;
    State &st = State::get();
    return hand_over(st, *sb, fn);
} catch (...) {
    return report_exception("acp_ack_segbuf"), 1;
}

int acp_ready_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_ready_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb || !usable(*sb, fn, false)) return 1;
    State &st = State::get();
    return give_back(st, *sb, fn);
} catch (...) {
    return report_exception("acp_ready_segbuf"), 1;
}

int acp_isready_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_isready_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb || !usable(*sb, fn, true)) return -1;
    State &st = State::get();
    if (refresh_for(st, *sb, fn, [&] { return sb->broken || sb->tail - sb->head < sb->segnum; }) && !sb->broken)
        return 0;
    if (sb->broken) return -1;
    if (sb->peer_gone) return futile(*sb, fn, "rank " + std::to_string(sb->dst) + " disconnected its end");
    return 1;
} catch (...) {
    return report_exception("acp_isready_segbuf"), -1;
}

int acp_isacked_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_isacked_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb || !usable(*sb, fn, false)) return -1;
    State &st = State::get();
    if (refresh_for(st, *sb, fn, [&] { return sb->tail > sb->head; })) return 0;
    if (sb->broken) return -1;
    // The source says bye only once every segment's word has landed: none
    // will come.
    if (sb->peer_gone)
        return futile(*sb, fn, "rank " + std::to_string(sb->src) + " disconnected; no segment will arrive");
    return 1;
} catch (...) {
    return report_exception("acp_isacked_segbuf"), -1;
}

int64_t acp_query_segbuf_head(acp_segbuf_t h) try {
    const Segbuf *sb = queried(h, "acp_query_segbuf_head");
    return sb ? static_cast<int64_t>(sb->head % sb->segnum) : -1;
} catch (...) {
    return report_exception("acp_query_segbuf_head"), -1;
}

int64_t acp_query_segbuf_tail(acp_segbuf_t h) try {
    const Segbuf *sb = queried(h, "acp_query_segbuf_tail");
    return sb ? static_cast<int64_t>(sb->tail % sb->segnum) : -1;
} catch (...) {
    return report_exception("acp_query_segbuf_tail"), -1;
}

int64_t acp_query_segbuf_sent(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_query_segbuf_sent";
    const Segbuf *sb = queried(h, fn);
    if (!sb) return -1;
    if (!sb->i_src)
        return report(fn, "segbuf", "this rank is the destination of %s; only its source sends", name(*sb).c_str()), -1;
    return static_cast<int64_t>(sb->sent % sb->segnum);
} catch (...) {
    return report_exception("acp_query_segbuf_sent"), -1;
}

int acp_disconnect_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_disconnect_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb) return 1;
    State &st = State::get();
    if (!sb->connected) return report(fn, "segbuf", "%s is not connected", name(*sb).c_str()), 1;
    if (sb->disconnected) return report(fn, "segbuf", "%s is disconnected already", name(*sb).c_str()), 1;
    // Every copy of this end into the peer's memory completes first (failed
    // ones included): the peer frees that memory on our bye.
    acp_handle_t last = sb->last_head_copy;
    for (const acp_handle_t f : sb->in_flight)
        if (f != ACP_HANDLE_NULL) last = f;
    bool ok = true;
    // layer::poll, not layer::completion: it asks for what completes only
    // when asked (a signal put's acknowledgement, a batched flush).
    if (last != ACP_HANDLE_NULL && !poll_until(st, [&] { return acpx::basic::layer::poll(last) != 1; })) {
        report(fn, "segbuf", "%s: waited %.0f s (ACP_TIMEOUT) for this end's copies to rank %d to complete",
               name(*sb).c_str(), acpx::basic::layer::timeout_seconds(), sb->peer_rank());
        ok = false;
    }
    refresh(st, *sb, fn);
    send_msg(*sb, SbMsg::kBye, fn);
    sb->disconnected = true;
    return ok && !sb->broke_here ? 0 : 1;
} catch (...) {
    return report_exception("acp_disconnect_segbuf"), 1;
}

int acp_free_segbuf(acp_segbuf_t h) try {
    constexpr const char *fn = "acp_free_segbuf";
    Segbuf *sb = find_segbuf(h, fn);
    if (!sb) return 1;
    State &st = State::get();
    if (sb->connected && !sb->disconnected)
        return report(fn, "segbuf", "%s is connected: acp_disconnect_segbuf first", name(*sb).c_str()), 1;
    // Never connected: the peer may have connected to it all the same, and
    // waits for our bye before it frees its own end.
    if (!sb->connected) {
        send_msg(*sb, SbMsg::kBye, fn);
        st.segbufs.hellos.erase(key_of(*sb));
    }
    refresh(st, *sb, fn);
    acp_unregister_memory(sb->key);
    if (sb->peer_gone)
        acp_free(sb->mine);
    else
        st.segbufs.parked[key_of(*sb)] = sb->mine;  // the peer may write into it until its bye
    st.segbufs.bufs.erase(sb->id);
    return 0;
} catch (...) {
    return report_exception("acp_free_segbuf"), 1;
}

}  // extern "C"
