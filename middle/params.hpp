// What every member of a persistent collective must agree on at create.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace acpx::middle {

enum class Kind : uint8_t { kBcast = 1, kAllgather = 2, kAllreduce = 3 };
// An allreduce's element type and operation (acp.h's ACP_TYPE_*, ACP_OP_*).
enum class DType : uint8_t { kNone = 0, kInt32 = 1, kInt64 = 2, kDouble = 3 };
enum class ROp : uint8_t { kNone = 0, kSum = 1, kMax = 2, kMin = 3 };
// An allreduce's Params::algo (allreduce.hpp).
inline constexpr uint8_t kAllreduceButterfly = 0, kAllreduceRabenseifner = 1;
enum class Storage : uint8_t { kDirect = 1, kBuffered = 2 };
// root: the seed's way, one process issues every entry with acp_copy
// order dependencies (remote execution by the basic layer).
// delegated: each member executes the entries whose source it holds,
// triggered by the arrival of their data.
enum class Exec : uint8_t { kRoot = 1, kDelegated = 2 };

// Largest inline slot (plan.hpp): a bcast tree's round up to this size may
// travel through the control blocks, and where the group spans nodes it
// does by default (its bytes and stamp are one network message).
inline constexpr uint32_t kDefaultInlineMax = 65536;
// ... and an allgather's, whose members hold two slots for every block.
inline constexpr uint32_t kAllgatherInlineMax = 16384;
// The default cap of a group on one node with a core per rank. A round
// through the slots is two copies, and the second reads every line of the
// data from the core that wrote it; above this size one copy by the
// writer through Cross-Memory Attach is faster (and does not care how far
// apart the two cores are). Where the node's ranks outnumber its cores the
// caps above hold: there eager rounds let a sender run ahead of members
// waiting for a core (4 ranks on 2 cores, 16-64 KiB bcasts: 2x faster
// than through CMA): doc/measurements/2026-12-05-one-node-inline-cap.md.
inline constexpr uint32_t kOnNodeInlineMax = 8192;
// Params::inline_max when ACP_COL_INLINE is unset or "auto": the caps
// above, by where the group runs.
inline constexpr uint32_t kInlineAuto = UINT32_MAX;
// A process's eager pool (eager_pool.hpp) when ACP_COL_POOL is unset, used
// then by the handles whose rounds are as fast through it (kPoolLarge:
// pools_by_default in plan.hpp says which and why). A smaller handle keeps
// its slots: its 64 B rounds take 1.3-1.45x as long through the pool (a
// receiver reads the slot, then the chunk it names: two lines in turn
// from the sender's core;
// doc/measurements/2026-12-07-eager-pool-warm-lines.md). ACP_COL_POOL set
// to a size puts every handle's rounds over 48 bytes there (kPoolEvery).
inline constexpr size_t kDefaultPoolBytes = size_t{1} << 20;
// Params::pooled as create reads ACP_COL_POOL, before create_col knows the
// handle's slots.
inline constexpr uint8_t kPoolNone = 0, kPoolEvery = 1, kPoolLarge = 2;
// A pooled handle's inline slot (Params::pooled): one cache line with its
// stamps; it carries the rounds that small, or a pool chunk's address.
inline constexpr uint32_t kPooledInline = 48;
// Most inline slots per block of a tree bcast (plan.hpp): its root runs up
// to this many small rounds minus one ahead. ACP_COL_RING_DEPTH lowers it.
inline constexpr uint32_t kDefaultRingMax = 64;

struct Params {
    Kind kind = Kind::kBcast;
    Storage storage = Storage::kDirect;
    Exec exec = Exec::kDelegated;
    uint8_t algo = 0;          // collectives::BcastAlgo or AllgatherAlgo; allreduce: kAllreduce*
    uint8_t radix = 2;         // bcast knomial: its k
    uint8_t auto_algo = 0;     // 1: chosen by the model (choose.hpp), not forced
    uint8_t hier = 0;          // 1: hierarchical over the members' nodes ("hier:" names)
    uint8_t across_nodes = 0;  // 1: the group spans nodes (deeper rings: plan.hpp)
    uint8_t crowded = 0;       // 1: on one node whose ranks outnumber its cores
    // 1: delegated, on one node, ACP_COL_POOL not 0 (unset: handles larger
    // than their inline slots): rounds larger than a 48-byte inline slot,
    // up to the eager cap, go through the senders' eager pools
    // (eager_pool.hpp), not the handle's slots (plan.hpp). (kPoolLarge
    // between create and create_col.)
    uint8_t pooled = 0;
    // ACP_COL_PLACE=tac3[:TRIALS]: the annealing's trials a level when the
    // coordinator places a bcast's members on ACP_TOPOLOGY (choose.hpp,
    // place_members); 0: the lists' members are the group's, in order.
    // The coordinator's decides; members do not compare it. (Here, not
    // below: in the padding after the bytes, a handle grows by nothing.)
    uint16_t place_trials = 0;
    uint32_t inline_max = kInlineAuto;    // ACP_COL_INLINE: cap on an inline slot
    uint32_t ring_max = kDefaultRingMax;  // ACP_COL_RING_DEPTH: cap on slots per block
    uint32_t members = 0;                 // np_group
    int32_t root = -1;                    // bcast: the root's ACP rank; allgather: -1
    uint64_t size = 0;                    // arraysize / blocksize / buffersize; allreduce: count x element size
    DType dtype = DType::kNone;           // allreduce: the elements
    ROp op = ROp::kNone;                  // allreduce: how they combine
    uint8_t mid = 0, end = 0;             // allreduce "butterfly:M,L": seed 001's redundant exchanges
    // Across nodes, delegated, not an allreduce (create decides): held puts
    // carry rounds over the inline slots up to this many KiB
    // (basic::layer::held_put_max, the transport's; plan.cpp); 0: none. The
    // same at every member: they share the transport.
    uint8_t held_kib = 0;
    uint8_t alone = 0;        // 1: across nodes, every member alone on its node (plan.cpp)
    uint64_t group_hash = 0;  // of the group as listed (order matters)
};

inline constexpr uint16_t kDefaultPlaceTrials = 250, kMaxPlaceTrials = 10000;
// The trials ACP_COL_PLACE sets (0 when unset, empty or "none";
// kDefaultPlaceTrials for "tac3"; N for "tac3:N", 1..kMaxPlaceTrials);
// false with *why otherwise.
bool place_trials_from_env(uint16_t *out, std::string *why);

// The inline cap ACP_COL_INLINE sets (kInlineAuto when unset, empty or
// "auto"); false if it is not "auto" or a size from 0 to
// kDefaultInlineMax (K suffix allowed), with *why saying so. The library and the tools that
// predict its rounds (acpx-model, acpx-bench model-check) read it alike.
bool inline_max_from_env(uint32_t *out, std::string *why);
// The bytes of a process's eager pool ACP_COL_POOL sets (kDefaultPoolBytes
// when unset or empty; 0: no pool, every handle has slots as large as its
// eager rounds), and which handles use it (*mode: kPoolLarge when unset,
// else kPoolEvery, kPoolNone for 0); false if it is not a size up to 1 GiB
// (K, M suffixes).
bool pool_bytes_from_env(size_t *out, uint8_t *mode, std::string *why);
// Whether ACP_COL_PULL has a direct handle's on-node receivers read their
// blocks (1, the default when unset) or its senders write them (0); false
// for any other value.
bool pull_from_env(bool *out, std::string *why);
// The ring cap ACP_COL_RING_DEPTH sets (kDefaultRingMax when unset or
// empty); false if it is not a power of two from 2 to kDefaultRingMax.
bool ring_max_from_env(uint32_t *out, std::string *why);

// "" if a and b agree, else which field differs, as "root 1 vs 0".
std::string first_difference(const Params &a, const Params &b);

const char *name_of(Kind k);
const char *name_of(DType t);
const char *name_of(ROp o);
size_t size_of(DType t);  // bytes of an element; 0 for kNone
const char *name_of(Storage s);
const char *name_of(Exec e);
// Algorithm name for p.kind ("knomial:4" with its radix, "hier:binomial").
std::string algo_name(const Params &p);

}  // namespace acpx::middle
