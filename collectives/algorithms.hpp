// Collective algorithms as pure functions: (members, root or block owner)
// -> command list. No runtime, no transport: a list for 10^6 members is
// built and checked in one process.
#pragma once

#include <cstdint>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "command_list.hpp"

namespace acpx::collectives {

enum class BcastAlgo : uint8_t {
    kBinomial,    // step k: every member that has the data sends it 2^k further
    kBinaryTree,  // member i (relative to the root) sends to 2i+1 and 2i+2 (seed 002 Fig. 5)
    kKnomial,     // radix k: every member that has the data sends to k-1 others a step
    kChain,       // root -> 1 -> 2 -> ... (one sender a step)
    // Multi-block: the data is cut into blocks, each with its own list.
    kPipeline,     // radix = S segments, each down the chain; member v forwards
                   // segment s while it receives s+1 (S + P - 2 steps)
    kScatterRing,  // P-1 blocks: the root sends block v-1 to member v (scatter),
                   // then every block travels the ring of non-roots (large rounds)
};
inline constexpr size_t kBcastAlgoCount = 6;

enum class AllgatherAlgo : uint8_t {
    kBlockTree,          // each block goes down its own binary tree rooted at its owner (Fig. 6)
    kRing,               // each block travels once around the ring, owner+1, owner+2, ...
    kBruck,              // step k: every member sends what it holds to member - 2^k
    kRecursiveDoubling,  // butterfly: step k, member i exchanges with i xor 2^k; the
                         // members past the largest power of two fold into it first
    kNeighborExchange,   // even P: pairs exchange, then alternate neighbours pass on
                         // the two blocks they got last (P/2 steps)
};
inline constexpr size_t kAllgatherAlgoCount = 5;

inline constexpr unsigned kDefaultRadix = 4;  // k-nomial without an explicit k
inline constexpr unsigned kMaxRadix = 64;
inline constexpr unsigned kDefaultSegments = 8;  // pipeline without an explicit S
inline constexpr unsigned kMaxSegments = 64;
// scatter_ring cuts the data in P-1 blocks of P-1 entries: P^2 entries, so
// it is offered only up to this many members.
inline constexpr uint32_t kMaxScatterRingMembers = 1024;

// Entries that carry the root's bytes to every member. Entries are in
// steps (all entries of a step are independent), parents before children.
// radix: the k of kKnomial (2..kMaxRadix), the segments of kPipeline
// (2..kMaxSegments), ignored by the others. For a multi-block algorithm
// this is the list of block 0.
CommandList bcast_list(BcastAlgo algo, uint32_t members, uint32_t root, unsigned radix = kDefaultRadix);

// How many blocks a bcast cuts its data into: 1 for the trees and the
// chain, S for pipeline:S, members - 1 for scatter_ring.
uint32_t bcast_blocks(BcastAlgo algo, uint32_t members, unsigned radix);
// The list of block `block` (< bcast_blocks): every list starts at the
// root, lists of different blocks share no dependency.
CommandList bcast_block_list(BcastAlgo algo, uint32_t members, uint32_t root, uint32_t block, unsigned radix);
// "" if algo can run over `members` members, else why not.
std::string bcast_applies(BcastAlgo algo, uint32_t members);

// A hierarchical algorithm's name is its flat one behind this prefix
// ("hier:binomial", "hier:knomial:8"; allgather "hier:tree").
inline constexpr const char *kHierPrefix = "hier:";

// Hierarchical: the bytes of member `origin` cross to each other node
// once, into its leader (the member listed first there), along algo's
// list among the nodes (the origin's node first, the others in order of
// their first member); then algo's list on each node carries them from
// its leader (the origin on its own node) to the node's other members.
// node_of[m]: an id of member m's node (equal ids: one node). Only for
// the single-block algorithms (hier_offered). Over one node it is algo's
// list from the origin; with one member a node, algo's list over all.
CommandList hier_bcast_list(BcastAlgo algo, unsigned radix, std::span<const uint32_t> node_of, uint32_t origin);
// An allgather's "hier:tree": block `owner`'s list is the hierarchical
// binary tree from its owner.
CommandList hier_allgather_block_list(std::span<const uint32_t> node_of, uint32_t owner);
// Whether algo has a hierarchical form: the bcast trees and the chain,
// not the multi-block bcasts (their blocks already spread the links'
// load); of the allgathers, the per-block tree.
bool hier_offered(BcastAlgo algo);
bool hier_offered(AllgatherAlgo algo);
// Whether a hierarchical list differs from the flat one over these
// nodes: more than one node, and a node with more than one member.
bool hier_differs(std::span<const uint32_t> node_of);

// Block `block` of `blocks` over a round of `bytes`: where it starts and
// how long it is. Blocks are equal (a multiple of 64 bytes, so two never
// share a cache line) but the last, which may be short or empty.
struct ByteRange {
    uint64_t offset, length;
};
ByteRange block_range(uint64_t bytes, uint32_t blocks, uint32_t block);

// Entries that carry block `owner` (held by member `owner`) to every
// member; an allgather is the union of the lists of all blocks.
// Precondition: allgather_applies(algo, members).
CommandList allgather_block_list(AllgatherAlgo algo, uint32_t members, uint32_t owner);

// "" if algo can run over `members` members, else why not (neighbor
// exchange needs an even count).
std::string allgather_applies(AllgatherAlgo algo, uint32_t members);

// How an allgather's block lists follow from those of blocks
// 0..period-1 (period 0: they do not). Moved on: block r + k period is
// block r with every member m moved to m + k period (mod the members:
// ring, Bruck and the per-block trees, period 1; neighbor exchange, 2).
// By xor: block b is block 0 with every member m moved to m xor b
// (recursive doubling over a power of two, period 1; elsewhere the
// members beyond the power of two break the pattern). Either way an
// entry's dependency is that of its image, and an entry is known from
// its sender's class (mod period) and its distance: dst - src, or src
// xor dst. The model costs a round from those few lists, and create
// finds a member's entries in them.
struct AllgatherTurn {
    uint32_t period = 0;
    bool by_xor = false;
    uint32_t distance(uint32_t src, uint32_t dst, uint32_t n) const { return by_xor ? src ^ dst : (dst + n - src) % n; }
    uint32_t moved(uint32_t src, uint32_t distance, uint32_t n) const {
        return by_xor ? src ^ distance : static_cast<uint32_t>((uint64_t{src} + distance) % n);
    }
    // Block b's list is that of block base(b) with every member m moved to
    // image(m, b, n); preimage is the way back.
    uint32_t base(uint32_t b) const { return by_xor ? 0 : b % period; }
    uint32_t image(uint32_t m, uint32_t b, uint32_t n) const {
        return by_xor ? m ^ b : static_cast<uint32_t>((uint64_t{m} + b - b % period) % n);
    }
    uint32_t preimage(uint32_t m, uint32_t b, uint32_t n) const {
        return by_xor ? m ^ b : static_cast<uint32_t>((uint64_t{m} + n - (b - b % period) % n) % n);
    }
};
AllgatherTurn allgather_turn(AllgatherAlgo algo, uint32_t members);

// The parameter an algorithm takes after "name:" (radix or segments):
// its default and range.
struct AlgoParam {
    unsigned def, min, max;
};

// One row per algorithm: everything the layers above need to know of it
// (as UCC's and MPICH's algorithm tables). Adding an algorithm is its
// enum value, its list function (bcast.cpp, allgather.cpp) and its row;
// names, parsing, applicability, blocks and the model's candidates come
// from the row. The rows are in enum order.
struct BcastInfo {
    BcastAlgo algo;
    const char *name;                // as ACP_COL_BCAST_ALGO takes it
    std::optional<AlgoParam> param;  // taken after "name:"; none: the name alone
    uint32_t max_members;            // the most members it is offered for (0: any)
    // Blocks a round is cut into over members > 1, given the parameter.
    uint32_t (*blocks)(uint32_t members, unsigned param);
    // Block `block`'s list (every list starts at the root).
    CommandList (*block_list)(uint32_t members, uint32_t root, uint32_t block, unsigned param);
};
std::span<const BcastInfo> bcast_table();
const BcastInfo &info_of(BcastAlgo a);

struct AllgatherInfo {
    AllgatherAlgo algo;
    const char *name;                                             // as ACP_COL_ALLGATHER_ALGO takes it
    bool even_members_only;                                       // offered only over an even number of members
    AllgatherTurn (*turn)(uint32_t members);                      // allgather_turn
    CommandList (*block_list)(uint32_t members, uint32_t owner);  // members > 1
};
std::span<const AllgatherInfo> allgather_table();
const AllgatherInfo &info_of(AllgatherAlgo a);

// Every algorithm of a table, in order: for loops in tools and tests.
template <class Info>
std::vector<decltype(Info::algo)> algos_of(std::span<const Info> table) {
    std::vector<decltype(Info::algo)> out;
    for (const Info &i : table) out.push_back(i.algo);
    return out;
}

// Names as used by ACP_COL_BCAST_ALGO / ACP_COL_ALLGATHER_ALGO and printed
// by tools. A k-nomial bcast is "knomial" (k = 4) or "knomial:K"; a
// pipelined chain "pipeline" (8 segments) or "pipeline:S".
inline const char *name_of(BcastAlgo a) { return info_of(a).name; }
inline const char *name_of(AllgatherAlgo a) { return info_of(a).name; }
inline std::optional<AlgoParam> bcast_param(BcastAlgo a) { return info_of(a).param; }
std::string name_of(BcastAlgo a, unsigned radix);  // "knomial:3", "pipeline:16"; others as above
struct BcastChoice {
    BcastAlgo algo;
    unsigned radix;
};
std::optional<BcastChoice> parse_bcast_algo(std::string_view s);
std::optional<AllgatherAlgo> parse_allgather_algo(std::string_view s);
// The names, comma-separated.
std::string bcast_algo_names();
std::string allgather_algo_names();

}  // namespace acpx::collectives
