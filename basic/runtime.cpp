// Runtime lifecycle (acp_init / acp_finalize) and the progress function.
#include "runtime.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "errors.hpp"
#include "onnode/ptrace_access.hpp"

namespace acpx::basic {

Runtime *g_runtime = nullptr;  // the one runtime state object (current_runtime.hpp)

namespace {

// What each rank publishes at start-up.
struct StartInfo {
    uint64_t starter_base, starter_size;
    uint64_t node;  // local_node_id(): who shares this node (for CMA)
    int64_t pid;
    int64_t starter_fd;  // memfd of the starter memory, -1 if not shareable
    idle::CpuMask cpus;  // where it may run: whether its node is crowded (ACP_IDLE)
    uint32_t address_len, rkey_len;
};

void on_message(void *arg, const void *head, size_t head_n, const void *data, size_t len) {
    auto *rt = static_cast<Runtime *>(arg);
    try {
        if (rt->store_arriving(static_cast<const uint8_t *>(head), head_n, static_cast<const uint8_t *>(data), len))
            return;
        rt->mail.inbox.push_back(joined(head, head_n, data, len));  // handled after transport progress returns
    } catch (const std::bad_alloc &) {  // nothing may unwind through the transport's C frames
        fatal("out of memory keeping a %zu-byte message from a peer", head_n + len);
    }
}

void on_peer_failure(void *arg, int rank, const char *why) {
    auto *rt = static_cast<Runtime *>(arg);
    if (rt->finalizing) return;  // peers leave at finalize; not a fault
    fatal("rank %d is unreachable (%s): it probably died", rank, why);
}

}  // namespace

void set_runtime(Runtime *rt) { g_runtime = rt; }

bool report_uninitialized(const char *fn) {
    return report(fn, "state", "called before acp_init or after acp_finalize");
}

namespace {

// The starter memory: zeroed pages, registration tag 0, in a memfd
// segment that on-node peers map where the system has memfd. nullptr
// (reported) on failure.
void *open_starter_memory(Runtime &rt) {
    const size_t size = rt.cfg.starter_memsize;
    for (uint32_t t = 1; t < ga::kMaxTags; ++t) rt.regs.free_tags.push_back(t);
    rt.starter_seg = create_shared_segment(size, "acpx-starter");
    void *starter = rt.starter_seg.base;
    if (!starter)  // no memfd here: private memory, reached by CMA or the transport
        starter = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (starter == MAP_FAILED)
        return report("acp_init", "ACP_STARTER_MEMSIZE", "cannot map %zu bytes: %s", size, std::strerror(errno)),
               nullptr;
    LocalReg &s = rt.regs.local[ga::kStarterTag];
    s.base = static_cast<char *>(starter);
    s.size = size;
    s.gen = rt.regs.next_gen++;
    s.region = rt.tp->register_memory(starter, size);
    if (!s.region) return nullptr;
    s.live = true;
    return starter;
}

// Every rank publishes its transport address, its starter memory, its
// node, pid and CPUs; then the transport connects, and the on-node paths
// and the idle policy are decided. *node_ranks: ranks on this node.
bool join_peers(Runtime &rt, void *starter, unsigned *node_ranks) {
    const LocalReg &s = rt.regs.local[ga::kStarterTag];
    Blob addr = rt.tp->local_address();
    StartInfo mine{reinterpret_cast<uint64_t>(starter),
                   rt.cfg.starter_memsize,
                   local_node_id(),
                   getpid(),
                   rt.starter_seg.fd,
                   idle::own_cpus(),
                   static_cast<uint32_t>(addr.size()),
                   static_cast<uint32_t>(s.region->rkey.size())};
    Blob blob(sizeof mine);
    std::memcpy(blob.data(), &mine, sizeof mine);
    blob.insert(blob.end(), addr.begin(), addr.end());
    blob.insert(blob.end(), s.region->rkey.begin(), s.region->rkey.end());
    std::vector<Blob> all;
    if (!rt.boot->allgather(blob, &all, rt.cfg.timeout_s)) return false;
    std::vector<Blob> addresses(rt.procs);
    std::vector<uint64_t> nodes(rt.procs);
    std::vector<pid_t> pids(rt.procs);
    std::vector<int> starter_fds(rt.procs);
    std::vector<idle::CpuMask> node_masks;  // of the ranks on this node
    for (int r = 0; r < rt.procs; ++r) {
        StartInfo si{};
        if (all[r].size() >= sizeof si) std::memcpy(&si, all[r].data(), sizeof si);
        if (all[r].size() < sizeof si || all[r].size() != sizeof si + si.address_len + si.rkey_len)
            return report("acp_init", "bootstrap", "malformed start-up data from rank %d", r), false;
        nodes[r] = si.node;
        pids[r] = static_cast<pid_t>(si.pid);
        starter_fds[r] = static_cast<int>(si.starter_fd);
        if (si.node == mine.node) node_masks.push_back(si.cpus);
        auto a = all[r].begin() + sizeof si;
        addresses[r].assign(a, a + si.address_len);
        auto reg = std::make_shared<RemoteReg>();
        reg->base = si.starter_base;
        reg->size = si.starter_size;
        reg->rkey_blob.assign(a + si.address_len, all[r].end());
        rt.regs.remote[static_cast<uint64_t>(r) << ga::kTagBits | ga::kStarterTag] = reg;
    }
    std::vector<uint8_t> off_node(rt.procs);
    for (int r = 0; r < rt.procs; ++r) off_node[r] = nodes[r] != nodes[rt.rank];
    rt.tp->set_off_node(std::move(off_node));
    if (!rt.tp->connect(addresses)) return false;
    // On-node peers (decided once) may also map our starter segments,
    // and we theirs.
    rt.on_node.init(rt.rank, nodes, pids, rt.cfg.cma);
    rt.node_ids = std::move(nodes);
    for (int r = 0; r < rt.procs; ++r) {
        RemoteReg &reg = *rt.regs.remote[static_cast<uint64_t>(r) << ga::kTagBits | ga::kStarterTag];
        rt.on_node.describe(reg.seg, r, starter_fds[r], reg.base, reg.size);
    }
    *node_ranks = static_cast<unsigned>(node_masks.size());
    rt.node_cpus = idle::cpus_in_union(node_masks);
    rt.yield_at_once = idle::yield_at_once(rt.cfg.idle_policy, *node_ranks, rt.node_cpus);
    rt.node_crowded = rt.node_cpus > 0 && *node_ranks > rt.node_cpus;
    return true;
}

// ACP_VERBOSE, rank 0: how it reaches one rank of its own node and one of
// another node, as the transport says (UCX: its transports and devices).
void say_paths(Runtime &rt) {
    bool said_near = false, said_far = false;
    for (int r = 1; r < rt.procs && !(said_near && said_far); ++r) {
        const bool near = rt.node_ids[r] == rt.node_ids[0];
        if (near ? said_near : said_far) continue;
        (near ? said_near : said_far) = true;
        const std::string path = rt.tp->describe_path(r);
        if (path.empty()) continue;
        std::fprintf(
            stderr, "acpx: rank 0 reaches rank %d (%s) through %s: %s%s\n", r, near ? "same node" : "another node",
            rt.tp->name(), path.c_str(),
            near && rt.on_node.reaches(r) ? "; copies between ranks of a node go by memory (onnode/) first" : "");
    }
}

}  // namespace

Runtime *Runtime::create(const Config &cfg) {
    std::unique_ptr<Runtime> rt(new Runtime());
    rt->cfg = cfg;
    rt->boot = make_bootstrap(cfg.timeout_s);
    if (!rt->boot) return nullptr;
    rt->rank = rt->boot->rank();
    rt->procs = rt->boot->procs();
    if (static_cast<uint64_t>(rt->procs) > ga::kMaxRanks)
        return report("acp_init", "job size", "%d processes exceed the %llu a GA can name", rt->procs,
                      static_cast<unsigned long long>(ga::kMaxRanks)),
               nullptr;
    rt->tp = make_transport(cfg, rt->rank, rt->procs);
    if (!rt->tp) return nullptr;
    rt->liveness.answers.assign(static_cast<size_t>(rt->procs), 0);
    rt->tp->set_message_handler(on_message, rt.get());
    rt->tp->set_peer_failure_handler(on_peer_failure, rt.get());
    void *starter = open_starter_memory(*rt);
    if (!starter) return nullptr;
    // Before any peer can try: where Yama keeps siblings out, let them in
    // for Cross-Memory Attach (onnode/ptrace_access.hpp).
    const std::string cma_access = cfg.cma ? cma_access::open_to_peers() : "off (ACP_CMA=0)";
    unsigned node_ranks = 0;
    if (!join_peers(*rt, starter, &node_ranks)) return nullptr;
    rt->start_agent();
    if (cfg.verbose && rt->rank == 0) {
        std::fprintf(stderr, "acpx: %d processes, bootstrap %s, transport %s (%s)\n", rt->procs, rt->boot->name(),
                     rt->tp->name(), rt->tp->describe().c_str());
        std::fprintf(stderr, "acpx: %u ranks on rank 0's node, %u CPUs for them: collectives' waits %s (ACP_IDLE=%s)\n",
                     node_ranks, rt->node_cpus, rt->yield_at_once ? "yield the core at once" : "poll, then yield",
                     idle::name(cfg.idle_policy));
        std::fprintf(stderr, "acpx: Cross-Memory Attach between ranks of a node: %s\n", cma_access.c_str());
        say_paths(*rt);
    }
    return rt.release();
}

unsigned Runtime::progress_locked() {
    unsigned n = tp->progress();
    n += static_cast<unsigned>(mail.stored.size());
    settle_stored();
    while (!mail.inbox.empty()) {
        Blob m = std::move(mail.inbox.front());
        mail.inbox.pop_front();
        handle_message(m);
        ++mail.handled;
        ++n;
    }
    if (exec_finished) finish_exec_ops();
    advance();
    if (!regs.due_acks.empty()) send_due_acks();
    return n;
}

bool Runtime::finalize() {
    std::unique_lock lk(mu);
    const acp_handle_t last = last_issued;
    wait_locked(
        lk, "acp_finalize", [&] { return completed >= last; },
        [&] { return std::string("this process's GMAs to complete"); }, [&] { return completed; },
        [&] { return awaited_peer(); });
    // Nobody may leave while a peer could still need its memory or agent.
    // Peers that finish the barrier first close their endpoints while we
    // may still wait in it: from here on that is not a fault.
    finalizing = true;
    const bool ok = barrier(lk, "acp_finalize");
    // Even when the barrier failed: the runtime is destroyed next, and a
    // joinable agent thread must not be.
    stop_agent_thread(lk);
    tp->shutdown(cfg.timeout_s < 5 ? cfg.timeout_s : 5);
    return ok;
}

Runtime::~Runtime() {
    if (agent.thread.joinable()) {  // a create that failed after starting it
        std::unique_lock lk(mu);
        stop_agent_thread(lk);
    }
    upper.reset();  // the upper layer's state: plain memory, no calls back in here
    gmas.clear();
    exec_ops.clear();
    regs.remote.clear();
    regs.parked_copies.clear();
    for (auto &r : regs.local) {
        r.region.reset();
        if (r.owns_seg) destroy_shared_segment(r.seg);
    }
    if (starter_seg.base)
        destroy_shared_segment(starter_seg);
    else if (regs.local[ga::kStarterTag].base)
        munmap(regs.local[ga::kStarterTag].base, regs.local[ga::kStarterTag].size);
    tp.reset();
    boot.reset();
}

}  // namespace acpx::basic
