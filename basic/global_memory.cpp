// Global memory: acp_malloc / acp_free on any rank, and the middle
// layer's control blocks (layer::alloc_block, Runtime::blocks: the same
// allocator over separate arenas, outside ACP_MALLOC_LIMIT). Each process
// keeps a Heap (heap.hpp) over arenas of its own: acpx segments, each one
// registration, so on-node peers map them (copies are memcpy) and peers on
// other nodes reach them through the transport's key, as any registered
// memory. A request for another rank's memory is a message its agent
// answers, whatever its application is doing.
//
// Arenas grow geometrically (Arenas::first, doubling to kMaxArena; a larger
// request gets an arena of its own size), up to ACP_MALLOC_LIMIT in all,
// and stay with the process until acp_finalize: freed blocks are reused,
// and peers' cached keys stay valid.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "api_common.hpp"
#include "protocol.hpp"

namespace acpx::basic {
namespace {

constexpr uint64_t kMaxArena = uint64_t{64} << 20;

uint64_t node_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : UINT64_MAX;
}

uint64_t page_bytes() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string hex(acp_ga_t g) {
    char s[32];
    std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(g));
    return s;
}

}  // namespace

bool Runtime::arena_grow(Arenas &a, uint64_t need, uint64_t limit, std::string *why) {
    const uint64_t page = page_bytes();
    const uint64_t step = std::min(kMaxArena, a.first << std::min<size_t>(a.arena_tag.size(), 6));
    const uint64_t size = std::max(step, (need + page - 1) / page * page);
    // Checked before the arena is made: backing it (create_shared_segment)
    // takes the memory at once, and more than the node has would wake the
    // OOM killer rather than fail.
    if (a.heap.bytes_total() + size > limit) {
        *why = std::string("its arenas would pass ") +
               (&a == &gm ? "ACP_MALLOC_LIMIT" : "this process's share of the node") + " (" + mib(limit) + "; " +
               mib(a.heap.bytes_total()) + " held, " + mib(a.heap.bytes_live()) + " of it in blocks)";
        return false;
    }
    if (regs.free_tags.empty()) {
        *why = "all " + std::to_string(ga::kMaxTags - 1) + " registrations of rank " + std::to_string(rank) +
               " are live; a new arena needs one";
        return false;
    }
    SharedSegment seg = create_shared_segment(size, a.label);
    if (!seg.base) {
        *why = "cannot get " + std::to_string(size) + " bytes of shared memory on rank " + std::to_string(rank) + ": " +
               std::strerror(errno);
        return false;
    }
    const acp_atkey_t key = register_segment(seg);
    if (key == ACP_ATKEY_NULL) {
        *why = "the transport could not register a new arena (the line above says why)";
        return false;
    }
    const auto tag = static_cast<uint32_t>(key & (ga::kMaxTags - 1));
    a.arena_tag.push_back(tag);
    a.arena_of_tag[tag] = a.heap.add_arena(size);
    a.used_to.push_back(0);
    a.gave_back.push_back(false);
    return true;
}

uint64_t Runtime::node_share() const {
    const auto here = std::count(node_ids.begin(), node_ids.end(), node_ids.empty() ? 0 : node_ids[rank]);
    return node_memory() / static_cast<uint64_t>(std::max<std::ptrdiff_t>(here, 1));
}

uint64_t Runtime::heap_limit() const { return cfg.malloc_limit ? cfg.malloc_limit : node_share(); }

acp_ga_t Runtime::arena_alloc(Arenas &a, uint64_t size, uint64_t limit, std::string *why, bool zero) {
    if (size == 0) return *why = "size is 0", ACP_GA_NULL;
    if (size > ga::kMaxRegistration)
        return *why = "size " + std::to_string(size) + " is over ACP_MAX_REGISTRATION_SIZE (16 GiB)", ACP_GA_NULL;
    auto b = a.heap.alloc(size);
    if (!b) {
        if (!arena_grow(a, Heap::rounded(size), limit, why)) return ACP_GA_NULL;
        b = a.heap.alloc(size);
    }
    if (!b) return *why = "internal: no block after growing the heap", ACP_GA_NULL;
    // Zeroed (unless the caller writes every byte before reading any), as
    // the memory of a new arena is: what a previous owner of the block
    // left is not visible to the next.
    uint64_t &used_to = a.used_to[b->arena];
    LocalReg &r = regs.local[a.arena_tag[b->arena]];
    if (a.gave_back[b->arena] && b->offset < used_to) {
        // Pages arena_free gave back are backed again first: memory that
        // cannot be had fails here, not as a SIGBUS at the memset.
        const uint64_t page = page_bytes();
        const uint64_t from = b->offset / page * page, to = (b->offset + size + page - 1) / page * page;
        if (const int err = posix_fallocate(r.seg.fd, static_cast<off_t>(from), static_cast<off_t>(to - from));
            err != 0 && err != EOPNOTSUPP) {
            a.heap.free(*b);
            return *why = std::string("cannot back its pages again: ") + std::strerror(err), ACP_GA_NULL;
        }
    }
    if (zero && b->offset < used_to) std::memset(r.base + b->offset, 0, std::min(size, used_to - b->offset));
    used_to = std::max(used_to, b->offset + size);
    return ga::encode(static_cast<uint32_t>(rank), a.arena_tag[b->arena], b->offset);
}

void Runtime::arena_free(Arenas &a, uint32_t tag, uint64_t offset) {
    const auto arena = a.arena_of_tag.find(tag);
    if (arena == a.arena_of_tag.end() || !a.heap.free({arena->second, offset}) || !a.gives_back) return;
    // The whole pages of the free extent the block merged into go back to
    // the system (the arena's file keeps its size and every mapping; they
    // read zero until written again), once they come to kGiveBackMin: a
    // process that once held many blocks does not keep their pages, and
    // one that takes and drops a block at a time makes no system call for
    // it. Best effort: a failure leaves them as they were.
    const auto free = *a.heap.free_around({arena->second, offset});
    const uint64_t page = page_bytes();
    const uint64_t from = (free.first.offset + page - 1) / page * page;
    const uint64_t to = (free.first.offset + free.second) / page * page;
    const LocalReg *r = local_reg(tag);
    if (to < from + Arenas::kGiveBackMin || !r || r->seg.fd < 0) return;
    if (fallocate(r->seg.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                  static_cast<off_t>(to - from)) == 0)
        a.gave_back[free.first.arena] = true;
}

bool Runtime::heap_free(acp_ga_t g, std::string *why) {
    const ga::Parts p = ga::decode(g);
    const auto arena = gm.arena_of_tag.find(p.tag);
    if (p.rank != static_cast<uint32_t>(rank) || arena == gm.arena_of_tag.end()) {
        *why = "GA " + hex(g) + " is not memory of acp_malloc on rank " + std::to_string(p.rank);
        return false;
    }
    const Heap::Block b{arena->second, p.offset};
    if (gm.heap.free(b)) return true;
    if (const auto in = gm.heap.containing(b))
        *why = "GA " + hex(g) + " is inside a block of acp_malloc that starts at GA " +
               hex(ga::encode(p.rank, p.tag, in->first.offset)) + ", not its start";
    else
        *why = "GA " + hex(g) + " is not a live block of acp_malloc on rank " + std::to_string(p.rank) +
               " (freed already, or never allocated)";
    return false;
}

acp_ga_t Runtime::heap_ask(std::unique_lock<std::mutex> &lk, const char *fn, proto::Type type, int owner,
                           uint64_t value, std::string *why) {
    const uint64_t request = regs.next_request++;
    if (!send(owner, proto::pack(proto::HeapReq{type, static_cast<uint32_t>(rank), request, value})))
        return *why = "cannot reach rank " + std::to_string(owner), ACP_GA_NULL;
    const Blob m = await_reply(lk, fn, owner, request, "rank " + std::to_string(owner) + " to answer");
    proto::HeapReply r{};
    if (!proto::unpack(m, &r)) return *why = "rank " + std::to_string(owner) + " answered garbage", ACP_GA_NULL;
    if (r.status != 0) {
        const Blob text = proto::tail_of<proto::HeapReply>(m);
        why->assign(text.begin(), text.end());
        return ACP_GA_NULL;
    }
    return type == proto::Type::kFreeReq ? 1 : r.ga;
}

void Runtime::serve_heap_request(const Blob &m) {
    proto::HeapReq q{};
    if (!proto::unpack(m, &q)) return;
    std::string why;
    proto::HeapReply r{proto::Type::kHeapReply, 0, q.request, ACP_GA_NULL};
    if (q.type == proto::Type::kMallocReq)
        r.ga = heap_alloc(q.value, &why);
    else if (!heap_free(q.value, &why))
        r.ga = ACP_GA_NULL;
    r.status = why.empty() ? 0 : 1;
    const Blob text(why.begin(), why.end());
    send(static_cast<int>(q.asker), proto::pack(r, &text));
}

}  // namespace acpx::basic

using namespace acpx::basic;

extern "C" acp_ga_t acp_malloc(size_t size, int rank) try {
    constexpr const char *fn = "acp_malloc";
    Runtime *rt = api::need(fn);
    if (!rt) return ACP_GA_NULL;
    if (rank < 0 || rank >= rt->procs) return report(fn, "rank", "%d is not in [0, %d)", rank, rt->procs), ACP_GA_NULL;
    if (size == 0) return report(fn, "size", "is 0"), ACP_GA_NULL;
    auto lk = rt->lock_api();
    std::string why;
    const acp_ga_t g =
        rank == rt->rank ? rt->heap_alloc(size, &why) : rt->heap_ask(lk, fn, proto::Type::kMallocReq, rank, size, &why);
    if (g == ACP_GA_NULL) report(fn, "size", "%zu bytes on rank %d: %s", size, rank, why.c_str());
    return g;
} catch (...) {
    return acpx::basic::report_exception("acp_malloc"), ACP_GA_NULL;
}

extern "C" void acp_free(acp_ga_t g) try {
    constexpr const char *fn = "acp_free";
    Runtime *rt = api::need(fn);
    if (!rt || g == ACP_GA_NULL) return;
    const ga::Parts p = ga::decode(g);
    if (p.rank >= static_cast<uint32_t>(rt->procs)) {
        report(fn, "ga", "GA 0x%llx names rank %u, but the job has %d processes", static_cast<unsigned long long>(g),
               p.rank, rt->procs);
        return;
    }
    auto lk = rt->lock_api();
    std::string why;
    const bool ok = p.rank == static_cast<uint32_t>(rt->rank)
                        ? rt->heap_free(g, &why)
                        : rt->heap_ask(lk, fn, proto::Type::kFreeReq, static_cast<int>(p.rank), g, &why) != ACP_GA_NULL;
    if (!ok) report(fn, "ga", "%s", why.c_str());
} catch (...) {
    acpx::basic::report_exception("acp_free");
}
