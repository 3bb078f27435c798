// What the basic layer offers the layers built on it (middle/), beyond
// <acp.h>: messages between the middle layers of two ranks, memory acpx
// allocates and registers itself (mapped by on-node peers, so copies into
// it are plain stores, and which the upper layer may store into itself),
// the ACP_TIMEOUT in force, which ranks share a
// node, and one slot for the upper layer's per-process state, owned by
// the runtime object (no globals of its own) and destroyed with it.
#pragma once

#include <acp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "current_runtime.hpp"
#include "errors.hpp"

namespace acpx::basic::layer {

using Bytes = std::vector<uint8_t>;

// True inside acp_init .. acp_finalize; else reports that fn was called
// outside, as every C API function does. Like them, it clears this
// thread's last error first. Inline: every call of the layers above makes it.
inline bool initialized(const char *fn) {
    clear_last_error();
    return runtime() != nullptr || report_uninitialized(fn);
}

// ACP_VERBOSE is set.
bool verbose();

// Sends `n` bytes to the upper layer of rank `to` (may be this rank).
// False, reported under fn, if the rank cannot be reached.
bool send(int to, const void *data, size_t n, const char *fn);

// Messages that arrived since the last call, oldest first. Makes progress.
std::vector<Bytes> take_messages();
// Whether messages wait for take_messages, as far as this process's
// progress (its calls, its agent) has received them: no lock, no
// progress, an atomic load, for a check on a fast path.
bool mail_waiting();

// Makes progress: what peers on other nodes copy into this process may
// land only in its own transport calls (UCX emulates RMA over TCP by
// messages), so a layer that polls its memory for their stamps calls this
// too, rather than wait for the agent to wake up.
void progress();

// Registered memory of this process that on-node peers map.
struct SharedMemory {
    void *base = nullptr;
    size_t size = 0;
    acp_atkey_t key = ACP_ATKEY_NULL;  // alloc_shared's own registration; alloc_block's: none
    acp_ga_t ga = ACP_GA_NULL;         // of byte 0
    bool block() const { return base && key == ACP_ATKEY_NULL; }  // alloc_block's: part of an arena
};
// Zeroed, page-aligned, a registration of its own. False (reported under
// fn) on failure.
bool alloc_shared(size_t size, const char *fn, SharedMemory *out);
// Cache-line aligned, a block of one of this process's arenas (size
// rounded up to 64 bytes): no registration of its own, no segment, no
// message to a peer at alloc or free. For memory often made and dropped
// (a handle's control block, a buffered handle's buffer). Its bytes may
// go to the next alloc_block as soon as it is freed: a peer that may
// still write into it must be known done first (the caller's protocol).
// kZeroed: zeroed; kAsLeft: what this process last wrote there (no write
// at alloc: for memory whose every byte is written before it is read; a
// 64 KiB buffer's create took 60 us longer zeroed, in reused pages).
enum class BlockContents { kZeroed, kAsLeft };
bool alloc_block(size_t size, const char *fn, SharedMemory *out, BlockContents contents = BlockContents::kZeroed);
// Either: unregisters (waiting until no peer holds a stale key) and
// unmaps; or gives the block back, with the held bodies (put_held) whose
// heads lie in it.
void free_shared(SharedMemory &m);
// Bytes of this process's arenas of alloc_block (backed from their
// creation, whatever is live in them).
size_t block_arena_bytes();

// `size` bytes at `ga` in this process's address space: its own
// registered memory, or an on-node peer's segment mapped here (what makes
// acp_copy into it a plain memcpy), so a layer above may store into it
// without the cost of a GMA. `keep` holds the mapping while it is used.
// ptr is nullptr (and nothing reported) where only acp_copy reaches.
struct Mapped {
    char *ptr = nullptr;
    std::shared_ptr<void> keep;
};
Mapped mapped(acp_ga_t ga, size_t size);
// Whether this process's registered memory at `ga` lies in a segment its
// on-node peers may map (acp_malloc memory, the starter memory, memory of
// alloc_shared): where mapped() gives them a pointer. False for memory the
// application registered from its own heap, and for a GA not its own.
bool shared_with_node(acp_ga_t ga);

// Copies n bytes from this process's `src` to address `addr` in rank's
// process, memory that need not be registered (a buffered collective's
// user arrays), by Cross-Memory Attach. 0: done, the bytes visible there.
// kNoDirectWrite: rank is not on this node, or CMA does not reach it
// (ACP_CMA=0, refused): the caller goes through registered memory. -1
// (reported): the copy failed (an address the system refused, a dead
// peer, or a data fault a test injected: basic/fault_injection.hpp).
inline constexpr int kNoDirectWrite = 1;
int write_direct(int rank, uint64_t addr, const void *src, size_t n, const char *fn);
// The reverse: n bytes from address `addr` in rank's process (memory that
// need not be registered) to this process's `dst`, a copy this process
// executes for that rank (a middle-layer round whose receiver reads its
// block out of the sender's array). Returns as write_direct; a test's
// exec:N fails it (basic/fault_injection.hpp). `ga`, if not null, is the
// same bytes' GA, given where their owner says they are memory its node
// may map (shared_with_node): where this process maps it, the copy is a
// memcpy from the mapping, without the system call and its page pinning.
int read_direct(int rank, void *dst, uint64_t addr, size_t n, const char *fn, acp_ga_t ga = ACP_GA_NULL);
// Does write_direct / read_direct reach rank (on this node, CMA allowed)?
bool reaches_direct(int rank);
// Do they reach it for certain: has one worked? If none has been made
// yet, reads one byte at `ga` (rank's registered memory) to find out: a
// refusal then is the one warning write_direct's would have been. For a
// protocol without a fallback where CMA fails (a buffered round whose
// receiver reads from the root's unregistered array).
bool proven_direct(int rank, acp_ga_t ga);
// A copy of n bytes to rank that this process issues but another process
// carries out (the receiver's read_direct): true, reported as the copy's
// failure, when a test's start:N or data:N (basic/fault_injection.hpp)
// says this copy fails, so the issuer fails it as it would one it made.
bool injected_fault(int rank, size_t n, const char *fn);

// A signal put: writes `n` bytes (1 to 64 KiB + 64) from `data` to `dst`
// as one transport message, which the target's progress stores: bytes
// [signal, n) first, then the first `signal` bytes (1, or whole 8-byte
// words at an 8-byte aligned dst) by release stores, 8 bytes at a time
// from the last word to the first. A reader that sees a signal word (an
// acquire load) sees the bytes after it. The signal puts of one rank to
// another are stored in the order they were issued. The bytes are copied
// at the call. Returns a GMA, ordered after `order` as acp_copy's are;
// complete once the target acknowledged it (targets acknowledge in
// batches; a wait for the GMA asks), failed with the target's reason if
// it refused it. For small writes to another node: an acp_copy and a
// stamp ordered after it cost UCX over TCP about four messages and a round
// trip. ACP_HANDLE_NULL, reported under fn, on bad arguments.
acp_handle_t put_signal(acp_ga_t dst, const void *data, size_t n, size_t signal, acp_handle_t order, const char *fn);
// The same, the bytes in two pieces, head then body (a stamp pair and
// the bytes it announces), copied once into the message.
acp_handle_t put_signal(acp_ga_t dst, const void *head, size_t head_n, const void *body, size_t body_n, size_t signal,
                        acp_handle_t order, const char *fn);

// A held put: a signal put (as above) of which the target stores only the
// head (head_n bytes: whole 8-byte words, at least one past a signal of
// whole words), its last 8 bytes replaced by a reference to the body,
// which the target holds in memory of its own (the message it arrived
// in: no copy there). The target reads the body through held_bytes and
// hands it back with release_held, or it goes when the head's
// registration is unregistered. For bodies too large for the slot they
// announce (a collective's eager rounds to other nodes).
acp_handle_t put_held(acp_ga_t dst, const void *head, size_t head_n, const void *body, size_t body_n, size_t signal,
                      acp_handle_t order, const char *fn);
// The largest body a held put to another node carries better than an RMA
// put after the receiver's go-ahead would (the transport's; at most 64 KiB).
size_t held_put_max();
// The first `len` bytes of the body a held put's reference names (one this
// process's progress stored, seen behind its signal); nullptr where `ref`
// names no body held here (released, or a word a later put overwrote) or
// a shorter one.
const char *held_bytes(uint64_t ref, size_t len);
// Frees a held body. A reference that names none (released already, or
// a word that a later put overwrote) is ignored.
void release_held(uint64_t ref);
// Whether the GMAs first..last of this process no longer read their
// sources: each is complete, or its transport copied the bytes out or
// sent them (its completion, remote, comes later); and none failed so far. A sender may
// then reuse its sources before their completion and check it later.
bool sources_free(acp_handle_t first, acp_handle_t last);

// GMA h of this process: 0 complete (and every one before it), 1 not yet,
// -1 failed; as acp_inquire, but neither makes progress nor asks the
// transport to hurry its completion (a layer that checks completions it
// does not wait for yet, while its own loop makes progress).
int completion(acp_handle_t h);
// As acp_inquire for a layer that waits for GMA h in its own loop: while
// h is incomplete, its targets are asked for their acknowledgements at
// once (acp_inquire waits 20 us: a poll's peer usually answers anyway)
// and progress is made; once it is complete, neither. Never yields.
int poll(acp_handle_t h);

// ACP_TIMEOUT, in seconds.
double timeout_seconds();

// Whether a collective's wait should yield the core after every poll
// that found nothing (ACP_IDLE; idle.hpp): the node's ranks outnumber
// its CPUs.
bool yield_at_once();

// Whether the ranks of this rank's node outnumber the CPUs they may run
// on (node_cpus; whatever ACP_IDLE says): the same on every rank of a node.
bool node_crowded();

// How many CPUs the ranks of this rank's node may run on, bound or not
// (the union of their affinity masks, exchanged at start-up); 0 outside
// acp_init.
unsigned node_cpus();

// An id of the node `rank` runs on, the same for every rank of one node
// (exchanged at start-up); 0 for a rank out of range or outside acp_init.
uint64_t node_id(int rank);

// The upper layer's share of the progress agent (seed 002's remote
// execution): the agent thread calls `work` at every turn of its loop,
// outside the runtime's lock, until acp_finalize begins. It returns how
// many microseconds may pass, at most, before the next call (0: nothing
// in flight; the agent sleeps as it would without it). Set once, after
// set_state; never with ACP_PROGRESS=calls (agent_runs_rounds).
void set_agent_work(unsigned (*work)());
// Ends the agent's sleep at once (an eventfd write): the upper layer has
// rounds in flight again after the agent was told there were none.
void wake_agent();
bool agent_runs_rounds();

// The upper layer's state for this runtime; nullptr until set.
struct LayerState {
    virtual ~LayerState() = default;
};
LayerState *state();
void set_state(std::unique_ptr<LayerState> s);

}  // namespace acpx::basic::layer
