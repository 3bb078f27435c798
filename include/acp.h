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
 * that exceeds ACP_TIMEOUT seconds -- end the job: acpx prints which
 * operation waited for which rank and calls acp_abort().
 *
 * Environment (acpx-info lists every variable with its default):
 *   ACP_TRANSPORT        transport: "ucx" (default)
 *   ACP_STARTER_MEMSIZE  bytes of starter memory per process (default 65536)
 *   ACP_TIMEOUT          seconds any internal wait may last (default 60)
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

#define ACP_GA_NULL    0LLU
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
 * @param color must be in [0, acp_colors()).
 * @return a key, or ACP_ATKEY_NULL if addr is NULL, size is 0 or larger
 * than ACP_MAX_REGISTRATION_SIZE, color is out of range, or 1023
 * registrations are already live.
 */
acp_atkey_t acp_register_memory(void *addr, size_t size, int color);

/**
 * Ends a registration. Every process that looked up this registration is
 * told before the call returns, so the tag can safely be reused.
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
 * ACP_HANDLE_NULL: no ordering.
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
acp_handle_t acp_copy(acp_ga_t dst, acp_ga_t src, size_t size,
                      acp_handle_t order);

/*
 * Atomics. Each applies one operation atomically at @p src (any rank) and
 * writes the value @p src held before into @p dst, which must be this
 * process's registered memory. Atomic with respect to every other acpx
 * atomic on the same address. src and dst must be aligned to the operand
 * size. Ordering and failure values as for acp_copy.
 *   cas:  if *src == oldval then *src = newval
 *   swap: *src = value;  add: *src += value;  xor/or/and: *src op= value
 */
acp_handle_t acp_cas4(acp_ga_t dst, acp_ga_t src, uint32_t oldval,
                      uint32_t newval, acp_handle_t order);
acp_handle_t acp_cas8(acp_ga_t dst, acp_ga_t src, uint64_t oldval,
                      uint64_t newval, acp_handle_t order);
acp_handle_t acp_swap4(acp_ga_t dst, acp_ga_t src, uint32_t value,
                       acp_handle_t order);
acp_handle_t acp_swap8(acp_ga_t dst, acp_ga_t src, uint64_t value,
                       acp_handle_t order);
acp_handle_t acp_add4(acp_ga_t dst, acp_ga_t src, uint32_t value,
                      acp_handle_t order);
acp_handle_t acp_add8(acp_ga_t dst, acp_ga_t src, uint64_t value,
                      acp_handle_t order);
acp_handle_t acp_xor4(acp_ga_t dst, acp_ga_t src, uint32_t value,
                      acp_handle_t order);
acp_handle_t acp_xor8(acp_ga_t dst, acp_ga_t src, uint64_t value,
                      acp_handle_t order);
acp_handle_t acp_or4(acp_ga_t dst, acp_ga_t src, uint32_t value,
                     acp_handle_t order);
acp_handle_t acp_or8(acp_ga_t dst, acp_ga_t src, uint64_t value,
                     acp_handle_t order);
acp_handle_t acp_and4(acp_ga_t dst, acp_ga_t src, uint32_t value,
                      acp_handle_t order);
acp_handle_t acp_and8(acp_ga_t dst, acp_ga_t src, uint64_t value,
                      acp_handle_t order);

/**
 * Waits until GMA @p handle and every GMA issued before it by this process
 * are complete. ACP_HANDLE_ALL: every GMA issued so far. A handle that is
 * already complete returns at once. Invalid handles (not yet issued,
 * negative) print an error and return. A wait longer than ACP_TIMEOUT
 * ends the job, naming the GMA and the rank not heard from.
 */
void acp_complete(acp_handle_t handle);

/**
 * @return 0 if GMA @p handle and every GMA issued before it are complete,
 * 1 if not yet, -1 for an invalid handle. Makes progress; never waits.
 */
int acp_inquire(acp_handle_t handle);

#ifdef __cplusplus
}
#endif

#endif /* ACP_H */
