// Registrations. Local: a table of 1024 tags (0 = starter memory).
// Remote: looked up from the owner on first use and cached; the owner
// remembers who cached a tag and tells them at unregister, waiting for
// their acknowledgement, so a reused tag is never reached through a stale key.
// A peer acknowledges once its own copies into (or from) the registration
// are complete: none lands in memory that is unmapped or reused.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "huge_pages.hpp"
#include "protocol.hpp"
#include "runtime.hpp"

namespace acpx::basic {
namespace {
uint64_t reg_id(uint32_t rank, uint32_t tag) { return static_cast<uint64_t>(rank) << ga::kTagBits | tag; }
// An atkey names a tag and the generation of its registration, so a key of
// an ended registration is recognised even after the tag is reused.
acp_atkey_t make_key(uint32_t tag, uint64_t gen) { return gen << ga::kTagBits | tag; }

// The first page of [addr, addr + size) that is not mapped in this
// process, or nullptr if every page is. A registered range must exist: a
// copy into a hole from this process would be a SIGSEGV, not an error.
// mincore() fails with ENOMEM for a range with a hole; it is asked a
// chunk at a time, then page by page in the chunk that has one.
const char *first_unmapped(const void *addr, size_t size) {
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<uintptr_t>(addr) / page * page;
    const uintptr_t end = reinterpret_cast<uintptr_t>(addr) + size;
    constexpr uintptr_t kChunkPages = 4096;
    std::vector<unsigned char> in_core(kChunkPages);
    for (uintptr_t p = begin; p < end; p += kChunkPages * page) {
        const size_t len = std::min(kChunkPages * page, end - p);
        if (mincore(reinterpret_cast<void *>(p), len, in_core.data()) == 0 || errno != ENOMEM) continue;
        for (uintptr_t q = p; q < p + len; q += page)
            if (mincore(reinterpret_cast<void *>(q), 1, in_core.data()) != 0 && errno == ENOMEM)
                return reinterpret_cast<const char *>(q);
    }
    return nullptr;
}
}  // namespace

SharedSegment Runtime::segment_holding(const void *addr, size_t size) const {
    const auto *p = static_cast<const char *>(addr);
    for (const LocalReg &r : regs.local) {
        const auto *base = static_cast<const char *>(r.seg.base);
        if (r.live && r.owns_seg && p >= base && p + size <= base + r.seg.size) return r.seg;
    }
    return {};
}

LocalReg *Runtime::local_reg(uint32_t tag) {
    if (tag >= ga::kMaxTags || !regs.local[tag].live) return nullptr;
    return &regs.local[tag];
}

acp_atkey_t Runtime::register_memory(void *addr, size_t size, int color) {
    if (const char *hole = first_unmapped(addr, size)) {
        const bool first_page = hole <= static_cast<const char *>(addr);
        return report("acp_register_memory", first_page ? "addr" : "size",
                      "[%p, %p) is not all mapped memory of this process: the page at %p is not", addr,
                      static_cast<void *>(static_cast<char *>(addr) + size), static_cast<const void *>(hole)),
               ACP_ATKEY_NULL;
    }
    if (regs.free_tags.empty())
        return report("acp_register_memory", "addr", "all %u registrations are live; unregister one first",
                      ga::kMaxTags),
               ACP_ATKEY_NULL;
    // Memory inside an acpx segment (an acp_malloc block) is reached as the
    // segment is, by on-node peers mapping it.
    const SharedSegment holder = segment_holding(addr, size);
    // Before the transport pins anything: a collapse moves the bytes to
    // new pages (not a segment's: its pages are the memfd's, shared).
    if (cfg.huge_pages && !holder.base) huge_pages::collapse(addr, size);
    auto region = tp->register_memory(addr, size);
    if (!region) return ACP_ATKEY_NULL;
    const uint32_t tag = regs.free_tags.front();
    regs.free_tags.pop_front();
    LocalReg &r = regs.local[tag];
    r.live = true;
    r.base = static_cast<char *>(addr);
    r.size = size;
    r.color = color;
    r.gen = regs.next_gen++;
    r.region = std::move(region);
    r.cachers.clear();
    r.seg = holder;
    r.owns_seg = false;
    return make_key(tag, r.gen);
}

acp_atkey_t Runtime::register_segment(SharedSegment &seg) {
    const acp_atkey_t key = register_memory(seg.base, seg.size, 0);
    if (key == ACP_ATKEY_NULL) {
        destroy_shared_segment(seg);
        return key;
    }
    LocalReg &r = regs.local[key & (ga::kMaxTags - 1)];
    r.seg = seg;
    r.owns_seg = true;
    return key;
}

int Runtime::unregister_memory(std::unique_lock<std::mutex> &lk, acp_atkey_t key) {
    const uint32_t tag = static_cast<uint32_t>(key & (ga::kMaxTags - 1));
    const uint64_t gen = key >> ga::kTagBits;
    LocalReg *r = local_reg(tag);
    if (key == ACP_ATKEY_NULL || tag == ga::kStarterTag || !r || r->gen != gen)
        return report("acp_unregister_memory", "atkey", "0x%llx is not a live registration key of this process",
                      static_cast<unsigned long long>(key)),
               -1;
    auto uses = [&](acp_ga_t g) {
        if (g == ACP_GA_NULL) return false;
        auto p = ga::decode(g);
        return p.rank == static_cast<uint32_t>(rank) && p.tag == tag;
    };
    for (const Gma &g : gmas)
        if (g.state != GmaState::kDone && (uses(g.dst) || uses(g.src)))
            return report("acp_unregister_memory", "atkey",
                          "GMA %lld uses this registration and is not complete; "
                          "acp_complete it first",
                          static_cast<long long>(g.handle)),
                   -1;
    for (const ExecOp &e : exec_ops)
        if (!e.done && e.src_tag == tag)
            return report("acp_unregister_memory", "atkey", "rank %u is copying from this registration right now",
                          e.issuer),
                   -1;
    // Tell every rank that cached it, and wait until each one has dropped
    // it and completed its copies into it; meanwhile nobody new looks it up.
    r->closing = true;
    const std::vector<int> cachers = r->cachers;
    const uint64_t pending_id = reg_id(static_cast<uint32_t>(rank), tag);
    regs.invalidate_acks[pending_id] = static_cast<int>(cachers.size());
    for (int c : cachers)
        send(c,
             proto::pack(proto::RegInvalidate{proto::Type::kRegInvalidate, static_cast<uint32_t>(rank), tag, r->gen}));
    wait_locked(
        lk, "acp_unregister_memory", [&] { return regs.invalidate_acks[pending_id] <= 0; },
        [&] {
            return std::to_string(regs.invalidate_acks[pending_id]) + " rank(s) to drop their copy of the registration";
        },
        [&] { return regs.invalidate_acks[pending_id]; });
    regs.invalidate_acks.erase(pending_id);
    regs.remote.erase(reg_id(static_cast<uint32_t>(rank), tag));
    std::erase_if(held, [&](const auto &b) { return b.second->tag == tag; });  // bodies nobody released
    r->region.reset();
    if (r->owns_seg) destroy_shared_segment(r->seg);
    r->seg = SharedSegment{};
    r->owns_seg = false;
    r->live = false;
    r->closing = false;
    r->base = nullptr;
    r->size = 0;
    r->cachers.clear();
    regs.free_tags.push_back(tag);
    return 0;
}

bool Runtime::in_use(const RemoteReg *r) const {
    if (!r) return false;
    for (const Gma &g : gmas)
        if (g.state != GmaState::kDone && (g.remote.get() == r || g.dst_remote.get() == r)) return true;
    for (const ExecOp &e : exec_ops)
        if (!e.done && e.dst.get() == r) return true;
    return false;
}

void Runtime::send_due_acks() {
    auto &due = regs.due_acks;
    for (auto it = due.begin(); it != due.end();) {
        if (in_use(it->reg.get())) {
            ++it;
            continue;
        }
        send(static_cast<int>(it->owner),
             proto::pack(proto::RegInvalidateAck{proto::Type::kRegInvalidateAck, static_cast<uint32_t>(rank), it->tag,
                                                 it->gen}));
        it = due.erase(it);
    }
}

RemoteRegPtr Runtime::lookup(std::unique_lock<std::mutex> &lk, uint32_t owner, uint32_t tag, const char *fn,
                             const char *arg) {
    if (owner >= static_cast<uint32_t>(procs))
        return report(fn, arg, "names rank %u, but the job has %d processes", owner, procs), nullptr;
    const uint64_t id = reg_id(owner, tag);
    if (auto it = regs.remote.find(id); it != regs.remote.end()) return it->second;
    if (owner == static_cast<uint32_t>(rank)) {
        LocalReg *r = local_reg(tag);
        if (!r) return report(fn, arg, "tag %u of this rank is not registered", tag), nullptr;
        auto reg = std::make_shared<RemoteReg>();
        reg->base = reinterpret_cast<uint64_t>(r->base);
        reg->size = r->size;
        reg->gen = r->gen;
        reg->color = r->color;
        reg->rkey_blob = r->region->rkey;
        regs.remote[id] = reg;
        return reg;
    }
    // Ask the owner; its agent answers even while its application computes.
    const uint64_t request = regs.next_request++;
    if (!send(static_cast<int>(owner),
              proto::pack(proto::RegQuery{proto::Type::kRegQuery, static_cast<uint32_t>(rank), tag, request})))
        return report(fn, arg, "cannot reach rank %u to look up tag %u", owner, tag), nullptr;
    const Blob m = await_reply(lk, fn, static_cast<int>(owner), request,
                               "rank " + std::to_string(owner) + " to describe tag " + std::to_string(tag));
    proto::RegInfo info{};
    if (!proto::unpack(m, &info) || info.status != 0)
        return report(fn, arg, "tag %u of rank %u is not registered", tag, owner), nullptr;
    return remember_remote(m);
}

Blob Runtime::await_reply(std::unique_lock<std::mutex> &lk, const char *fn, int owner, uint64_t request,
                          const std::string &what) {
    wait_locked(
        lk, fn, [&] { return regs.replies.count(request) != 0; }, [&] { return what; }, [] { return 0; },
        [&] { return owner; });
    const auto it = regs.replies.find(request);
    Blob m = std::move(it->second);
    regs.replies.erase(it);
    return m;
}

RemoteRegPtr Runtime::remember_remote(const Blob &m) {
    proto::RegInfo info{};
    proto::unpack(m, &info);
    const uint64_t id = reg_id(info.owner, info.tag);
    // Another lookup of the same tag may have finished while we waited.
    if (auto it = regs.remote.find(id); it != regs.remote.end() && it->second->gen == info.gen) return it->second;
    auto reg = std::make_shared<RemoteReg>();
    reg->base = info.base;
    reg->size = info.size;
    reg->gen = info.gen;
    reg->color = info.color;
    reg->rkey_blob = proto::tail_of<proto::RegInfo>(m);
    on_node.describe(reg->seg, static_cast<int>(info.owner), info.seg_fd, info.seg_base, info.seg_size);
    regs.remote[id] = reg;
    return reg;
}

RemoteKey *Runtime::key_of(int owner, RemoteReg &r) {
    if (!r.key) r.key = tp->unpack_rkey(owner, r.rkey_blob);
    return r.key.get();
}

}  // namespace acpx::basic
