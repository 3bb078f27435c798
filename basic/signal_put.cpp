// Signal puts (layer::put_signal): a small write into another rank's
// registered memory, sent as one transport message and stored by the
// target's progress: the bytes, then the signal (its first bytes) by
// release stores, so that a reader that sees the signal sees the rest.
//
// Why not an RMA put and a stamp ordered after it: between nodes UCX 1.13
// answers every put over TCP with a message of its own (UCT's PUT_ACK or
// UCP's software-RMA completion) and remote completion costs a flush
// round trip, so a small collective round's data, its stamp and the ready
// byte came to about six messages where MPI sends one. A signal put is
// one message. Its completion comes back in batches: the target
// acknowledges every kAckEvery-th one, acknowledgements ride on its own
// signal puts to the issuer, and a rank that waits for a completion asks
// (hurry()); one that polls (acp_inquire) asks once a put is
// Runtime::kPollAsksAfterNs old.
//
// Signal puts from one rank to another are numbered and stored in that
// order, whatever order the transport delivers messages in. The target
// checks each against its own registration (live, the generation the
// issuer resolved, in bounds); a refused one fails its GMA with the
// target's reason. A peer that dies or a dropped link ends the job
// (the transport's peer failure), so no acknowledgement is lost silently.
#include <algorithm>
#include <cstdint>

#include "api_common.hpp"
#include "copy_bytes.hpp"
#include "protocol.hpp"

namespace acpx::basic {
namespace {

constexpr uint64_t kAckEvery = 16;  // a target acknowledges at least every 16th signal put of a peer
// Pieces of a put by message from this size up are sent from the source
// itself (Transport::send_from), not copied into their messages first:
// the source is free once the transport let go of it, which over TCP is
// when the bytes are in the socket, not a round trip later. On the
// two-host bed a 1 MiB bcast root spent 9% of its time in that copy.
// Smaller ones are copied at issue: their copy costs less than waiting
// for the transport to call back.
constexpr size_t kSendFromMin = 8192;
// The largest signal put: a collective's largest inline slot (64 KiB) and
// its stamps; larger writes are RMA puts.
constexpr size_t kMaxSignalPut = 65536 + 64;

// A held put's head: its size travels in a byte (proto::SignalPut::hold).
constexpr size_t kMaxHeldHead = 248;

// 0 (a plain copy: a put sent as a message, Runtime::put_by_message), 1,
// or whole 8-byte words, within the data.
bool signal_ok(size_t signal, size_t n) { return signal <= n && (signal <= 1 || signal % 8 == 0); }

// Bytes [signal, n) by a plain copy, then the signal: a byte, or 8-byte
// words from the last to the first, each a release store.
void store_signalled(char *at, const uint8_t *data, size_t n, size_t signal) {
    if (n > signal) copy_bytes(at + signal, data + signal, n - signal);
    if (signal == 0) return;
    if (signal == 1) {
        __atomic_store_n(reinterpret_cast<uint8_t *>(at), data[0], __ATOMIC_RELEASE);
        return;
    }
    for (size_t w = signal; w >= 8; w -= 8) {
        uint64_t v;
        std::memcpy(&v, data + w - 8, 8);
        __atomic_store_n(reinterpret_cast<uint64_t *>(at + w - 8), v, __ATOMIC_RELEASE);
    }
}

// A held put's head (hold bytes, 0 for none): whole 8-byte words after
// a signal of whole words, the last one room for the body's reference.
bool hold_ok(size_t hold, size_t signal, size_t n) {
    return hold == 0 || (signal % 8 == 0 && hold % 8 == 0 && hold >= signal + 8 && hold <= n);
}

// A held put (layer::put_held): message m (its header `header` bytes,
// then the head, then the body) is kept whole; its head, the body's
// reference in the last 8 bytes, is stored at `at`, the signal last.
void hold_and_store(Runtime &rt, uint32_t tag, uint64_t offset, char *at, Blob &&m, size_t header, size_t hold,
                    size_t signal) {
    auto b = std::make_unique<Runtime::HeldBody>();
    b->m = std::move(m);
    b->body_at = header + hold;
    b->tag = tag;
    b->at = offset;
    const auto ref = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(b.get()));
    uint8_t *head = b->m.data() + header;
    std::memcpy(head + hold - 8, &ref, 8);
    rt.held.emplace(ref, std::move(b));
    store_signalled(at, head, hold, signal);
}

void send_ack(Runtime &rt, int to, Runtime::SignalPeer &p, bool refused, bool answer, const std::string &why = "") {
    p.told = p.stored;
    const Blob text(why.begin(), why.end());
    rt.send(to, proto::pack(proto::SignalAck{proto::Type::kSignalAck, static_cast<uint8_t>(refused),
                                             static_cast<uint8_t>(answer), static_cast<uint32_t>(rt.rank), p.stored},
                            refused ? &text : nullptr));
}

void ask_for_ack(Runtime &rt, int to, Runtime::SignalPeer &p) {
    p.asked = rt.send(to, proto::pack(proto::Probe{proto::Type::kSignalAskAck, static_cast<uint32_t>(rt.rank)}));
}

// The issuer's side: every signal put to `to` numbered <= count is stored.
void acknowledged(Runtime &rt, Runtime::SignalPeer &p, uint64_t count) {
    while (!p.unacked.empty() && p.unacked.front().number <= count) {
        const Runtime::SignalPeer::Unacked &u = p.unacked.front();
        // (A put with a failed piece ends when the transport lets go of
        // its pieces: piece_released.)
        if (Gma *g = u.last && u.gma ? rt.find_gma(u.gma) : nullptr;
            g && g->state == GmaState::kInFlight && !g->piece_failed)
            g->comp.fn(&g->comp, 0);
        p.unacked.pop_front();
    }
}

// The transport let go of a piece's source (send_from): the GMA's
// source is free once every piece's is. A piece whose send failed fails
// the GMA, but only once the transport has let go of every piece: the
// caller, told that the put ended, may free the source, which the other
// pieces' sends may still read. (A put whose target acknowledged all its
// pieces ends at that acknowledgement: the bytes are there.)
struct PieceRelease {
    Completion comp;
    Runtime *rt;
    acp_handle_t gma;
};
void piece_released(Completion *c, int status) {
    auto *r = reinterpret_cast<PieceRelease *>(c);
    Runtime &rt = *r->rt;
    Gma *g = rt.find_gma(r->gma);
    delete r;
    --rt.sources_held;
    if (!g || g->unreleased == 0) return;
    --g->unreleased;
    if (status != 0 && g->state == GmaState::kInFlight && !g->piece_failed) {
        g->piece_failed = true;
        g->failed = true;
        g->why = "the transport could not send a piece of it";
    }
    if (g->unreleased != 0 || g->state != GmaState::kInFlight) return;
    if (g->piece_failed)
        g->comp.fn(&g->comp, -1);
    else
        g->source_free = true;
}

// GMA `gma` failed: the acknowledgements of its pieces still in flight
// complete nothing, and their refusals were said with its own.
void drop_pieces(Runtime::SignalPeer &p, acp_handle_t gma) {
    for (Runtime::SignalPeer::Unacked &u : p.unacked)
        if (u.gma == gma) u.gma = 0;
}

// Why the target refuses signal put h into registration r (nullptr, or
// "its destination is not registered here"), none of it ordered after a
// refused one.
const char *refusal(const proto::SignalPut &h, const LocalReg *r) {
    // Peers know the starter memory from the start-up exchange, without
    // its generation (0); it lives until acp_finalize.
    const bool stale = r && (h.gen ? r->gen != h.gen : h.tag != ga::kStarterTag);
    return !r      ? "its destination is not registered here"
           : stale ? "its destination was unregistered since the issuer looked"
           : !ga::fits(h.offset, h.hold ? h.hold : h.size, r->size) ? "it passes its destination's registration"
           : !signal_ok(h.signal, h.size) || (h.signal > 1 && reinterpret_cast<uintptr_t>(r->base + h.offset) % 8)
               ? "its signal is not 0 or 1 byte or whole aligned 8-byte words"
           : !hold_ok(h.hold, h.signal, h.size) ? "its held head is not whole 8-byte words past its signal"
                                                : nullptr;
}

// The target's side: stores signal put `m` (the next in order from
// `from`; a held put's bytes are kept), or refuses it, saying why to both sides.
void store_one(Runtime &rt, int from, Runtime::SignalPeer &p, Blob &m) {
    proto::SignalPut h;
    proto::unpack(m, &h);
    ++p.stored;
    // The issuer waits for no number below after_lo: forget those.
    if (h.after_lo) p.refused.erase(p.refused.begin(), p.refused.lower_bound(h.after_lo));
    const auto before = h.after_hi ? p.refused.lower_bound(h.after_lo) : p.refused.end();
    const bool after_refused = before != p.refused.end() && *before <= h.after_hi;
    const std::string after_why =
        after_refused ? "it is ordered after signal put number " + std::to_string(*before) + ", which was refused" : "";
    LocalReg *r = rt.local_reg(h.tag);
    const char *why = after_refused ? after_why.c_str() : refusal(h, r);
    if (why) {
        report("signal put", ("from rank " + std::to_string(from)).c_str(),
               "number %llu (tag %u, %llu bytes) refused: %s", static_cast<unsigned long long>(h.seq), h.tag,
               static_cast<unsigned long long>(h.size), why);
        p.refused.insert(h.seq);
        send_ack(rt, from, p, true, false, "rank " + std::to_string(rt.rank) + " refused it: " + why);
        return;
    }
    if (h.hold)
        hold_and_store(rt, h.tag, h.offset, r->base + h.offset, std::move(m), sizeof(h), h.hold, h.signal);
    else
        store_signalled(r->base + h.offset, m.data() + sizeof(h), h.size, h.signal);
}

}  // namespace

void Runtime::set_signal_payload(Gma &g, Piece head, Piece body) {
    // Room for the header (written at send), then the bytes, appended
    // rather than zeroed and copied over.
    g.payload.assign(sizeof(proto::SignalPut), 0);
    g.payload.reserve(sizeof(proto::SignalPut) + head.n + body.n);
    const auto *h = static_cast<const uint8_t *>(head.data), *b = static_cast<const uint8_t *>(body.data);
    if (head.n) g.payload.insert(g.payload.end(), h, h + head.n);
    if (body.n) g.payload.insert(g.payload.end(), b, b + body.n);
}

acp_handle_t Runtime::put_signal(std::unique_lock<std::mutex> &lk, acp_ga_t dst, Piece head, Piece body, size_t signal,
                                 size_t hold, acp_handle_t order, const char *fn) {
    const size_t n = head.n + body.n;
    if (n == 0 || n > kMaxSignalPut)
        return report(fn, "size", "%zu bytes: a signal put carries 1 to %zu", n, kMaxSignalPut), ACP_HANDLE_NULL;
    if (signal == 0 || !signal_ok(signal, n))
        return report(fn, "signal", "%zu bytes of %zu: the signal is 1 byte or whole 8-byte words, within the data",
                      signal, n),
               ACP_HANDLE_NULL;
    if (!hold_ok(hold, signal, n) || (hold && hold != head.n) || hold > kMaxHeldHead)
        return report(fn, "head",
                      "%zu bytes (signal %zu): a held put's head is whole 8-byte words past its signal, at most %zu",
                      head.n, signal, kMaxHeldHead),
               ACP_HANDLE_NULL;
    api::Target d;
    acp_handle_t after = 0;
    // A held put writes its head there only.
    if (!api::resolve(*this, lk, dst, hold ? hold : n, fn, "dst", false, &d) ||
        !api::resolve_order(*this, order, fn, &after))
        return ACP_HANDLE_NULL;
    const uint64_t addr = d.local ? reinterpret_cast<uint64_t>(d.addr) : d.raddr;
    if (signal > 1 && addr % 8)
        return report(fn, "dst", "address 0x%llx at rank %u is not aligned to 8 bytes, as an 8-byte signal needs",
                      static_cast<unsigned long long>(addr), d.p.rank),
               ACP_HANDLE_NULL;
    Gma g;
    g.fn = fn;
    g.kind = GmaKind::kSignal;
    g.dst = dst;
    g.size = n;
    g.signal = static_cast<uint8_t>(signal);
    g.hold = static_cast<uint8_t>(hold);
    g.peer = static_cast<int>(d.p.rank);
    g.local = d.addr;
    g.raddr = d.raddr;
    g.remote = d.reg;
    set_signal_payload(g, head, body);
    return issue(std::move(g), after);
}

int Runtime::start_signal_put(Gma &g) {
    if (g.peer == rank) {
        if (g.hold)
            hold_and_store(*this, ga::decode(g.dst).tag, ga::decode(g.dst).offset, g.local, std::move(g.payload),
                           sizeof(proto::SignalPut), g.hold, g.signal);
        else
            store_signalled(g.local, g.payload.data() + sizeof(proto::SignalPut), g.size, g.signal);
        Blob().swap(g.payload);
        return kDone;
    }
    // A put by message (put_by_message) packs the application's bytes
    // from its source now; a signal put's message is its payload, copied
    // at issue behind room for this header.
    g.by_message = g.kind == GmaKind::kPut;
    SignalPeer &p = signal_peers[g.peer];
    const ga::Parts at = ga::decode(g.dst);
    // Behind a fence (fence_instead), what g is ordered after may still be
    // refused there: the target then refuses g too, or its bytes (a
    // round's stamp) would say that the refused bytes arrived.
    // [after_lo, after_hi]: from the oldest unacknowledged (the window
    // only moves on, so the target may forget refusals below it) to the
    // newest that g is ordered after.
    uint64_t after_lo = 0, after_hi = 0;
    if (g.fenced)
        for (const SignalPeer::Unacked &u : p.unacked)
            if (u.gma <= g.order) after_hi = u.number;
    if (after_hi) after_lo = p.unacked.front().number;
    // One message; a put by message larger than the transport's piece
    // (Transport::message_piece), one per piece
    // (each piece after the one before it, so a refused piece refuses the
    // rest of its put there: after_lo/after_hi).
    const size_t piece = tp->message_piece();
    const size_t pieces = g.by_message ? std::max<size_t>(1, (g.size + piece - 1) / piece) : 1;
    for (size_t i = 0; i < pieces; ++i) {
        const size_t from = i * piece, n = pieces == 1 ? g.size : std::min(piece, g.size - from);
        if (i > 0) {
            if (!after_lo) after_lo = p.unacked.front().number;
            after_hi = p.sent;
        }
        const proto::SignalPut h{proto::Type::kSignalPut,
                                 g.signal,
                                 g.hold,
                                 static_cast<uint32_t>(rank),
                                 at.tag,
                                 p.sent + 1,
                                 at.offset + from,
                                 n,
                                 g.remote ? g.remote->gen : 0,
                                 p.stored,
                                 after_lo,
                                 after_hi};
        const auto *src = reinterpret_cast<const uint8_t *>(g.local) + from;
        const bool from_source = g.by_message && n >= kSendFromMin;
        const bool injected = from_source && faults.fails_piece();  // piece:N: not handed over
        bool sent = false;
        if (from_source && !injected) {
            auto *rel = new PieceRelease{{piece_released}, this, g.handle};
            const int rc = tp->send_from(g.peer, &h, sizeof h, src, n, &rel->comp);
            if (rc == kPending) {
                ++g.unreleased;
                ++sources_held;
            } else {
                delete rel;
            }
            sent = rc >= 0;
            // sent:N: as if this piece's send failed, whether the transport
            // holds it or finished it at once (a socket with room).
            if (sent && faults.fails_send() && !g.piece_failed) {
                g.piece_failed = g.failed = true;
                g.why = "fault injected at a piece's send for a test (ACPX_TEST_FAIL sent)";
            }
        } else if (g.by_message && !from_source) {
            sent = send(g.peer, joined(&h, sizeof h, src, n));
        } else if (!g.by_message) {
            std::memcpy(g.payload.data(), &h, sizeof h);
            sent = send(g.peer, std::move(g.payload));
        }
        if (!sent) {
            drop_pieces(p, g.handle);  // the pieces already sent
            if (injected) g.why = "fault injected at a piece's handover for a test (ACPX_TEST_FAIL piece)";
            if (g.unreleased == 0) return -1;
            // Pieces sent before it still read the source: the GMA fails
            // once the transport lets go of them (piece_released).
            g.piece_failed = g.failed = true;
            if (!injected) g.why = "the transport could not send a piece of it";
            return kPending;
        }
        ++p.sent;
        p.told = p.stored;
        p.unacked.push_back({p.sent, g.handle, Agent::now_ns(), i + 1 == pieces});
    }
    Blob().swap(g.payload);
    if (g.piece_failed && g.unreleased == 0) {  // failed, and nothing holds its source
        drop_pieces(p, g.handle);
        return -1;
    }
    // Someone waits, or a GMA waits for its order, and this one may be
    // what they wait for: started late (ordered itself), it was not
    // there when they asked.
    if (completion_waiters || !waiting.empty()) {
        p.want = p.sent;
        if (!p.asked) ask_for_ack(*this, g.peer, p);
    }
    return g.unreleased ? kPending : kPendingSourceFree;
}

void Runtime::on_signal_put(Blob &m) {
    proto::SignalPut h;
    if (!proto::unpack(m, &h) || h.from >= static_cast<uint32_t>(procs) || m.size() != sizeof(h) + h.size) return;
    const int from = static_cast<int>(h.from);
    SignalPeer &p = signal_peers[from];
    acknowledged(*this, p, h.ack);
    if (h.seq != p.stored + 1) {
        if (h.seq > p.stored) p.early.emplace(h.seq, std::move(m));
        return;
    }
    store_one(*this, from, p, m);
    while (!p.early.empty() && p.early.begin()->first == p.stored + 1) {
        Blob next = std::move(p.early.begin()->second);
        p.early.erase(p.early.begin());
        store_one(*this, from, p, next);
    }
    if (p.stored - p.told >= kAckEvery) send_ack(*this, from, p, false, false);
}

bool Runtime::store_arriving(const uint8_t *head, size_t head_n, const uint8_t *data, size_t len) {
    proto::SignalPut h;
    // The header: the head (sent apart: Transport::send_from), or the
    // message's first bytes; the bytes to store follow it.
    if (head_n == 0) {
        if (len < sizeof h) return false;
        head = data;
        data += sizeof h;
        len -= sizeof h;
    } else if (head_n != sizeof h) {
        return false;
    }
    if (head[0] != static_cast<uint8_t>(proto::Type::kSignalPut)) return false;
    std::memcpy(&h, head, sizeof h);
    if (h.hold || h.from >= static_cast<uint32_t>(procs) || len != h.size) return false;
    const auto it = signal_peers.find(static_cast<int>(h.from));
    if (it == signal_peers.end()) return false;
    SignalPeer &p = it->second;
    // Only the plain case: the next in order, nothing held back or refused
    // before it, and nothing to refuse (on_signal_put says why).
    if (h.seq != p.stored + 1 || !p.early.empty() || !p.refused.empty()) return false;
    LocalReg *r = local_reg(h.tag);
    if (refusal(h, r)) return false;
    ++p.stored;
    store_signalled(r->base + h.offset, data, h.size, h.signal);
    mail.stored.push_back({static_cast<int>(h.from), h.ack});
    return true;
}

void Runtime::settle_stored() {
    // By index: an acknowledgement sent here may let the transport deliver more.
    for (size_t i = 0; i < mail.stored.size(); ++i) {
        const auto [from, ack] = mail.stored[i];
        SignalPeer &p = signal_peers[from];
        acknowledged(*this, p, ack);
        if (p.stored - p.told >= kAckEvery) send_ack(*this, from, p, false, false);
    }
    mail.handled += mail.stored.size();
    mail.stored.clear();
}

void Runtime::on_signal_ack(const Blob &m) {
    proto::SignalAck a;
    if (!proto::unpack(m, &a) || a.from >= static_cast<uint32_t>(procs)) return;
    const int from = static_cast<int>(a.from);
    SignalPeer &p = signal_peers[from];
    if (a.refused) {
        const Blob why = proto::tail_of<proto::SignalAck>(m);
        auto it = p.unacked.begin();
        while (it != p.unacked.end() && it->number != a.count) ++it;
        if (it != p.unacked.end() && it->gma == 0) {  // a later piece of a put refused already: said
            p.unacked.erase(it);
        } else {
            Gma *g = it == p.unacked.end() ? nullptr : find_gma(it->gma);
            // Stored in order and acknowledged by number: a refusal that
            // overtook an acknowledgement past it would have let its GMA
            // complete as a success. Never silently.
            if (!g || g->state != GmaState::kInFlight)
                fatal("rank %d refused signal put number %llu of this rank after it had been reported complete: %.*s",
                      from, static_cast<unsigned long long>(a.count), static_cast<int>(why.size()),
                      reinterpret_cast<const char *>(why.data()));
            g->why_text.assign(why.begin(), why.end());
            g->comp.fn(&g->comp, -1);
            p.unacked.erase(it);
            drop_pieces(p, g->handle);  // its other pieces
        }
    }
    acknowledged(*this, p, a.count);
    // An answer that does not cover what a waiter waits for (issued after
    // the ask went, or delivered there out of order): ask again, or that
    // wait would hang.
    if (a.answer) {
        p.asked = false;
        if (a.count < p.want && !p.unacked.empty()) ask_for_ack(*this, from, p);
    }
}

void Runtime::on_signal_ask(int from) { send_ack(*this, from, signal_peers[from], false, true); }

void Runtime::ask_signal_acks(acp_handle_t upto, int64_t min_age_ns) {
    const int64_t sent_by = min_age_ns ? Agent::now_ns() - min_age_ns : INT64_MAX;
    for (auto &[to, p] : signal_peers) {
        if (p.unacked.empty() || p.unacked.front().gma > upto || p.unacked.front().sent_ns > sent_by) continue;
        p.want = std::max(p.want, p.sent);
        if (!p.asked) ask_for_ack(*this, to, p);
    }
}

void Runtime::hurry(int64_t min_age_ns) {
    tp->flush_now();
    ask_signal_acks(last_issued, min_age_ns);
}

}  // namespace acpx::basic
