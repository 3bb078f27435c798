// Handling of the control messages of protocol.hpp, and execution of
// copies delegated to this rank (this rank owns their source bytes).
#include <algorithm>

#include "copy_bytes.hpp"
#include "errors.hpp"
#include "protocol.hpp"
#include "runtime.hpp"

namespace acpx::basic {
namespace {

uint64_t reg_id(uint32_t rank, uint32_t tag) {
    return static_cast<uint64_t>(rank) << ga::kTagBits | tag;
}

void exec_done(Completion *c, int status) {
    auto *e = reinterpret_cast<ExecOp *>(c);
    e->done = true;
    e->status = status;
    e->rt->exec_finished++;
}

// True when [offset, offset+size) fits in a registration of reg_size bytes.
bool fits(uint64_t offset, uint64_t size, uint64_t reg_size) {
    return offset <= reg_size && size <= reg_size - offset;
}

}  // namespace

bool Runtime::send(int to, const Blob &m) { return tp->send(to, m.data(), m.size()) >= 0; }

void Runtime::reply_copy_done(uint32_t issuer, int64_t handle, int status) {
    send(static_cast<int>(issuer),
         proto::pack(proto::CopyDone{proto::Type::kCopyDone, status == 0 ? 0 : 1, handle}));
}

void Runtime::handle_message(const Blob &m) {
    if (m.empty()) return;
    switch (static_cast<proto::Type>(m[0])) {
        case proto::Type::kCopyCmd:
            execute_copy(m);
            break;
        case proto::Type::kCopyDone: {
            proto::CopyDone d;
            if (!proto::unpack(m, &d)) break;
            if (Gma *g = find_gma(d.handle); g && g->state == GmaState::kInFlight)
                g->comp.fn(&g->comp, d.status);
            break;
        }
        case proto::Type::kRegQuery: {
            proto::RegQuery q;
            if (!proto::unpack(m, &q)) break;
            proto::RegInfo info{proto::Type::kRegInfo, static_cast<uint32_t>(rank), q.tag, 1,
                                q.request, 0, 0, 0, 0, -1};
            LocalReg *r = local_reg(q.tag);
            const Blob *rkey = nullptr;
            if (r) {
                info.status = 0;
                info.base = reinterpret_cast<uint64_t>(r->base);
                info.size = r->size;
                info.gen = r->gen;
                info.color = r->color;
                info.seg_fd = r->seg.fd;
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
            reg_replies[info.request] = m;
            break;
        }
        case proto::Type::kRegInvalidate: {
            proto::RegInvalidate inv;
            if (!proto::unpack(m, &inv)) break;
            auto it = remote.find(reg_id(inv.owner, inv.tag));
            if (it != remote.end() && it->second->gen == inv.gen) remote.erase(it);
            send(static_cast<int>(inv.owner),
                 proto::pack(proto::RegInvalidateAck{proto::Type::kRegInvalidateAck,
                                                     static_cast<uint32_t>(rank), inv.tag,
                                                     inv.gen}));
            break;
        }
        case proto::Type::kRegInvalidateAck: {
            proto::RegInvalidateAck ack;
            if (!proto::unpack(m, &ack)) break;
            auto it = invalidate_acks.find(reg_id(static_cast<uint32_t>(rank), ack.tag));
            if (it != invalidate_acks.end()) --it->second;
            break;
        }
        case proto::Type::kLayer:
            layer_inbox.push_back(m);
            break;
        case proto::Type::kSync: {
            proto::Sync s;
            if (!proto::unpack(m, &s) || s.round >= 64) break;
            ++sync_count[s.epoch & 1][s.round];
            break;
        }
    }
}

void Runtime::execute_copy(const Blob &m) {
    proto::CopyCmd c;
    if (!proto::unpack(m, &c)) return;
    auto refuse = [&](const char *why) {
        report("delegated copy", ("from rank " + std::to_string(c.issuer)).c_str(),
               "GMA %lld refused: %s", static_cast<long long>(c.handle), why);
        reply_copy_done(c.issuer, c.handle, 1);
    };
    // Checked here, where the bytes are read: a bad GA from a peer never
    // reaches memory this rank did not register.
    const ga::Parts s = ga::decode(c.src_ga);
    LocalReg *src = local_reg(s.tag);
    if (s.rank != static_cast<uint32_t>(rank) || !src) return refuse("source not registered here");
    if (!fits(s.offset, c.size, src->size)) return refuse("source passes its registration");
    const ga::Parts d = ga::decode(c.dst_ga);
    if (d.rank == static_cast<uint32_t>(rank)) {
        LocalReg *dst = local_reg(d.tag);
        if (!dst) return refuse("destination not registered here");
        if (!fits(d.offset, c.size, dst->size)) return refuse("destination passes its registration");
        copy_bytes(dst->base + d.offset, src->base + s.offset, c.size);
        reply_copy_done(c.issuer, c.handle, 0);
        return;
    }
    if (!fits(d.offset, c.size, c.dst_size)) return refuse("destination passes its registration");
    if (cma.reaches(static_cast<int>(d.rank))) {
        const int rc = cma.write(static_cast<int>(d.rank), c.dst_base + d.offset,
                                 src->base + s.offset, c.size);
        if (rc != CmaChannel::kFallback) return reply_copy_done(c.issuer, c.handle, rc);
    }
    RemoteRegPtr &key = exec_keys[reg_id(d.rank, d.tag)];
    if (!key || key->gen != c.dst_gen) {
        key = std::make_shared<RemoteReg>();
        key->base = c.dst_base;
        key->size = c.dst_size;
        key->gen = c.dst_gen;
        key->rkey_blob = proto::tail_of<proto::CopyCmd>(m);
    }
    RemoteKey *rk = key_of(static_cast<int>(d.rank), *key);
    if (!rk) return refuse("cannot use the destination's key");
    exec_ops.push_back({});
    ExecOp &e = exec_ops.back();
    e.comp.fn = exec_done;
    e.rt = this;
    e.issuer = c.issuer;
    e.handle = c.handle;
    e.src_tag = s.tag;
    e.dst = key;
    const int rc = tp->put(static_cast<int>(d.rank), src->base + s.offset, c.size,
                           c.dst_base + d.offset, *rk, &e.comp);
    if (rc != kPending) exec_done(&e.comp, rc == kDone ? 0 : 1);
}

}  // namespace acpx::basic
