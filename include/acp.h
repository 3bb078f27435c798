/*
 * acp.h -- the acpx C API, compatible with the ACP basic layer (ACP 3.0).
 *
 * acpx is a one-sided communication runtime. Every process of a job has a
 * rank in [0, acp_procs()). Memory that other processes may reach is
 * registered; a registered byte has a 64-bit global address (GA) that any
 * process can use. acp_copy() moves bytes between any two GAs -- the issuer
 * may own neither of them -- without blocking, and returns a handle.
 *
 * Conventions of every function below:
 *   - On failure it prints ONE line on stderr,
 *       "acpx: <function>: <argument>: <reason>"
 *     and returns the failure value given in its documentation
 *     (ACP_GA_NULL, ACP_ATKEY_NULL, ACP_HANDLE_NULL, -1 or NULL).
 *     Nothing is changed by a call that fails.
 *   - Calling anything but acp_init() before acp_init() or after
 *     acp_finalize() is such a failure.
 *   - The functions may be called from one application thread at a time.
 *
 * Faults that cannot be returned to a caller -- a peer that dies, or a wait
 * that hears nothing for ACP_TIMEOUT seconds -- end the job: acpx prints
 * which operation waited for which rank and calls acp_abort(). A rank
 * that is alive but busy is not such a fault: a wait probes the rank it
 * waits for, whose progress thread answers, and goes on.
 *
 * Environment (acpx-info lists every variable with its default):
 *   ACP_TRANSPORT        transport: "ucx" (default)
 *   ACP_STARTER_MEMSIZE  bytes of starter memory per process (default 65536)
 *   ACP_MALLOC_LIMIT     bytes of acp_malloc arenas a process may hold (default
 *                        auto: the node's memory / the job's processes on it)
 *   ACP_TIMEOUT          seconds any internal wait may last (default 60)
 *   ACP_VERBOSE          "1": print the set-up at acp_init, and each
 *                        collective handle at create; "0" (default): quiet
 *   ACP_CMA              "1" (default): copies between processes of one
 *                        node go through the kernel (process_vm_writev/
 *                        readv). Under Yama's ptrace_scope=1, acp_init
 *                        lets processes of the same user attach to this
 *                        one (PR_SET_PTRACER_ANY) so that its peers can;
 *                        where a copy is refused anyway, acpx warns once
 *                        and goes through the transport. "0": always the
 *                        transport
 *   ACP_OFI_ATOMICS      with ACP_TRANSPORT=ofi: "auto" (default) uses the
 *                        provider's atomics when it has every one acpx
 *                        needs, else the target's agent carries them out;
 *                        "agent": always the target's agent
 *   ACP_PROGRESS         "agent" (default): the progress threads carry a
 *                        persistent collective's round through while the
 *                        application computes (see acp_wait_col);
 *                        "calls": rounds move only inside acpx calls
 *   ACP_HUGEPAGES        "1": acp_register_memory moves the range's
 *                        whole 2 MiB-aligned blocks that are in memory
 *                        onto huge pages (see there); "0" (default): it
 *                        leaves the pages as they are
 *   ACP_IDLE             how the persistent collectives' waits,
 *                        acp_inquire's empty polls (and the progress
 *                        thread, while a copy through the transport is
 *                        in flight) use the core: "spin"
 *                        polls a while before yielding it (a
 *                        collective's wait 512 empty polls, ~13 us),
 *                        "yield" yields after every empty poll; "auto"
 *                        (default): "yield" when the node's ranks
 *                        outnumber the CPUs they may run on
 *   ACP_COL_EXEC         persistent collectives: "delegated" (default) or "root"
 *                        (allreduce: always delegated)
 *   ACP_COL_INLINE       bytes per block up to which a round travels through
 *                        the control blocks, eagerly ("auto", the default:
 *                        8K on one node with a core per rank; across
 *                        nodes or on a crowded node bcast trees 64K,
 *                        allgathers 16K; else a size, at most 64K, which
 *                        allgathers take up to 16K; 0: never); an
 *                        allreduce stores vectors of any size into on-node
 *                        peers' blocks unless a size is set
 *   ACP_COL_CACHE        one-call collectives: ENTRIES[:BYTES] per group
 *                        (default 16:64M; see acp_bcast)
 *   ACP_COL_POOL         bytes of each process's eager pool ("auto", the
 *                        default: 1M; 0: none): delegated rounds over 48
 *                        bytes to members of its node go there before they
 *                        called send; "auto" or unset,
 *                        for bcast handles over 4 KiB and allgather ones
 *                        over 1 KiB (where those are as fast), set,
 *                        for every handle; a full pool sends the non-eager
 *                        way; to members that map nothing (ACP_CMA=0) or
 *                        on other nodes (bcasts) they go as held puts
 *   ACP_COL_PULL         1 (default): a direct handle's delegated rounds above
 *                        the inline slots are read by each receiver on the
 *                        sender's node out of the sender's array (one
 *                        Cross-Memory-Attach read; a memcpy where the array
 *                        is acp_malloc memory, which the node maps: 3-4x
 *                        faster from 128 KiB); a bcast root with one
 *                        receiver on its node writes the second half into
 *                        the receiver's array meanwhile (about twice as
 *                        fast from 64 KiB; acp_malloc arrays: where both
 *                        are; buffered handles: the receiver reads the
 *                        first half out of the root's array, where CMA has
 *                        worked between them); 0: written by the sender
 *   ACP_COL_RING_DEPTH   most small bcast rounds in flight: a root runs up to
 *                        this many minus one ahead of a slow member (default
 *                        and most 64, a cap on each handle's own depth,
 *                        below; a power of two from 2; 2: every round
 *                        paced by the slowest member, as acpx-bench
 *                        calibrate measures them)
 *   ACP_COL_BCAST_ALGO   "auto" (default: the model picks), "binomial",
 *                        "binary", "knomial" (k = 4), "knomial:K", "chain",
 *                        "pipeline" (chain of 8 segments), "pipeline:S",
 *                        "scatter_ring" (groups up to 1024); "hier:" before
 *                        a tree or chain ("hier:binomial"): hierarchical,
 *                        that list among the nodes (one copy into each),
 *                        then on each node from the member that got it
 *   ACP_COL_ALLGATHER_ALGO "auto" (default), "tree", "ring", "bruck",
 *                        "recdoubling", "neighbor" (even groups only),
 *                        "hier:tree" (each block's tree hierarchical)
 *   ACP_COL_PLACE        "none" (default), "tac3", "tac3:TRIALS": a bcast's
 *                        or an allgather's create chooses which member
 *                        plays which place of its command lists on
 *                        ACP_TOPOLOGY's network (a bcast's root keeps its
 *                        own; an allgather's blocks keep their places in
 *                        the arrays: member m's at m), by seed 000's annealing
 *                        (TRIALS a level, 250 unless given) over the
 *                        model's steps, counting the copies that share a
 *                        link or a port; an error without ACP_TOPOLOGY.
 *                        It costs create time: at 250 trials, a bcast's
 *                        0.02 s at 64 members, 0.05 s at 256, 0.2 s at
 *                        1024; an allgather's 0.9-2.5 s at 64, 8-31 s at
 *                        256 (2-core VM). The search keeps to a quarter
 *                        of ACP_TIMEOUT, which the members wait for it,
 *                        and takes the best placement found by then.
 *   ACP_COL_ALLREDUCE_ALGO "auto" (default: the model picks), "butterfly"
 *                        (recursive doubling, members beyond the largest
 *                        power of two folded in first), "rabenseifner"
 *                        (reduce-scatter by halving, then allgather),
 *                        "butterfly:M,L" (seed 001's redundant exchanges)
 *   ACP_CALIBRATION      the model's calibration file (JSON, written by
 *                        acpx-bench calibrate); else
 *                        ~/.config/acpx/calibration.json, else the one
 *                        installed in <prefix>/share/acpx, else built-in
 *                        figures (a 2-core VM's, on this node's CPUs);
 *                        "builtin": those figures, whatever files exist
 *   ACP_TOPOLOGY         the network, for collisions: "torus:4x6x4",
 *                        "mesh:8x8", ":order=ZYX" (routing order), ":wrap=101",
 *                        ":ports=4" (a rank sends and takes in up to 4
 *                        messages at once at a link's speed; "all": as
 *                        many as its node has links; default 1, one network
 *                        interface); "switch:16": 16 nodes on one non-blocking switch (a
 *                        node's messages to others share its port); unset,
 *                        empty or "none": the job's nodes as the runtime finds
 *                        them, on a switch (one node: fully connected)
 *   ACP_TOPOLOGY_MAP     file of node indices, one per rank (default: rank r
 *                        on node r)
 */
#ifndef ACP_H
#define ACP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Infrastructure                                                      */
/* ------------------------------------------------------------------ */

/**
 * Starts acpx in this process. Collective: every process of the job calls
 * it. The job comes from the launcher: acprun, a PMIx launcher (mpirun,
 * prterun, srun --mpi=pmix), or none (a job of one process).
 * Registers the starter memory (zeroed) and starts the progress agent.
 * argc/argv may be NULL; they are not modified.
 * @return 0 on success; -1 on failure, including a second call.
 */
int acp_init(int *argc, char ***argv);

/**
 * Completes every GMA this process issued, waits until every process has
 * called acp_finalize (so no peer still needs this process's memory), then
 * releases everything acp_init and the registrations acquired.
 * @return 0 on success; -1 on failure.
 */
int acp_finalize(void);

/**
 * Ends the whole job at once: prints "acpx: rank R: abort: <str>" on
 * stderr and exits with status 1; the launcher stops the other processes.
 * Callable at any time, even before acp_init. Does not return.
 */
void acp_abort(const char *str);

/**
 * Completes every GMA issued by this process (acp_complete(ACP_HANDLE_ALL)),
 * then waits until every process has called acp_sync (a barrier run over
 * the transport, dissemination algorithm). After it returns, every GMA
 * issued before it by any process is complete.
 * @return 0 on success; -1 on failure.
 */
int acp_sync(void);

/** @return this process's rank, or -1 before acp_init. */
int acp_rank(void);

/** @return the number of processes of the job, or -1 before acp_init. */
int acp_procs(void);

/* ------------------------------------------------------------------ */
/* Global memory management                                            */
/* ------------------------------------------------------------------ */

/** A global address. 0 is ACP_GA_NULL and never names a byte. */
typedef uint64_t acp_ga_t;
/** The key of one registration of this process. 0 is ACP_ATKEY_NULL. */
typedef uint64_t acp_atkey_t;

#define ACP_GA_NULL 0LLU
#define ACP_ATKEY_NULL 0LLU

/*
 * GA layout. A GA is  1 + (rank << 44 | tag << 34 | offset):
 *
 *    63            44 43      34 33                          0
 *   +----------------+----------+-----------------------------+
 *   |  rank (20 bit) | tag (10) |       offset (34 bit)       |   (+1)
 *   +----------------+----------+-----------------------------+
 *
 *   rank    0 .. 2^20-1        (1,048,576 processes)
 *   tag     0 .. 1023          tag 0 is the starter memory; tags 1..1023
 *                              are the registrations made with
 *                              acp_register_memory (so 1024 live
 *                              registrations per process, the starter
 *                              memory being one of them)
 *   offset  0 .. 2^34-1        byte offset in the registration (16 GiB)
 *
 * The +1 keeps every valid address away from ACP_GA_NULL while keeping
 * GA arithmetic: ga + n names the byte n past ga within one registration.
 * The one value lost to the +1 is the last byte of a 16 GiB tag-1023
 * registration on rank 2^20-1; acpx never hands it out.
 *
 * The 64 bits are fully used by the three limits (20 + 10 + 34), which is
 * why the starter memory counts among the 1024 registrations.
 */

/** Largest size of one registration: 16 GiB. */
#define ACP_MAX_REGISTRATION_SIZE (1ULL << 34)

/**
 * @return the GA of the first byte of @p rank's starter memory, computed
 * locally without communication; ACP_GA_NULL if rank is out of range.
 * The starter memory holds ACP_STARTER_MEMSIZE bytes, zeroed at acp_init.
 */
acp_ga_t acp_query_starter_ga(int rank);

/**
 * Registers [addr, addr+size) of this process so that other processes can
 * reach it. Not collective. Registrations may overlap.
 * With ACP_HUGEPAGES=1 (default 0), each 2 MiB-aligned block lying
 * wholly inside the range whose every page is already in memory is moved
 * onto one transparent huge page first (Linux 6.1+): the bytes and the
 * addresses stay, peers on this node copy into and out of it 2-3x faster,
 * and no page is added. That costs the call about 1-5 ms per block
 * (a 256 MiB array: 125-650 ms on the reference VM), once: worth it for
 * memory copied many times, not for a registration made for one copy
 * (ACP_HUGEPAGES=0). Allocate a large array 2 MiB-aligned (posix_memalign)
 * and write it before registering to have all of it so.
 * @param color must be in [0, acp_colors()).
 * @return a key, or ACP_ATKEY_NULL if addr is NULL, size is 0 or larger
 * than ACP_MAX_REGISTRATION_SIZE, [addr, addr + size) is not all mapped
 * memory of this process, color is out of range, or 1023 registrations
 * are already live.
 */
acp_atkey_t acp_register_memory(void *addr, size_t size, int color);

/**
 * Ends a registration. Every process that looked up this registration is
 * told before the call returns, and answers once the GMAs it had issued
 * into or from the registration are complete: when the call returns, no
 * copy of any process reaches the memory any more, and it may be freed or
 * reused. A GMA issued after that (a peer's late, racing copy) fails with a
 * message that the registration does not exist.
 * @return 0 on success; -1 if atkey is not a live key of this process, or
 * if GMAs issued by this process that use the registration are not yet
 * complete (complete them first; the registration stays live).
 */
int acp_unregister_memory(acp_atkey_t atkey);

/**
 * @return the GA of @p addr, which must lie in the registration of
 * @p atkey; ACP_GA_NULL otherwise.
 */
acp_ga_t acp_query_ga(acp_atkey_t atkey, void *addr);

/**
 * @return the local address of @p ga when the GA names a byte of this
 * process's live registrations; NULL otherwise (another rank's GA, an
 * unregistered tag, an offset past the registration, ACP_GA_NULL).
 */
void *acp_query_address(acp_ga_t ga);

/** @return the rank that owns @p ga, or -1 if no rank of this job does. */
int acp_query_rank(acp_ga_t ga);

/**
 * @return the color of the registration @p ga lies in, or -1 if @p ga does
 * not name a registered byte. May ask the owning rank.
 */
int acp_query_color(acp_ga_t ga);

/** @return the number of colors (memory kinds) usable here: 1. */
int acp_colors(void);

/* ------------------------------------------------------------------ */
/* Global memory allocation (ACP middle layer)                         */
/* ------------------------------------------------------------------ */

/**
 * Allocates @p size bytes of global memory on @p rank, which need not be
 * the caller: that rank's agent serves the request (one message round trip)
 * whatever its application is doing. The block is zeroed, starts at a
 * 64-byte boundary, and is registered: any rank reaches it with acp_copy
 * and the atomics, on-node peers by plain memory copies, and the owner
 * through acp_query_address(). It stays until acp_free() or acp_finalize.
 * Memory of a block that the owner registers again (acp_register_memory
 * of its address: a direct collective's array, a channel's buffer) is
 * reached as the block is, by plain copies on-node, where other memory
 * takes a system call per copy (Cross-Memory Attach): the way to the
 * fastest on-node collectives and copies.
 *
 * Memory: each rank's blocks come from arenas of its own (shared-memory
 * segments of 1 MiB, doubling per arena up to 64 MiB; a larger request
 * gets an arena of its size), each using one of the rank's 1023
 * registrations. Arenas are backed when made and kept until acp_finalize;
 * freed blocks are reused by best fit and merge with free neighbours.
 * A block wastes under 64 bytes to rounding.
 * A rank's arenas hold at most ACP_MALLOC_LIMIT bytes in all (by default
 * the node's memory divided by the job's processes on it).
 * @return the block's GA; ACP_GA_NULL, with a message naming the reason,
 * if @p size is 0 or over 16 GiB, @p rank is not in [0, acp_procs()), or
 * the owner cannot get the memory: ACP_MALLOC_LIMIT, the system's memory,
 * or its 1023 registrations.
 */
acp_ga_t acp_malloc(size_t size, int rank);

/**
 * Frees a block of acp_malloc(), on any rank (the owner's agent serves the
 * request; the call waits for its answer). ACP_GA_NULL is ignored.
 * Copies into the block that are still in flight land in memory that may
 * already be another block's: complete them first, as with free().
 * A GA that is not the start of a live block (freed already, inside a
 * block, registered by acp_register_memory, another job's rank) is
 * reported, naming why, and nothing is freed.
 */
void acp_free(acp_ga_t ga);

/* ------------------------------------------------------------------ */
/* Global memory access (GMA)                                          */
/* ------------------------------------------------------------------ */

/** A GMA handle. Handles of one process grow by one per GMA from 1. */
typedef int64_t acp_handle_t;

/** No handle: the failure value, and "no ordering" as an order. */
#define ACP_HANDLE_NULL 0x0000000000000000LL
/** As order or to acp_complete/acp_inquire: the last GMA issued so far. */
#define ACP_HANDLE_ALL ((acp_handle_t)0xffffffffffffffffLLU)
/** As order: the last GMA issued so far (continue after it). */
#define ACP_HANDLE_CONT ((acp_handle_t)0xfffffffffffffffeLLU)

/**
 * Copies @p size bytes from @p src to @p dst. Both may belong to any rank,
 * this one or others. Returns at once; the copy proceeds in the background
 * (the progress agents of the ranks involved carry it). The source bytes
 * must not change, and the destination bytes must not be read, until the
 * copy is complete.
 *
 * Ordering: with @p order = h (a handle issued by this process, or
 * ACP_HANDLE_ALL / ACP_HANDLE_CONT for the last one issued), the copy starts
 * only after GMA h and every GMA this process issued before h are complete.
 * ACP_HANDLE_NULL: no ordering. (Where the copy and all of those are small
 * puts to one rank on another node, acpx may issue it at once behind the
 * transport's fence: that rank still sees its bytes after theirs.)
 *
 * Completion means the bytes are at the destination, visible to every
 * process (remote completion). When neither GA is this process's, the bytes
 * go from the source's rank straight to the destination's rank (the
 * source's agent writes them); they never pass through this process.
 *
 * @return the handle of the copy; ACP_HANDLE_NULL if a GA is ACP_GA_NULL,
 * names an unknown rank or an unregistered tag, [GA, GA+size) passes the
 * end of its registration, or @p order was not yet issued. size 0 is a
 * valid copy that moves nothing.
 */
acp_handle_t acp_copy(acp_ga_t dst, acp_ga_t src, size_t size, acp_handle_t order);

/*
 * Atomics. Each applies one operation atomically at @p src (any rank) and
 * writes the value @p src held before into @p dst, which must be this
 * process's registered memory. Atomic with respect to every other acpx
 * atomic on the same address. src and dst must be aligned to the operand
 * size. Ordering and failure values as for acp_copy.
 *   cas:  if *src == oldval then *src = newval
 *   swap: *src = value;  add: *src += value;  xor/or/and: *src op= value
 */
acp_handle_t acp_cas4(acp_ga_t dst, acp_ga_t src, uint32_t oldval, uint32_t newval, acp_handle_t order);
acp_handle_t acp_cas8(acp_ga_t dst, acp_ga_t src, uint64_t oldval, uint64_t newval, acp_handle_t order);
acp_handle_t acp_swap4(acp_ga_t dst, acp_ga_t src, uint32_t value, acp_handle_t order);
acp_handle_t acp_swap8(acp_ga_t dst, acp_ga_t src, uint64_t value, acp_handle_t order);
acp_handle_t acp_add4(acp_ga_t dst, acp_ga_t src, uint32_t value, acp_handle_t order);
acp_handle_t acp_add8(acp_ga_t dst, acp_ga_t src, uint64_t value, acp_handle_t order);
acp_handle_t acp_xor4(acp_ga_t dst, acp_ga_t src, uint32_t value, acp_handle_t order);
acp_handle_t acp_xor8(acp_ga_t dst, acp_ga_t src, uint64_t value, acp_handle_t order);
acp_handle_t acp_or4(acp_ga_t dst, acp_ga_t src, uint32_t value, acp_handle_t order);
acp_handle_t acp_or8(acp_ga_t dst, acp_ga_t src, uint64_t value, acp_handle_t order);
acp_handle_t acp_and4(acp_ga_t dst, acp_ga_t src, uint32_t value, acp_handle_t order);
acp_handle_t acp_and8(acp_ga_t dst, acp_ga_t src, uint64_t value, acp_handle_t order);

/**
 * Waits until GMA @p handle and every GMA issued before it by this process
 * are complete. ACP_HANDLE_ALL: every GMA issued so far. A handle that is
 * already complete returns at once. Invalid handles (not yet issued,
 * negative) print an error and return. A wait that hears nothing for
 * ACP_TIMEOUT seconds (neither a completion nor the answer of the rank it
 * waits for to a liveness probe) ends the job, naming the GMA and the
 * rank not heard from.
 *
 * Failures. A GMA that fails (the transport or the kernel reports an
 * error, the executing rank refuses it, its peer is gone) is complete but
 * not successful: its destination bytes are undefined; as after a
 * success, nothing reads its source any more (a put sent in pieces fails
 * once the transport has let go of every piece). When it completes,
 * one line on stderr names it, the ranks and the reason
 * ("acpx: acp_copy: GMA 12: put of 8 bytes from rank 0 to rank 1 failed:
 * ..."). A GMA ordered after a failed one (its @p order names it) is not
 * executed and fails too, and so on down the chain; GMAs not ordered
 * after it run as usual. acp_inquire() tells a failed handle from a
 * successful one, acp_query_failed() finds failures among many.
 */
void acp_complete(acp_handle_t handle);

/**
 * @return 0 if GMA @p handle and every GMA issued before it are complete
 * and GMA @p handle succeeded; 1 if not yet complete; -1 if GMA @p handle
 * failed (see acp_complete) or @p handle is invalid (which prints an
 * error). Makes progress, also when @p handle is complete: calling it in
 * a loop that reads this process's memory is how to wait for a peer's put
 * (a put from another node may be a message that only this process's
 * progress stores). Never waits; an empty poll yields the core where
 * ACP_IDLE says so. A small put to another node completes when its target
 * acknowledges it, in batches or with the target's own puts back; a poll
 * asks for the acknowledgement once the put has been in flight 20 us.
 */
int acp_inquire(acp_handle_t handle);

/**
 * @return the lowest handle in [@p first, @p last] whose GMA is complete
 * and failed, or ACP_HANDLE_NULL if there is none (complete @p last first
 * to know that none of them failed). @p last may be ACP_HANDLE_ALL. Also
 * ACP_HANDLE_NULL, with an error printed, for an invalid range. Makes
 * progress; never waits.
 */
acp_handle_t acp_query_failed(acp_handle_t first, acp_handle_t last);

/* ------------------------------------------------------------------ */
/* Persistent collectives (the middle layer)                           */
/* ------------------------------------------------------------------ */
/*
 * A persistent collective is created once, run any number of rounds
 * (send, then wait), and freed. Create registers memory and exchanges
 * global addresses once; a round then moves bytes only.
 *
 * Groups: `group` lists np_group distinct ACP ranks in any order; a
 * member's index in it is its position. Only members call create, all of
 * them, with the same arguments (create is collective over the group and
 * blocks until every member has called it). Members whose arguments
 * disagree all get ACP_COL_NULL with a message naming the first
 * difference; a member that never calls create makes the others fail
 * after ACP_TIMEOUT, naming it. Create blocks until every member called
 * it, so members call the creates of the handles they share in the same
 * order (as with MPI communicators); a create is matched by its set of
 * members and their count of creates on it, never with another group's.
 *
 * direct handles move bytes straight between the users' arrays, which
 * create registers (they must stay valid until acp_free_col). buffered
 * handles own a buffer per member (acpx allocates it; on-node peers map
 * it); any array can be sent each round, and a round larger than the
 * buffer goes in segments of buffersize bytes, one after the other. A
 * buffered handle's rounds between members of one node go from the
 * sender's array into the receivers' (Cross-Memory Attach above the
 * inline slots), as a direct handle's; the buffers carry the rounds
 * between nodes and in root mode.
 *
 * Round safety: a round never writes into a member's array or buffer
 * before that member has finished its previous round and called send for
 * this one. acp_wait_col returns when this member's part of the round is
 * done: its array holds the round's data, and nothing reads its array
 * any more (it may change it again, root included).
 *
 * Execution (ACP_COL_EXEC, read at every create, so it can change between
 * creates; all members must agree):
 *   delegated (default)  each member executes the entries of the command
 *                        list whose source it holds, as soon as their data
 *                        arrived here and their receiver called send.
 *   root                 the root (allgather: each member for its own
 *                        block) issues every entry with acp_copy, ordered
 *                        by dependencies, executed by the source's agent.
 * Algorithm (see ACP_COL_BCAST_ALGO above; acp_query_col_algorithm tells
 * which a handle got): unless forced, create picks the one the model of
 * the collectives predicts fastest for the handle's size (arraysize,
 * blocksize or buffersize) from the calibration file and ACP_TOPOLOGY
 * (collision-aware on meshes and tori) of the group's lowest rank, which
 * sends its choice to the others. Allgather groups above 1024 members
 * weigh ring, bruck, neighbor and (over a power of two) recdoubling only
 * (the others' models walk every block's list); above 131072 members they
 * take, without modelling, "bruck" for blocks under 128 bytes, else
 * "neighbor" (or "ring" for an odd group).
 * acprun -v prints each choice.
 *
 * A round moves forward inside acp_send_*, acp_test_col and acp_wait_col
 * of the members (any handle's), and, with ACP_PROGRESS=agent (the
 * default), in each member's progress thread while the member is out of
 * this layer's calls: once every member has called send, the round
 * completes without another call of any member (seed 002's remote
 * execution), and its acp_wait_col then returns at once. The thread and
 * the calls never run rounds at the same time: a call entered while the
 * thread polls waits for that poll. The thread looks at the rounds in
 * flight rarely while the application is in its calls (they move the
 * rounds themselves; the looks' spacing doubles up to 10 ms), every 50 us
 * once it is away (between a send and its wait; every millisecond on
 * kernels before Linux 5.11), and polls them while they move. Each look
 * takes the core it shares with the application for a wake-up, so a
 * round shorter than ~100 us still finishes in the wait.
 *
 * Small rounds travel through the members' control blocks, eagerly: a
 * sender may deliver round n+1 there while a receiver still finishes
 * round n; the receiver copies them into its array in its own calls.
 * Small is up to ACP_COL_INLINE bytes per block; by default 8 KiB on one
 * node with a core per rank (above, one copy straight into the receiver's
 * array is faster than two through the slots) and, for a group across
 * nodes or on a node whose ranks outnumber its cores (there a sender
 * runs ahead of members waiting for a core), 64 KiB for bcast trees and
 * 16 KiB for allgathers (an allgather's at most 1 MiB / np_group and at
 * least 256 bytes; no slot is larger than the handle's size, rounded up
 * to 64 bytes). A bcast's control blocks hold several such
 * rounds (depth: 32 for handles of up to 112 bytes on one node with a
 * core per rank, else 64; 64 up to 512 bytes, 32 up to 1 KiB, 16 up
 * to 2 KiB, 8 up to 4 KiB, 4 up to 8 KiB, else 2; for a group across
 * nodes at least 16, as many as fit in 128 KiB: 8 up to 16 KiB, 4 up to
 * 32 KiB; and, for handles over 1 KiB, 32 more for rounds of up to 48
 * bytes, across nodes or on a crowded node 64 for handles over 512
 * bytes; at most ACP_COL_RING_DEPTH), so its root's waits
 * return while members are up to depth - 1 rounds behind; the next
 * round's wait then waits for the slowest. A member that never calls send
 * is named by the wait of round depth, or by acp_free_col.
 * Such a round's sender to members on other nodes ends its part once its
 * copies have left (the transport holds their bytes), not once they are
 * known to have landed, a network round trip later (as an MPI eager
 * send): a copy of round n that fails after that makes a later round of
 * the handle, or acp_free_col, return -1 naming round n; its receivers'
 * round n fails or times out there.
 * Delegated (the default), a group across nodes also sends larger rounds
 * eagerly, up to 64 KiB per block over UCX (32 KiB over libfabric, whose
 * larger messages go slower than its RMA), to members on other nodes: the block
 * goes as one message that the receiver's progress holds (memory of its
 * own, not the handle's: at most depth - 1 rounds' blocks per sender and
 * handle, while the receiver lags) until the receiver copies it into its
 * array in its own calls; such rounds go as far ahead as the ring above
 * lets them (a pooled handle's: below).
 * (An allgather's blocks of 16-64 KiB so no longer wait for each
 * receiver's send, a network message, every round.)
 *
 * A delegated (the default) handle, an allgather's on one node, does not
 * keep slots for its rounds where, ACP_COL_POOL unset, it is larger than
 * its inline slots would be (with a core per rank: over 8 KiB) or,
 * ACP_COL_INLINE unset, a bcast over 4 KiB or an allgather over 1 KiB (on
 * a node whose ranks outnumber its cores: an allgather only over its
 * slots), or a bcast over 48 bytes whose members are each alone on
 * their nodes (one rank per node); with ACP_COL_POOL set to a size, none
 * keeps them. A round
 * over 48 bytes does not go into the receivers' slots: its sender copies it once into its
 * process's eager pool (ACP_COL_POOL, shared by every handle, mapped by
 * on-node peers) and stores where into their slots; each receiver copies
 * it out and marks it read at the end of its round. To members on other
 * nodes it goes as a held put (above), up to that cap. Such a handle's
 * slots are 48 bytes (one cache line with the stamps) whatever its
 * size: 32 a block for a bcast tree (64 across nodes, as a small
 * handle's there), 2 for an allgather (a 64 KiB bcast handle queries
 * 3.1 KB on one node, 5.2 KB across nodes; without the pool 38 KB and
 * 137 KB); its rounds over
 * 48 bytes go as far ahead as the ring of a handle of their size would
 * (31 rounds of up to 512 bytes, 3 of 8 KiB; across nodes 63 of up to
 * 512 bytes, 15 of 8 KiB, 3 of 32 KiB; where the members are alone on
 * their nodes, 31 of any size). A round that finds the
 * pool full waits for its receivers' send and
 * goes into their arrays or buffers as a larger round does. On 2 ranks
 * a core each, pooled bcast rounds of 64 B take 1.3-1.45x as long as
 * through the handle's own slots, 128 B-1 KiB 0.8-1.2x, 2-4 KiB 1.0-1.2x,
 * 8 KiB 0.65-0.9x; allgather rounds of 256 B-2 KiB 0.86-1.04x, 4-8 KiB
 * 0.8-0.93x (doc/measurements/2026-12-07-eager-pool-warm-lines.md,
 * doc/measurements/2026-12-07-rings-of-small-handles.md): hence the
 * sizes above; a smaller handle keeps its slots (an 8 B bcast handle
 * queries 3.1 KB, a 64 B one 5.2 KB, 1-4 KiB 34-36 KB).
 *
 * Memory per handle (acp_query_col_memory tells it exactly): a control
 * block of 64 + depth x (16 + inline) bytes (pooled handles, above: inline
 * 48 and depth 32 or 2; bcast trees: inline is the
 * handle's size rounded up to 64 bytes (up to 48 bytes 48 and up to 112
 * 112: one and two cache lines with the 16), at most the cap above, and depth x inline
 * at most 32 KiB where depth > 2, 128 KiB across nodes (1 KiB x 32 for
 * a delegated bcast whose members are alone on their nodes, ACP_COL_POOL=0); over 1 KiB, + 32 x
 * 64 bytes of the small rounds' ring, over 512 bytes 64 x 64 across nodes or
 * crowded), 64 + 32 x blocks
 * (pipeline, scatter_ring) or 64 + (32 + 2 x inline) x np_group bytes
 * (allgather; inline as a bcast tree's, up to its cap), plus:
 *   root mode, every member: 8 bytes a slot of its deepest ring a block
 *     (the executor's notices that copies from it are done);
 *   root mode, bcast root / every allgather member: 11 bytes per member
 *     (GA, control tag, ready byte; 16 more for each member whose control
 *     block lies elsewhere in its arena than most members'), and the command list: binomial and
 *     knomial none (each entry is computed as it is issued: ~11 MB at
 *     10^6 members), other algorithms 12 bytes an entry (np_group - 1
 *     entries a list);
 *   root mode, other bcast members: independent of np_group;
 *   delegated mode: 56 bytes per entry the member executes (binomial: its
 *     children, binary tree: at most 2);
 *   buffered: buffersize (bcast) or np_group x buffersize (allgather).
 * Control blocks are blocks (64-byte lines) of arenas this process shares
 * with its node, one registration per arena, not one per handle: create
 * and free cost no segment, registration or message of their own. A
 * member's resident memory also holds the lines of on-node peers' control
 * blocks it writes into (shared pages: a few KB a pooled handle per rank
 * in the job's proportional set size; figures in
 * doc/measurements/2026-12-06-control-blocks-in-arenas.md). A freed handle's block goes to the next create once
 * no peer can write into it any more: at once on one node (the free saw
 * its receivers' last ready bytes), when the last ready bytes of
 * receivers on other nodes land (they send them at their own free); a
 * handle freed after a round that timed out, or whose receivers on its
 * node did not start its last round within ACP_TIMEOUT, keeps its block
 * until acp_finalize. The arenas' address space is kept until
 * acp_finalize (acpx-bench memory: control_arenas); the whole pages of
 * their free blocks go back to the system at each free, and are backed
 * again (or the create fails, saying so) when a block reuses them.
 * A buffered handle's buffer is a block of the same arenas: it goes back
 * at free, but a handle's that timed out, kept as its control block.
 * Registrations: a direct handle's array is registered once for every
 * live handle over the same bytes (1023 a process: acp_register_memory);
 * buffered handles take none of their own.
 *
 * Errors: every function prints "acpx: <function>: <argument>: <reason>"
 * and returns ACP_COL_NULL, ACP_REQUEST_NULL or -1. Bad input leaves
 * everything usable. A wait or test past ACP_TIMEOUT returns -1 naming
 * the handle, the round and the ranks not heard from; the handle can
 * then only be freed. A buffered round's arrays are not written after its
 * wait returns, even one that timed out (a sender caught inside its copy
 * holds that wait until the copy ends, at most ACP_TIMEOUT more, and is
 * then named); nor are a direct round's from members of its node in
 * delegated mode above the inline slots (ACP_COL_PULL=1: each member
 * reads its block itself, in its own round, or its part of it while a
 * root writes the rest, as a buffered sender does; a block read after its
 * sender's round ended fails the reader's round). A direct round's array
 * may otherwise take a late sender's bytes until the handle is freed.
 */
typedef struct acp_col_s *acp_col_t;
typedef struct acp_request_s *acp_request_t;
#define ACP_COL_NULL ((acp_col_t)0)
#define ACP_REQUEST_NULL ((acp_request_t)0)

/**
 * Broadcast of byte ranges of `array` (arraysize bytes on every member)
 * from `root`, a member. @return the handle, or ACP_COL_NULL.
 */
acp_col_t acp_create_bcast_direct(int root, int np_group, int *group, void *array, size_t arraysize);
/**
 * One round: bytes [offset, offset+size) of the root's array land in the
 * same range of every member's array. Every member calls it with the same
 * offset and size. @return the round's request, or ACP_REQUEST_NULL if
 * the range passes arraysize, or this handle's previous round is not
 * finished here.
 */
acp_request_t acp_send_bcast_direct(acp_col_t handle, size_t offset, size_t size);

/** Broadcast through library buffers of `buffersize` bytes (> 0). */
acp_col_t acp_create_bcast_buffered(int root, int np_group, int *group, size_t buffersize);
/**
 * One round: `size` bytes of the root's `array` land in every member's
 * `array` (any memory, any size; above buffersize it goes in segments).
 */
acp_request_t acp_send_bcast_buffered(acp_col_t handle, void *array, size_t size);

/**
 * Allgather over `array`: np_group blocks of `blocksize` bytes, block i
 * belonging to group[i] (the same layout on every member).
 */
acp_col_t acp_create_allgather_direct(int np_group, int *group, void *array, size_t blocksize);
/**
 * One round: bytes [offset, offset+size) of every member's own block land
 * in the same range of that block on every member.
 */
acp_request_t acp_send_allgather_direct(acp_col_t handle, size_t offset, size_t size);

/** Allgather through library buffers of np_group x buffersize bytes. */
acp_col_t acp_create_allgather_buffered(int np_group, int *group, size_t buffersize);
/**
 * One round: every member's `size` bytes at `sendbuf` land in every
 * member's `recvbuf` (np_group x size bytes, in group order). sendbuf
 * may be this member's own block of recvbuf (recvbuf + index x size: in
 * place, as MPI_IN_PLACE; nothing is copied for it); otherwise it must
 * not overlap recvbuf (ACP_REQUEST_NULL, reported).
 */
acp_request_t acp_send_allgather_buffered(acp_col_t handle, const void *sendbuf, void *recvbuf, size_t size);

/**
 * Waits until this member's part of the request's round is done.
 * @return 0; -1 if the round failed: ACP_TIMEOUT passed (naming the
 * handle, the round and the ranks not heard from), members' send sizes
 * or offsets disagree (on each member that disagrees with the rank its
 * data comes from, and on every member whose data came through it), a
 * copy of the round failed (on the member that issued it, naming the
 * block and the receiver, and on every member whose data came
 * through it, at once), or the request's handle was freed. After -1 the
 * bytes this member receives in that round are undefined; unless the
 * round timed out (which makes the handle unusable), the next round on
 * the handle works. A request of a round that is already finished
 * returns at once.
 */
int acp_wait_col(acp_request_t request);

/** @return 1 if done, 0 if not yet, -1 as acp_wait_col. Never waits. */
int acp_test_col(acp_request_t request);

/**
 * Frees the handle: unregisters and releases its memory. Local (not
 * collective). Its last round must be finished here; no member may send
 * on it again. First waits, at most ACP_TIMEOUT, until every member of
 * this node this one sends to has called send for that round (a bcast root
 * runs ahead of them, see above): their signals still come into its
 * memory. Members on other nodes send their last signal at their own
 * free: the memory they write stays registered until it has come (it is
 * released in a later call of the middle layer, or at acp_finalize), so
 * members may free their handles in any order.
 * @return 0, or -1 (reported) for a handle that is not live, or for one
 * whose members did not catch up (named; it is freed anyway).
 */
int acp_free_col(acp_col_t handle);

/**
 * @return the bytes this process holds for the handle (control block,
 * command list and GA tables, buffers); 0 for a handle that is not live.
 */
size_t acp_query_col_memory(acp_col_t handle);

/**
 * @return the name of the handle's algorithm ("binomial", "knomial:4",
 * "hier:binomial", "bruck", ...; as ACP_COL_*_ALGO takes them), valid until the handle is
 * freed; NULL for a handle that is not live.
 */
const char *acp_query_col_algorithm(acp_col_t handle);

/**
 * Forces the algorithm of the handles this process creates from now on,
 * per kind, over ACP_COL_BCAST_ALGO / ACP_COL_ALLGATHER_ALGO: a name
 * forces it, "auto" lets the model choose, "" returns to the environment
 * variable, NULL leaves that kind as it is. Every member of a group must
 * make the same choice (create fails otherwise, naming it). Local, not
 * collective. @return 0, or -1 (reported, nothing changed) on an unknown
 * name.
 */
int acp_set_col_algorithm(const char *bcast, const char *allgather);

/*
 * Persistent allreduce: every member's vector of `count` elements of
 * `type`, combined element by element with `op`, lands in every member's
 * recvbuf. Buffered: any sendbuf and recvbuf each round (equal: in
 * place); create allocates the control block, in which each member has,
 * for each round parity, one landing slot (an 8-byte stamp, then the
 * vector) per exchange it receives.
 *
 * Algorithm "butterfly" (recursive doubling): with P2 the largest power
 * of two <= np_group, member i >= P2 first sends its vector to member
 * i - P2, which combines op(its own, that one); then K = log2(P2)
 * stages, in stage s member i and member i XOR 2^s exchange partials and
 * each computes op(lower member's, upper member's); then member i - P2
 * sends the result to member i. The order of every operation is fixed,
 * so every member gets bit-identical results: those of the balanced
 * pairwise tree over the members in group order. A round is K (+2)
 * sends per member, each a plain store into an on-node peer's mapped
 * block, one message to another node (up to 64 KiB), or acp_copy and its
 * stamp ordered after it; no ready signals (a slot is written once per
 * round, and its round-parity twin only after its reader finished the
 * round before). Rounds run delegated.
 * Algorithm "rabenseifner": the same fold and K stages, each exchanging
 * only half of the range a member still reduces (the lower member keeps
 * the lower half; each element is combined in the butterfly's order, so
 * results are the same bits), then K stages in reverse that gather the
 * reduced ranges: 2 x (1 - 1/P2) of the vector sent per member, where the
 * butterfly sends it K times. "auto" (the default) picks the faster of
 * the two by the model (the calibration's copies and memcpy, across
 * nodes its network curves); butterfly:M,L is forced only.
 *
 * Ops: SUM of integers wraps (two's complement); of doubles in IEEE
 * order, lower member first. MAX and MIN of doubles: a NaN in any
 * member's vector makes that element NaN; MAX(-0.0, +0.0) is +0.0, MIN
 * -0.0.
 * Memory: a control block of 64 + 2 x slots x stride bytes (stride: the
 * vector, count x size rounded up to 8, after its 8-byte stamp, from the
 * next 64 bytes when over 56, rounded up to 64; slots: K, +1 for a member
 * that folds one in, 1 for one folded in; with butterfly:M,L, K + M + L;
 * rabenseifner: 2K slots, stage s's and its gathering twin's of at most
 * ceil(count / 2^(s+1)) elements), plus a registered copy of each vector
 * (or range) sent by acp_copy: to an on-node member whose block is not
 * mapped here, or over 64 KiB to another node.
 * count 0 is valid: a round does nothing. count x size must be at most
 * 16 GiB. Members must agree on count, type, op and the algorithm.
 */
#define ACP_TYPE_INT32 1
#define ACP_TYPE_INT64 2
#define ACP_TYPE_DOUBLE 3
#define ACP_OP_SUM 1
#define ACP_OP_MAX 2
#define ACP_OP_MIN 3
/** @return the handle, or ACP_COL_NULL (bad type, op, count, group). */
acp_col_t acp_create_allreduce(int np_group, int *group, size_t count, int type, int op);
/**
 * One round: op over every member's `count` elements at sendbuf into
 * recvbuf (in place if they are equal; otherwise they must not overlap).
 * @return the round's request (acp_wait_col, acp_test_col), or
 * ACP_REQUEST_NULL for a NULL or overlapping buffer, or a previous round
 * not finished here.
 */
acp_request_t acp_send_allreduce(acp_col_t handle, const void *sendbuf, void *recvbuf);
/**
 * Forces the algorithm of the allreduce handles this process creates from
 * now on, over ACP_COL_ALLREDUCE_ALGO ("" returns to it). Local. @return
 * 0, or -1 (reported, nothing changed) on an unknown name.
 */
int acp_set_col_allreduce_algorithm(const char *name);

/* ------------------------------------------------------------------ */
/* One-call collectives                                                */
/* ------------------------------------------------------------------ */
/*
 * Blocking, MPI-like: each returns once this member's part is done (its
 * array or recvbuf holds the result), 0, or -1 (reported once, under its
 * own name; a failed create or eviction of a cached handle is reported
 * first under acp_create_* or acp_free_col). Every member of
 * the group calls them in the same order, with the same root, size,
 * blocksize, count, type and op; arrays may differ from call to call and
 * from member to member.
 * Behind them, a cache of persistent handles per group (seed 002: create
 * happens inside the first call): buffered handles (bcast, allgather)
 * whose buffer is the round's bytes rounded up to a power of two (64 B to
 * 1 MiB; larger rounds go through it in pipelined segments), and
 * allreduce handles, keyed by what every member passes alike: never an
 * array's address, so every member finds, creates and evicts the same
 * handle at the same call without a message. Per group at most ENTRIES
 * handles and BYTES of their buffers (ACP_COL_CACHE=ENTRIES[:BYTES],
 * default 16:64M: a bcast counts its buffer, an allgather 2 x np_group
 * blocks, an allreduce 2 x the vector); past either the least recently
 * used go (acp_free_col), on every member at the same call. A call whose
 * round fails returns -1 where acp_wait_col would (a failed copy: its
 * issuer and the members below it) and keeps its handle, whose next round
 * works. A round that timed out (a member not heard from) leaves its
 * handle unusable where it timed out, while the members where it ended in
 * time keep theirs: their caches differ from then on. So on a member
 * where a call timed out, every later one-call collective of that group
 * fails at once, naming it, and that member tells the group's other
 * members (a message): from its arrival their calls of the group fail at
 * once too, naming the member, and a call of theirs that waits ends then
 * (before its own ACP_TIMEOUT). Explicit handles and other groups still
 * work.
 * The first call of a key costs a create (a message exchange
 * through the group); the others cost a buffered round of an explicit
 * handle (2 ranks on one node: bcast 1 B-4 KiB 1.00-1.07x, allgather
 * 1 B-256 KiB 0.94-1.09x of acp_send_*_buffered + acp_wait_col).
 * acp_allgather's sendbuf may be this member's block of recvbuf
 * (in place, as acp_send_allgather_buffered's): then nothing copies it,
 * and a round costs what a direct handle's does (2 ranks on one node,
 * 16 KiB-1 MiB: 0.87-1.05x; with sendbuf apart 1.3-1.7x, the own
 * block's copy). The handles live until acp_finalize.
 */
int acp_bcast(int root, int np_group, int *group, void *array, size_t size);
int acp_allgather(int np_group, int *group, const void *sendbuf, void *recvbuf, size_t blocksize);
int acp_allreduce(int np_group, int *group, const void *sendbuf, void *recvbuf, size_t count, int type, int op);

/* ------------------------------------------------------------------ */
/* Channels (ACP middle layer)                                         */
/* ------------------------------------------------------------------ */
/*
 * A channel carries messages from one rank (the sender) to another (the
 * receiver), in order. Both call acp_create_ch(sender, receiver): the
 * n-th such call on the sender pairs with the n-th on the receiver; there
 * may be any number of channels per pair. Create does not wait for the
 * peer. A message moves inside the two ends' channel calls (any channel's
 * acp_wait_ch, acp_nbsend_ch, acp_nbrecv_ch), not in the agents.
 *
 * Messages of up to 1 KiB travel eagerly: a send completes once its bytes
 * are in the receiver's slot (4 slots: a fifth send waits until the
 * receiver has taken the first). A larger one is pulled by the receiver
 * from the sender's buffer, registered meanwhile; its send completes when
 * the receiver has it. A message larger than the receive buffer is
 * truncated to it; acp_wait_ch returns the received size.
 * Memory: each end holds one block of acp_malloc memory on its own rank,
 * 4,384 bytes at the receiver (the slots), 4,416 at the sender (the slot
 * images it copies from), and about 250 bytes of bookkeeping. The buffers of large
 * messages stay registered (up to 8 per end, the least recently used
 * unregistered first) until the channel is freed: a buffer used again
 * costs no registration. Unmapping such a buffer while its channel lives
 * is as with any registered memory: a copy from it fails.
 * A request that waits ACP_TIMEOUT seconds without its channel moving
 * fails, naming the peer it waits for. A copy of a message that fails
 * (the transport's error) fails its request and breaks the channel on
 * both ends at once: their pending requests fail saying so, new sends and
 * receives are refused, and the ends can only be freed.
 * Requests of channels and of collectives are one type (acp_request_t);
 * acp_wait_ch takes only a channel's.
 */
typedef struct acp_ch_s *acp_ch_t;
#define ACP_CH_NULL ((acp_ch_t)0)

/**
 * Creates this rank's end of a channel from @p sender to @p receiver.
 * @return the handle; ACP_CH_NULL (reported) if a rank is out of range,
 * sender equals receiver, or this rank is neither.
 */
acp_ch_t acp_create_ch(int sender, int receiver);

/**
 * Starts a send of @p size bytes from @p buf (unchanged until the send
 * completes). @return a request; ACP_REQUEST_NULL (reported) if @p ch is
 * not live, being freed or broken, this rank is not its sender, or buf is
 * NULL with size > 0.
 */
acp_request_t acp_nbsend_ch(acp_ch_t ch, void *buf, size_t size);

/**
 * Starts the receive of the channel's next message into @p buf, at most
 * @p size bytes. @return a request, or ACP_REQUEST_NULL as for a send.
 */
acp_request_t acp_nbrecv_ch(acp_ch_t ch, void *buf, size_t size);

/**
 * Waits for a channel request. @return the received size for a receive,
 * 0 for a send or a free; (size_t)-1 (reported) if it failed (the peer
 * freed its end first, a copy failed, ACP_TIMEOUT) or is not a pending
 * channel request.
 */
size_t acp_wait_ch(acp_request_t request);

/**
 * Waits for @p n requests; @p sizes (may be NULL) gets each one's
 * acp_wait_ch result. @return 0, or -1 if any failed.
 */
int acp_waitall_ch(acp_request_t *requests, int n, size_t *sizes);

/**
 * Starts freeing this end: it completes once this end's earlier requests
 * have (it does not wait for the peer, so ranks may free their channels
 * in any order); its memory goes when the peer has freed its end too.
 * The peer's sends that its receiver never received, and receives its
 * sender never sent, fail then; a message that arrived here and was never
 * received fails this free, naming it. @return a request, or
 * ACP_REQUEST_NULL (reported) if @p ch is not live or being freed.
 */
acp_request_t acp_nbfree_ch(acp_ch_t ch);

/** acp_nbfree_ch and its wait. @return 0, or -1 (reported). */
int acp_free_ch(acp_ch_t ch);

/** acp_nbsend_ch and its wait. @return 0, or -1 (reported). */
int acp_send_ch(acp_ch_t ch, void *buf, size_t size);

/**
 * acp_nbrecv_ch and its wait. @return the received size (INT_MAX for a
 * larger one: acp_wait_ch returns it whole), or -1 (reported).
 */
int acp_recv_ch(acp_ch_t ch, void *buf, size_t size);

/* ------------------------------------------------------------------ */
/* Segmented buffers (ACP middle layer)                                */
/* ------------------------------------------------------------------ */
/*
 * A segmented buffer hands segments of a ring from a source rank to a
 * destination rank, one at a time, and back. Each end provides a buffer
 * of segnum segments of segsize bytes (the same on both ends): the source
 * writes segment k into its buffer at (k % segnum) * segsize, and
 * acp_ack_segbuf copies it to the same place in the destination's buffer;
 * the destination reads it there and gives it back with acp_ready_segbuf,
 * which lets the source reuse that place. Segments arrive whole and in
 * order; the destination sees segment k only once all its bytes are
 * there (a segment whose copy failed is never seen, nor any after it).
 *
 * The n-th acp_create_src_segbuf(d, ...) on rank s pairs with the n-th
 * acp_create_dst_segbuf(s, ...) on rank d; there may be any number per
 * pair. Create does not wait for the peer; acp_connect_segbuf does (up to
 * ACP_TIMEOUT). The queries and the ack and ready calls do not wait for
 * the peer; across nodes a ready may wait for the count it sent eight
 * readies before to have landed (its staging word is reused).
 *
 * Indices. head is where the segment the destination gives back next
 * starts, tail where the source's next ack goes, sent where the first
 * segment not yet known to have arrived sits; each is a segment number in
 * [0, segnum), so buf + index * segsize is its place on either end. They
 * start at 0 at connect. Empty (head == tail) and full are told apart by
 * acp_isacked_segbuf and acp_isready_segbuf.
 *
 * Return values follow ACP: 0 success (or "yes" for a query), 1 failure
 * (or "no"). The two polls return -1 where waiting is futile: a copy of
 * the pair failed, or the peer disconnected (said once on stderr); a loop
 * should test `== 1`, not `!= 0`.
 *
 * Memory: each end registers its buffer and holds one block of
 * acp_malloc memory on its own rank: the destination 8 * segnum + 64
 * bytes, the source 8 * segnum + 8; and about 300 bytes of bookkeeping.
 * Within a node, an ack is a copy of the segment (Cross-Memory Attach, or
 * a plain copy where the destination's buffer is acp_malloc memory) and a
 * store; across nodes two copies, the
 * second ordered after the first (and so after every GMA this rank issued
 * before it). Nothing moves in the agents but the transport's own copies:
 * the calls above do all the work.
 */
typedef struct acp_segbuf_s *acp_segbuf_t;
#define ACP_SEGBUF_NULL ((acp_segbuf_t)0)

/**
 * Creates this rank's end of a segmented buffer to @p dst_rank over @p buf
 * (@p segnum segments of @p segsize bytes; registered until the free).
 * @return the handle; ACP_SEGBUF_NULL (reported) if dst_rank is out of
 * range or this rank, buf is NULL, segsize or segnum is 0, or memory or
 * the registration fails.
 */
acp_segbuf_t acp_create_src_segbuf(int dst_rank, void *buf, size_t segsize, size_t segnum);

/** The destination's end, from @p src_rank; as acp_create_src_segbuf. */
acp_segbuf_t acp_create_dst_segbuf(int src_rank, void *buf, size_t segsize, size_t segnum);

/**
 * Waits until the peer has created its end (ACP_TIMEOUT at most). @return
 * 0; 1 (reported) on a timeout, if the two ends' segsize or segnum differ,
 * or if @p segbuf is not live or connected already.
 */
int acp_connect_segbuf(acp_segbuf_t segbuf);

/** @return 0 if connected (and neither end disconnected since), else 1. */
int acp_isconnected_segbuf(acp_segbuf_t segbuf);

/**
 * Source: hands the segment at tail over to the destination and moves
 * tail on. The bytes must not change until sent has passed the segment
 * (at the latest, until the destination gives it back). @return 0; 1 (reported) if no segment is ready (all
 * segnum handed over and not given back), a copy failed, the destination
 * disconnected, or this rank is not the source of a connected @p segbuf.
 */
int acp_ack_segbuf(acp_segbuf_t segbuf);

/**
 * Destination: gives the segment at head back to the source and moves
 * head on. @return 0; 1 (reported) if no segment has arrived, or as for
 * acp_ack_segbuf.
 */
int acp_ready_segbuf(acp_segbuf_t segbuf);

/**
 * Source: @return 0 if a segment is ready for acp_ack_segbuf, 1 if not
 * yet, -1 if none will be (see above) or @p segbuf is not the source of a
 * connected pair (reported).
 */
int acp_isready_segbuf(acp_segbuf_t segbuf);

/**
 * Destination: @return 0 if a segment has arrived (at head), 1 if not
 * yet, -1 if none will (a copy failed; the source disconnected and every
 * segment it sent was given back) or as for acp_isready_segbuf.
 */
int acp_isacked_segbuf(acp_segbuf_t segbuf);

/** @return head (see above), or -1 (reported) if not connected. */
int64_t acp_query_segbuf_head(acp_segbuf_t segbuf);

/** @return tail, or -1 (reported) if not connected. */
int64_t acp_query_segbuf_tail(acp_segbuf_t segbuf);

/**
 * Source: @return sent (segments before it have arrived, so their
 * source bytes may change), or -1 (reported) on the destination.
 */
int64_t acp_query_segbuf_sent(acp_segbuf_t segbuf);

/**
 * Ends the connection: the source first waits (ACP_TIMEOUT at most) until
 * its segments have arrived. Not waiting for the peer, so ranks may
 * disconnect in any order. @return 0; 1 (reported) if not connected,
 * disconnected already, or a copy of this end's failed.
 */
int acp_disconnect_segbuf(acp_segbuf_t segbuf);

/**
 * Frees this end (disconnected, or never connected); the buffer is
 * unregistered and the block goes once the peer has disconnected too.
 * @return 0; 1 (reported) if connected or not live.
 */
int acp_free_segbuf(acp_segbuf_t segbuf);

#ifdef __cplusplus
}
#endif

#endif /* ACP_H */
