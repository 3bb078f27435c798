// The one runtime state object of a process: bootstrap, transport,
// registrations, the GMA queue, the barrier, and the progress agent.
// Every member is guarded by `mu`; the C API (api_*.cpp) takes the lock,
// validates, and calls in here. Its state comes in sections, each kept by
// one file and each with its own lifetime: what acp_init settles, fixed
// until acp_finalize (runtime.cpp); the registrations (registry.cpp);
// the GMA queue (gma.cpp); messages not yet handled (messages.cpp); the
// barrier's counts (sync.cpp); the progress thread (agent.cpp).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "current_runtime.hpp"
#include "acp.h"
#include "bootstrap/bootstrap.hpp"
#include "config.hpp"
#include "ga.hpp"
#include "heap.hpp"
#include "layer.hpp"
#include "onnode/on_node.hpp"
#include "onnode/shared_segment.hpp"
#include "transport/transport.hpp"

namespace acpx::basic {
namespace proto {
enum class Type : uint8_t;  // protocol.hpp
}

// A registration of this process.
struct LocalReg {
    bool live = false;
    char *base = nullptr;
    size_t size = 0;
    int color = 0;
    uint64_t gen = 0;  // unique per registration in this process
    std::unique_ptr<MemRegion> region;
    std::vector<int> cachers;  // ranks that looked it up (told at unregister)
    bool closing = false;      // being unregistered: look-ups are refused
    // The acpx-allocated segment that holds the memory, which on-node
    // peers map: its own (layer::alloc_shared, an acp_malloc arena), or,
    // for a registration of memory inside one (an acp_malloc block the
    // application registered), that one's, owned by its registration.
    SharedSegment seg;
    bool owns_seg = false;
};

// Another process's registration as this process knows it.
struct RemoteReg {
    uint64_t base = 0, size = 0, gen = 0;
    int color = 0;
    Blob rkey_blob;
    std::unique_ptr<RemoteKey> key;  // unpacked on first use
    PeerSegment seg;                 // an on-node peer's acpx-allocated memory: mapped here on first use
};
using RemoteRegPtr = std::shared_ptr<RemoteReg>;

enum class GmaKind : uint8_t { kLocal, kPut, kGet, kDelegated, kAtomic, kSignal };
enum class GmaState : uint8_t { kWaiting, kInFlight, kDone };

// One issued GMA. The Completion is the first member so the transport's
// callback can find the Gma; std::deque keeps addresses stable.
struct Gma {
    Completion comp;
    class Runtime *rt = nullptr;
    acp_handle_t handle = 0;
    GmaKind kind = GmaKind::kLocal;
    GmaState state = GmaState::kWaiting;
    bool failed = false;
    const char *fn = "acp_copy";  // the call that issued it, for its failure message
    // Why it failed, where known when it did: a fixed text, or a delegated
    // copy's executor's own words (why_text).
    const char *why = nullptr;
    std::string why_text;
    acp_handle_t order = 0;     // the GMA it was ordered after (0: none)
    bool source_free = false;   // in flight, its source bytes copied out or sent: they may change
    bool fail_landing = false;  // a test's fault: its completion reports failure (fault_injection.hpp)
    bool fenced = false;        // started behind a transport fence, what it is ordered after still in flight
    bool by_message = false;    // a put sent as a signal put without a signal (Runtime::put_by_message)
    uint32_t unreleased = 0;    // by_message: pieces the transport still sends from the source (send_from)
    bool piece_failed = false;  // by_message: a piece's send failed; it fails once every piece is let go
    AtomicOp aop = AtomicOp::kAdd;
    uint8_t width = 0;
    int peer = -1;  // the rank this GMA waits for
    acp_ga_t dst = 0, src = 0;
    size_t size = 0;
    char *local = nullptr;    // local side (src for put, dst for get/local/atomic result)
    char *local2 = nullptr;   // kLocal: the source
    uint64_t raddr = 0;       // remote side
    RemoteRegPtr remote;      // remote side's registration (put/get/atomic)
    RemoteRegPtr dst_remote;  // delegated: the destination, shipped to the executor
    uint64_t operand = 0, result = 0;
    // kSignal: the bytes, copied at issue (dropped once sent), and how
    // many of them the target stores last (layer::put_signal).
    Blob payload;
    uint8_t signal = 0;
    uint8_t hold = 0;  // kSignal: a held signal put's head bytes (0: stored whole; layer::put_held)
};

// A copy executed here on behalf of another rank (we own its source).
struct ExecOp {
    Completion comp;
    class Runtime *rt = nullptr;
    uint32_t issuer = 0;
    int64_t handle = 0;
    uint32_t src_tag = 0;
    bool done = false;
    int status = 0;
    RemoteRegPtr dst;
};

// Fault injection for tests (fault_injection.hpp): countdowns to the
// copy/atomic this process starts, the delegated copy it executes, the
// put whose completion reports failure and the piece of a put whose send
// reports failure or cannot be handed over, each failing as a transport
// error would; 0: none armed.
struct Faults {
    uint64_t start_in = 0, data_in = 0, exec_in = 0, landed_in = 0, sent_in = 0, piece_in = 0;
    // A copy or atomic starts (data: a copy of more than 8 bytes): does
    // start:N or data:N (fault_injection.hpp) make it fail? Counts it down.
    bool fails_start(bool data) { return (start_in && --start_in == 0) || (data && data_in && --data_in == 0); }
    // A copy executes here for another rank: does exec:N make it fail?
    bool fails_exec() { return exec_in && --exec_in == 0; }
    // A piece was handed to the transport to send from a put's source:
    // does sent:N make its send fail?
    bool fails_send() { return sent_in && --sent_in == 0; }
    // A piece is about to be handed to the transport to send from its
    // source: does piece:N make the handover fail at once?
    bool fails_piece() { return piece_in && --piece_in == 0; }
};

class Runtime {
  public:
    // --- lifecycle (runtime.cpp) ---
    static Runtime *create(const Config &cfg);  // nullptr (reported) on failure
    bool finalize();
    ~Runtime();

    std::mutex mu;

    // --- settled by acp_init, fixed until acp_finalize ---
    Config cfg;
    int rank = 0, procs = 1;
    std::unique_ptr<Bootstrap> boot;
    std::unique_ptr<Transport> tp;
    OnNode on_node;                       // copies to on-node peers without the transport
    std::vector<uint64_t> node_ids;       // each rank's local_node_id(): equal on one node
    SharedSegment starter_seg;            // the starter memory, mappable by on-node peers
    bool yield_at_once = false;           // a collective's empty poll yields the core (ACP_IDLE, idle.hpp)
    bool node_crowded = false;            // this node's ranks outnumber the CPUs they may run on
    unsigned node_cpus = 0;               // CPUs this node's ranks may run on (idle::cpus_in_union)
    std::atomic<bool> finalizing{false};  // read by the agent without the lock

    // Progress: transport, incoming messages, completions, ordered starts.
    unsigned progress_locked();
    // Waits (progressing) until done() holds; past cfg.timeout_s since
    // life() last changed (what is waited for made progress), ends the job
    // with "fn: waited for <what()>". Called with the lock held.
    // peer(): the rank whose answer to a probe keeps the wait going past
    // the deadline, though what it waits for has not moved (a rank that is
    // alive and busy: a timeout means "not heard from", not "not finished");
    // -1: none.
    template <class Done, class What, class Life, class Peer>
    void wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done, What what, Life life, Peer peer);
    template <class Done, class What, class Life>
    void wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done, What what, Life life) {
        wait_locked(lk, fn, done, what, life, [] { return -1; });
    }
    template <class Done, class What>
    void wait_locked(std::unique_lock<std::mutex> &lk, const char *fn, Done done, What what) {
        wait_locked(lk, fn, done, what, [] { return 0; });
    }

    // --- registrations (registry.cpp): from register to unregister ---
    struct Registrations {
        LocalReg local[ga::kMaxTags];    // this process's, by tag
        std::deque<uint32_t> free_tags;  // FIFO: a tag is reused as late as possible
        uint64_t next_gen = 1;
        std::unordered_map<uint64_t, RemoteRegPtr> remote;  // peers' looked up; key: rank<<10|tag
        // Delegated copies to execute once the destination's owner has
        // described the registration (by look-up request).
        std::unordered_map<uint64_t, Blob> parked_copies;
        std::unordered_map<uint64_t, Blob> replies;  // request -> the owner's answer (RegInfo, HeapReply)
        uint64_t next_request = 1;
        std::unordered_map<uint64_t, int> invalidate_acks;  // own rank<<10|tag -> acks still due
        // Invalidations of peers' registrations this process still has
        // copies in flight to or from: acknowledged once those complete.
        struct DueAck {
            uint32_t owner, tag;
            uint64_t gen;
            RemoteRegPtr reg;
        };
        std::vector<DueAck> due_acks;
    };
    Registrations regs;

    acp_atkey_t register_memory(void *addr, size_t size, int color);
    // Registers an acpx segment, which the registration then owns (on-node
    // peers map it; unregistering unmaps it). On failure (reported) the
    // segment is destroyed and ACP_ATKEY_NULL returned.
    acp_atkey_t register_segment(SharedSegment &seg);
    // The acpx-allocated segment (a registration's own) that holds all of
    // [addr, addr + size); {} if none does.
    SharedSegment segment_holding(const void *addr, size_t size) const;
    int unregister_memory(std::unique_lock<std::mutex> &lk, acp_atkey_t key);
    LocalReg *local_reg(uint32_t tag);      // nullptr if not live
    bool in_use(const RemoteReg *r) const;  // a GMA or executed copy of this process not done reaches it
    void send_due_acks();                   // the invalidations whose copies have completed
    // Looks up (fetching from the owner if needed) the registration a GA
    // lies in. nullptr, reported as fn/arg, if there is none.
    RemoteRegPtr lookup(std::unique_lock<std::mutex> &lk, uint32_t rank, uint32_t tag, const char *fn, const char *arg);
    // Caches the registration a RegInfo message (status 0) describes.
    RemoteRegPtr remember_remote(const Blob &reg_info);
    RemoteKey *key_of(int rank, RemoteReg &r);  // unpacks on first use
    // Waits (wait_locked) for the answer `owner` sends to `request` (from
    // regs.next_request) and takes it; `what` names it if the wait times out.
    Blob await_reply(std::unique_lock<std::mutex> &lk, const char *fn, int owner, uint64_t request,
                     const std::string &what);

    // --- global memory (global_memory.cpp): acp_malloc / acp_free, served for any rank ---
    // A heap over arenas of this process's own, each one registration:
    // blocks of them cost no registration, no segment and no message to
    // peers (who map and key an arena once).
    struct Arenas {
        const char *label;  // the segments' name (/proc/PID/maps)
        uint64_t first;     // the first arena's bytes; each next doubles, to 64 MiB
        Heap heap;
        std::vector<uint32_t> arena_tag;                      // registration tag, by heap arena
        std::unordered_map<uint32_t, uint32_t> arena_of_tag;  // the inverse
        // By heap arena: bytes below it have been handed out; above, they
        // are as the new segment was, zero (not written again at alloc:
        // pages nobody touches stay out of the process's RSS).
        std::vector<uint64_t> used_to;
        // Whole pages of its free blocks go back to the system at free
        // (arena_free), when they come to kGiveBackMin bytes, and are
        // backed again at alloc in an arena that gave some back.
        bool gives_back = false;
        std::vector<bool> gave_back;  // by heap arena
        static constexpr uint64_t kGiveBackMin = uint64_t{256} << 10;
    };
    Arenas gm{"acpx-malloc", uint64_t{1} << 20, {}, {}, {}, {}, false, {}};  // acp_malloc's
    // The middle layer's control blocks (layer::alloc_block): a few KiB
    // each, one per handle.
    Arenas blocks{"acpx-col", uint64_t{256} << 10, {}, {}, {}, {}, true, {}};
    // Under the lock, on this process's heap. ACP_GA_NULL / false with *why.
    acp_ga_t heap_alloc(uint64_t size, std::string *why) { return arena_alloc(gm, size, heap_limit(), why); }
    bool heap_free(acp_ga_t g, std::string *why);
    // A block of `a` (a new arena when none has room, up to `limit` bytes
    // of arenas in all), zeroed unless `zero` is false (then what a freed
    // block of this process left there may show).
    acp_ga_t arena_alloc(Arenas &a, uint64_t size, uint64_t limit, std::string *why, bool zero = true);
    bool arena_grow(Arenas &a, uint64_t need, uint64_t limit, std::string *why);
    // Frees the live block of `a` at (tag, offset), if there is one there;
    // where a.gives_back, the whole free pages around it go back.
    void arena_free(Arenas &a, uint32_t tag, uint64_t offset);
    uint64_t heap_limit() const;  // ACP_MALLOC_LIMIT, auto resolved
    uint64_t node_share() const;  // the node's memory over the processes on it
    // Asks `owner` to allocate (kMallocReq: value = size) or free
    // (kFreeReq: value = GA) and waits for the answer: the GA (1 for a
    // free), or ACP_GA_NULL with *why.
    acp_ga_t heap_ask(std::unique_lock<std::mutex> &lk, const char *fn, proto::Type type, int owner, uint64_t value,
                      std::string *why);
    void serve_heap_request(const Blob &m);

    // --- GMAs (gma.cpp) ---
    std::deque<Gma> gmas;  // issued, not yet retired; gmas[i].handle = front+i
    acp_handle_t last_issued = 0;
    acp_handle_t completed = 0;  // every GMA <= completed is done
    // (order, handle) of GMAs waiting for their order, smallest order first.
    std::priority_queue<std::pair<acp_handle_t, acp_handle_t>, std::vector<std::pair<acp_handle_t, acp_handle_t>>,
                        std::greater<>>
        waiting;
    std::list<ExecOp> exec_ops;
    unsigned exec_finished = 0;
    // Handles of the retired GMAs that failed, ascending (they retire in
    // handle order): acp_inquire and acp_query_failed read it. 8 bytes a
    // failure, kept for the life of the runtime.
    std::vector<acp_handle_t> failures;
    bool failed(acp_handle_t h) const;  // GMA h retired, failed
    // The first retired failed GMA in [from, to], or 0.
    acp_handle_t first_failure(acp_handle_t from, acp_handle_t to) const;
    Faults faults;
    // Pieces of puts by message the transport still sends from their
    // sources (signal_put.cpp's PieceRelease objects alive).
    size_t sources_held = 0;

    Gma *find_gma(acp_handle_t h);
    acp_handle_t issue(Gma &&g, acp_handle_t order);
    bool fence_instead(const Gma &g, acp_handle_t order);
    // Small puts to other nodes go as one message each (signal_put.cpp),
    // not as RMA: UCX 1.13 over TCP answers every put with a message, and
    // completing one took a flush round trip on top; up to the
    // transport's message_put_max (Transport). kSmallPut: the largest RMA
    // put a fence orders (under every UCX transport's eager fragment).
    static constexpr size_t kSmallPut = 4096;
    bool put_by_message(const Gma &g) const;
    void fail_fenced_after(acp_handle_t h);
    void start(Gma &g);
    void advance();
    void finish_exec_ops();
    std::string describe_gma(const Gma &g) const;
    // GMA h: 1 not yet complete (it or one before it), -1 failed, 0 done.
    int completion(acp_handle_t h) const { return completed < h ? 1 : h > 0 && failed(h) ? -1 : 0; }
    // The rank the oldest GMA not yet retired waits for; -1: none.
    int awaited_peer() const { return gmas.empty() ? -1 : gmas.front().peer; }
    // Waits (wait_locked) until every GMA <= last is done; on a timeout
    // names the oldest GMA not done, and probes its peer first.
    void wait_completed(std::unique_lock<std::mutex> &lk, const char *fn, acp_handle_t last);

    // --- messages (messages.cpp): arrived, not yet handled ---
    struct Mail {
        std::deque<Blob> inbox;
        std::deque<Blob> for_layer;  // for the upper layer (layer::take_messages)
        // for_layer holds some: read without the lock (layer::mail_waiting).
        std::atomic<bool> layer_waiting{false};
        void file_for_layer(Blob m) {
            for_layer.push_back(std::move(m));
            layer_waiting.store(true, std::memory_order_release);
        }
        // Signal puts stored as they arrived (store_arriving): their
        // sender and the acknowledgement each carried, for settle_stored.
        std::vector<std::pair<int, uint64_t>> stored;
        uint64_t handled = 0;  // the agent lingers after acpx work, not after any UCX event
    };
    Mail mail;
    std::unique_ptr<layer::LayerState> upper;  // the upper layer's state, destroyed with the runtime
    void handle_message(Blob &m);              // may keep m's bytes (on_signal_put)
    void execute_copy(const Blob &m);
    // A delegated copy whose destination registration is `dst` as its
    // owner described it (nullptr: not registered there).
    void execute_copy_to(const Blob &m, const RemoteRegPtr &dst);
    bool send(int to, const Blob &m);
    bool send(int to, Blob &&m);  // the transport may send from m's own memory
    // Tells the issuer of a delegated copy that it is done (status 0) or
    // failed, and why (the issuer's failure message quotes it).
    void reply_copy_done(uint32_t issuer, int64_t handle, int status, const std::string &why = "");

    // --- signal puts (signal_put.cpp): small writes sent as one message,
    // their signal stored last by the target, acknowledged in batches ---
    struct SignalPeer {
        // As the issuer, to this peer:
        uint64_t sent = 0;  // numbered from 1
        struct Unacked {
            uint64_t number;
            acp_handle_t gma;  // 0: its GMA failed already (a refused piece of a put in pieces)
            int64_t sent_ns;   // Agent::now_ns() at send
            bool last;         // the GMA's last message: its acknowledgement completes it
        };
        std::deque<Unacked> unacked;  // ascending numbers
        bool asked = false;           // a kSignalAskAck in flight
        uint64_t want = 0;            // someone waits for the acknowledgement of those up to this number
        // As the target, from this peer:
        uint64_t stored = 0, told = 0;   // stored; the count last acknowledged
        std::map<uint64_t, Blob> early;  // arrived ahead of one sent before
        std::set<uint64_t> refused;      // numbers refused, kept while a put may be ordered after them
    };
    std::unordered_map<int, SignalPeer> signal_peers;  // only the peers signal puts went to or came from
    // Threads in wait_locked: while one waits, a signal put that starts
    // asks for its acknowledgement at once (it may be what is waited for).
    unsigned completion_waiters = 0;
    struct Piece {
        const void *data;
        size_t n;
    };
    // hold: 0, or the head bytes of a put whose body the target holds (layer::put_held).
    acp_handle_t put_signal(std::unique_lock<std::mutex> &lk, acp_ga_t dst, Piece head, Piece body, size_t signal,
                            size_t hold, acp_handle_t order, const char *fn);
    // A signal put's Gma::payload: room for the message's header, then
    // head and body (the message is sent from it, not copied again).
    static void set_signal_payload(Gma &g, Piece head, Piece body);
    int start_signal_put(Gma &g);  // a transport return value (transport.hpp)
    void on_signal_put(Blob &m);   // may keep m's bytes (a held put)
    // Inside the transport's progress, before the message is copied into
    // the inbox: stores a signal put straight from the transport's buffer
    // (a copy less; a 1 MiB put by message is 32 of them) where it is the
    // next in order from its sender and nothing about it needs a message
    // sent; true if it did. The rest of its handling is settle_stored's,
    // after the transport's progress returns.
    // The message is head_n bytes at head (0: none), then len at data.
    bool store_arriving(const uint8_t *head, size_t head_n, const uint8_t *data, size_t len);
    void settle_stored();
    // The bodies of signal puts this process holds (layer::put_held), by
    // the reference stored into their heads; each released by the layer
    // above (release_held), or with the registration its head went into.
    struct HeldBody {
        Blob m;  // the message, kept whole: the body is not copied again
        size_t body_at = 0;
        uint32_t tag = 0;  // where its head went: registration
        uint64_t at = 0;   // and offset
    };
    std::unordered_map<uint64_t, std::unique_ptr<HeldBody>> held;
    void on_signal_ack(const Blob &m);
    void on_signal_ask(int from);
    // Someone waits for completions: the transport's batched flushes go
    // now, and peers with unacknowledged signal puts are asked for acks
    // (only those with one sent at least min_age_ns ago).
    void hurry(int64_t min_age_ns = 0);
    // A poll (acp_inquire) asks only for the acknowledgements of signal
    // puts this old: sooner, they usually ride on the peer's own traffic
    // (a ping-pong's answer), and an ask and its answer would triple it.
    static constexpr int64_t kPollAsksAfterNs = 20'000;
    // Asks the targets of unacknowledged signal puts with handles <= upto.
    void ask_signal_acks(acp_handle_t upto, int64_t min_age_ns = 0);

    // --- liveness (wait.ipp, messages.cpp): answers to the probes a wait
    // sends the rank it waits for, when nothing it waits for has moved for
    // half of ACP_TIMEOUT; a rank that answers is alive and its wait goes on.
    struct Liveness {
        std::vector<uint64_t> answers;  // per rank: kPong messages received
    };
    Liveness liveness;
    // Sends rank `to` a probe; false if it cannot be reached.
    bool probe(int to);

    // --- barrier (sync.cpp): counts of the rounds' arrivals ---
    struct BarrierState {
        uint64_t epoch = 0;
        unsigned count[2][64] = {};
    };
    BarrierState sync;
    bool barrier(std::unique_lock<std::mutex> &lk, const char *fn);

    // --- agent (agent.cpp): the progress thread, acp_init to acp_finalize ---
    // The application thread's way in: counts itself as waiting so a busy
    // agent hands the lock over between progress rounds.
    std::unique_lock<std::mutex> lock_api();
    struct Agent {
        std::atomic<int> api_waiters{0};
        // When the application thread last made progress itself, polling
        // (layer::progress, steady clock ns): while it does, the agent
        // stays out of its way (agent.cpp).
        std::atomic<int64_t> app_polled_ns{0};
        static int64_t now_ns() {
            return std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now().time_since_epoch())
                .count();
        }
        // The application thread blocked in wait_locked; the agent
        // signals `progressed` after every round that made progress.
        int app_blocked = 0;
        std::condition_variable progressed;
        std::thread thread;
        int wake_fd = -1;
        bool stop = false;
        // The upper layer's rounds (layer::set_agent_work); nullptr: none.
        std::atomic<unsigned (*)()> upper_work{nullptr};
        // Set in the agent thread: its own polls are not the application's.
        static thread_local bool on_agent_thread;
    };
    // The application thread polls (the agent stays away meanwhile); not
    // when the agent itself runs the upper layer's rounds.
    void note_app_polled() {
        if (!Agent::on_agent_thread) agent.app_polled_ns.store(Agent::now_ns(), std::memory_order_relaxed);
    }
    // Ends the agent's sleep (its wake-up eventfd).
    void wake_agent();
    Agent agent;
    void agent_main();
    // The agent's pause while the application polls: `us` microseconds,
    // without the lock; true if wake_agent() ended it.
    bool pause_unless_woken(unsigned us);
    void start_agent();
    void stop_agent_thread(std::unique_lock<std::mutex> &lk);

  private:
    Runtime() = default;
};

}  // namespace acpx::basic

#include "wait.ipp"
