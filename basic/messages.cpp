// Handling of the control messages of protocol.hpp, and execution of
// copies delegated to this rank (this rank owns their source bytes).
#include <algorithm>

#include "copy_bytes.hpp"
#include "errors.hpp"
#include "protocol.hpp"
#include "runtime.hpp"

namespace acpx::basic {
namespace {

uint64_t reg_id(uint32_t rank, uint32_t tag) { return static_cast<uint64_t>(rank) << ga::kTagBits | tag; }

void exec_done(Completion *c, int status) {
    auto *e = reinterpret_cast<ExecOp *>(c);
    e->done = true;
    e->status = status;
    e->rt->exec_finished++;
}

}  // namespace

bool Runtime::send(int to, const Blob &m) { return tp->send(to, m.data(), m.size()) >= 0; }

bool Runtime::send(int to, Blob &&m) { return tp->send_owned(to, std::move(m)) >= 0; }

bool Runtime::probe(int to) {
    return send(to, proto::pack(proto::Probe{proto::Type::kPing, static_cast<uint32_t>(rank)}));
}

void Runtime::reply_copy_done(uint32_t issuer, int64_t handle, int status, const std::string &why) {
    const Blob text(why.begin(), why.end());
    send(static_cast<int>(issuer),
         proto::pack(proto::CopyDone{proto::Type::kCopyDone, status == 0 ? 0 : 1, handle}, status ? &text : nullptr));
}

void Runtime::handle_message(Blob &m) {
    if (m.empty()) return;
    switch (static_cast<proto::Type>(m[0])) {
        case proto::Type::kCopyCmd: execute_copy(m); break;
        case proto::Type::kCopyDone: {
            proto::CopyDone d;
            if (!proto::unpack(m, &d)) break;
            if (Gma *g = find_gma(d.handle); g && g->state == GmaState::kInFlight) {
                if (d.status) {
                    const Blob why = proto::tail_of<proto::CopyDone>(m);
                    g->why_text.assign(why.begin(), why.end());
                    if (g->why_text.empty()) g->why_text = "its executor reported an error";
                }
                g->comp.fn(&g->comp, d.status);
            }
            break;
        }
        case proto::Type::kRegQuery: {
            proto::RegQuery q;
            if (!proto::unpack(m, &q)) break;
            proto::RegInfo info{
                proto::Type::kRegInfo, static_cast<uint32_t>(rank), q.tag, 1, q.request, 0, 0, 0, 0, -1, 0, 0};
            LocalReg *r = local_reg(q.tag);
            const Blob *rkey = nullptr;
            if (r && !r->closing) {
                info.status = 0;
                info.base = reinterpret_cast<uint64_t>(r->base);
                info.size = r->size;
                info.gen = r->gen;
                info.color = r->color;
                info.seg_fd = r->seg.fd;
                info.seg_base = reinterpret_cast<uint64_t>(r->seg.base);
                info.seg_size = r->seg.size;
                rkey = &r->region->rkey;
                if (q.tag != ga::kStarterTag &&
                    std::find(r->cachers.begin(), r->cachers.end(), q.asker) == r->cachers.end())
                    r->cachers.push_back(static_cast<int>(q.asker));
            }
            send(static_cast<int>(q.asker), proto::pack(info, rkey));
            break;
        }
        case proto::Type::kRegInfo: {
            proto::RegInfo info;
            if (!proto::unpack(m, &info)) break;
            if (auto it = regs.parked_copies.find(info.request); it != regs.parked_copies.end()) {
                const Blob copy = std::move(it->second);
                regs.parked_copies.erase(it);
                execute_copy_to(copy, info.status == 0 ? remember_remote(m) : nullptr);
                break;
            }
            regs.replies[info.request] = m;
            break;
        }
        case proto::Type::kRegInvalidate: {
            proto::RegInvalidate inv;
            if (!proto::unpack(m, &inv)) break;
            RemoteRegPtr cached;
            if (auto it = regs.remote.find(reg_id(inv.owner, inv.tag));
                it != regs.remote.end() && it->second->gen == inv.gen) {
                cached = std::move(it->second);
                regs.remote.erase(it);
            }
            // The owner unmaps the memory once acknowledged: not while a
            // copy of this process may still write into it or read it
            // (a transport that emulates RMA writes from the owner's own
            // progress, into whatever is mapped there then).
            regs.due_acks.push_back({inv.owner, inv.tag, inv.gen, std::move(cached)});
            if (in_use(regs.due_acks.back().reg.get())) hurry();  // completes copied-out puts sooner
            send_due_acks();
            break;
        }
        case proto::Type::kRegInvalidateAck: {
            proto::RegInvalidateAck ack;
            if (!proto::unpack(m, &ack)) break;
            auto it = regs.invalidate_acks.find(reg_id(static_cast<uint32_t>(rank), ack.tag));
            if (it != regs.invalidate_acks.end()) --it->second;
            break;
        }
        case proto::Type::kLayer: mail.file_for_layer(m); break;
        case proto::Type::kMallocReq:
        case proto::Type::kFreeReq: serve_heap_request(m); break;
        case proto::Type::kHeapReply: {
            proto::HeapReply r;
            if (proto::unpack(m, &r)) regs.replies[r.request] = m;
            break;
        }
        case proto::Type::kSync: {
            proto::Sync s;
            if (!proto::unpack(m, &s) || s.round >= 64) break;
            ++sync.count[s.epoch & 1][s.round];
            break;
        }
        case proto::Type::kPing: {
            proto::Probe q;
            if (proto::unpack(m, &q) && q.from < static_cast<uint32_t>(procs))
                send(static_cast<int>(q.from),
                     proto::pack(proto::Probe{proto::Type::kPong, static_cast<uint32_t>(rank)}));
            break;
        }
        case proto::Type::kSignalPut: on_signal_put(m); break;
        case proto::Type::kSignalAck: on_signal_ack(m); break;
        case proto::Type::kSignalAskAck: {
            proto::Probe q;
            if (proto::unpack(m, &q) && q.from < static_cast<uint32_t>(procs)) on_signal_ask(static_cast<int>(q.from));
            break;
        }
        case proto::Type::kPong: {
            proto::Probe a;
            if (proto::unpack(m, &a) && a.from < liveness.answers.size()) ++liveness.answers[a.from];
            break;
        }
    }
}

namespace {
// The executor's refusal: its own line, and the reason back to the issuer.
void refuse_copy(Runtime &rt, const proto::CopyCmd &c, const std::string &why) {
    report("delegated copy", ("from rank " + std::to_string(c.issuer)).c_str(), "GMA %lld refused: %s",
           static_cast<long long>(c.handle), why.c_str());
    rt.reply_copy_done(c.issuer, c.handle, 1, "rank " + std::to_string(rt.rank) + " refused it: " + why);
}
}  // namespace

void Runtime::execute_copy(const Blob &m) {
    proto::CopyCmd c;
    if (!proto::unpack(m, &c)) return;
    // Checked here, where the bytes are read: a bad GA from a peer never
    // reaches memory this rank did not register.
    const ga::Parts s = ga::decode(c.src_ga);
    LocalReg *src = local_reg(s.tag);
    if (s.rank != static_cast<uint32_t>(rank) || !src) return refuse_copy(*this, c, "source not registered here");
    if (!ga::fits(s.offset, c.size, src->size)) return refuse_copy(*this, c, "source passes its registration");
    const ga::Parts d = ga::decode(c.dst_ga);
    if (d.rank >= static_cast<uint32_t>(procs)) return refuse_copy(*this, c, "destination rank is not in the job");
    if (d.rank == static_cast<uint32_t>(rank)) {
        LocalReg *dst = local_reg(d.tag);
        if (!dst || (c.dst_gen && dst->gen != c.dst_gen))
            return refuse_copy(*this, c, "destination not registered here (unregistered since the issuer looked)");
        if (!ga::fits(d.offset, c.size, dst->size)) return refuse_copy(*this, c, "destination passes its registration");
        if (faults.fails_exec()) return refuse_copy(*this, c, "fault injected for a test (ACPX_TEST_FAIL)");
        copy_bytes(dst->base + d.offset, src->base + s.offset, c.size);
        reply_copy_done(c.issuer, c.handle, 0);
        return;
    }
    // The destination as its owner describes it, never as the issuer
    // claims: cached from an earlier look-up (dropped when the owner
    // unregisters it), else asked for now and the copy parked until then.
    if (auto it = regs.remote.find(reg_id(d.rank, d.tag)); it != regs.remote.end())
        return execute_copy_to(m, it->second);
    const uint64_t request = regs.next_request++;
    regs.parked_copies[request] = m;
    if (!send(static_cast<int>(d.rank),
              proto::pack(proto::RegQuery{proto::Type::kRegQuery, static_cast<uint32_t>(rank), d.tag, request}))) {
        regs.parked_copies.erase(request);
        refuse_copy(*this, c, "cannot reach the destination's rank " + std::to_string(d.rank));
    }
}

void Runtime::execute_copy_to(const Blob &m, const RemoteRegPtr &reg) {
    proto::CopyCmd c;
    proto::unpack(m, &c);
    const ga::Parts s = ga::decode(c.src_ga), d = ga::decode(c.dst_ga);
    const std::string at = "rank " + std::to_string(d.rank);
    LocalReg *src = local_reg(s.tag);
    if (!src) return refuse_copy(*this, c, "source unregistered while the destination was looked up");
    if (!reg) return refuse_copy(*this, c, "destination tag " + std::to_string(d.tag) + " is not registered at " + at);
    if (c.dst_gen && reg->gen != c.dst_gen)
        return refuse_copy(*this, c,
                           "destination registration at " + at + " was replaced since the issuer looked it up");
    if (!ga::fits(d.offset, c.size, reg->size))
        return refuse_copy(*this, c,
                           "destination [" + std::to_string(d.offset) + ", +" + std::to_string(c.size) +
                               ") passes its registration of " + std::to_string(reg->size) + " bytes at " + at);
    if (faults.fails_exec()) return refuse_copy(*this, c, "fault injected for a test (ACPX_TEST_FAIL)");
    const char *from = src->base + s.offset;
    const int near = on_node.put(static_cast<int>(d.rank), reg->seg, reg->base + d.offset, from, c.size);
    if (near != OnNode::kFallback)
        return reply_copy_done(c.issuer, c.handle, near,
                               near ? "rank " + std::to_string(rank) + ": direct copy to " + at + " failed" : "");
    RemoteKey *rk = key_of(static_cast<int>(d.rank), *reg);
    if (!rk) return refuse_copy(*this, c, "cannot use the destination's key");
    exec_ops.push_back({});
    ExecOp &e = exec_ops.back();
    e.comp.fn = exec_done;
    e.rt = this;
    e.issuer = c.issuer;
    e.handle = c.handle;
    e.src_tag = s.tag;
    e.dst = reg;
    const int rc = tp->put(static_cast<int>(d.rank), from, c.size, reg->base + d.offset, *rk, &e.comp);
    tp->flush_now();  // its issuer waits for the answer
    if (rc == kDone || rc < 0) exec_done(&e.comp, rc == kDone ? 0 : 1);
}

}  // namespace acpx::basic
