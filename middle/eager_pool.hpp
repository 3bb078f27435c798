// The process's eager pool: where this process puts the bytes of the
// small rounds it sends to members of its node, for every handle at once,
// so a handle holds a small inline slot per ring entry (kPooledInline)
// instead of a slot as large as its largest eager round (issue 66).
//
// A sender copies a block once into a chunk of its pool (acpx-allocated
// memory that on-node peers map) and stores the chunk's GA and the pool's
// size into each receiver's arrive slot, behind the stamps
// (ctl::kPooled). A receiver copies the block out of the chunk and, at
// the end of its segment, stores 0 over that GA: the chunk's "consumed"
// mark, which the sender reads only when it needs room. A slot that a
// later round has overwritten says the same (a sender writes the slot of
// round n + depth only once the receiver started round n + 1).
//
// Chunks are taken in turn round the pool (its warm part while that has
// room: kWarmBytes) and given back from its oldest one: a steady loop of
// rounds reuses the same lines. When the oldest is still being read and
// there is no room, take fails and the round goes the non-eager way (the
// receiver's exact ready byte, then a copy into its array or buffer):
// never an error, never a wait on the pool.
#pragma once

#include <acp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "basic/layer.hpp"
#include "ring_queue.hpp"

namespace acpx::middle {

// Chunks start on cache lines.
inline constexpr size_t kChunkAlign = 64;
// A steady loop of rounds keeps its chunks within the pool's first
// max(kWarmBytes, kWarmChunks chunks): small chunks reuse lines both
// processes still cache (the bookkeeping of a round stays small), large
// ones cycle through enough of the pool that the receivers' copies have
// left their private caches, so the sender's writes take no line from
// them. 2 ranks, one node, 128 B-512 B and 8 KiB rounds:
// doc/measurements/2026-12-07-eager-pool-warm-lines.md.
inline constexpr size_t kWarmBytes = 65536, kWarmChunks = 128;
// A receiver asks for up to this many of a chunk's first bytes before it
// copies the chunk out (round.cpp's copy_out_of_chunk); the copy's own
// loads and the hardware's stream prefetch take the rest.
inline constexpr size_t kChunkPrefetch = 2048;

class EagerPool {
  public:
    EagerPool() = default;
    EagerPool(const EagerPool &) = delete;
    EagerPool &operator=(const EagerPool &) = delete;

    // Bytes the pool may hold (ACP_COL_POOL, read by create): set before
    // the first alloc; 0 turns pooling off.
    void set_capacity(size_t bytes) { capacity_ = bytes; }

    // The chunk for block `block` of handle `col`'s round `seq`, n bytes,
    // read by a receiver until the word at `mark` (its arrive slot, mapped
    // here) no longer holds the chunk's GA: the chunk already taken for
    // that block if it is among the newest few (the block's receivers
    // share it; *fresh false), else a new one (*fresh true: the caller
    // copies the block in). kNone: no room now, or the pool could not be
    // allocated (said once). The first call allocates the pool.
    static constexpr size_t kNone = SIZE_MAX;
    size_t take(size_t n, uint64_t col, uint64_t seq, uint32_t block, const uint64_t *mark, bool *fresh);

    acp_ga_t ga(size_t off) const { return mem_.ga + off; }
    char *at(size_t off) const { return static_cast<char *>(mem_.base) + off; }
    size_t bytes() const { return mem_.size; }

    // Handle `col` is freed: the chunks read already go back now, and
    // while receivers may still read others of its, the mappings of their
    // slots stay until those are given back.
    void retain(uint64_t col, std::vector<std::shared_ptr<void>> &&mappings);

    // Where a peer's chunk (its GA, as its sender stored it, and its
    // pool's size) is mapped here; nullptr where it is not (the caller fetches it by GMA).
    const char *peer_chunk(acp_ga_t chunk, uint64_t pool_bytes, size_t len);

  private:
    struct Chunk {
        size_t off = 0;
        uint64_t col = 0, seq = 0;
        uint32_t block = 0;
        // Each receiver's consumed mark: the first few in place (a chunk a
        // round: a heap allocation each would cost as much as the copy).
        uint32_t n_marks = 0;
        std::array<const uint64_t *, 4> first{};
        std::vector<const uint64_t *> more;
    };
    // A new chunk, its first reader's mark set (take).
    size_t alloc(size_t n, uint64_t col, uint64_t seq, uint32_t block, const uint64_t *mark);
    bool consumed(const Chunk &c) const;
    // Where len bytes go next below the pool's byte `end`, or kNone.
    size_t place(size_t len, size_t end) const;
    // Gives back the oldest chunks whose readers are done.
    void reclaim();

    size_t capacity_ = 0;
    basic::layer::SharedMemory mem_;
    bool failed_ = false;    // the pool could not be allocated (said once)
    size_t head_ = 0;        // where the next chunk goes
    RingQueue<Chunk> held_;  // oldest first
    std::unordered_map<uint64_t, std::vector<std::shared_ptr<void>>> retained_;
    // Peers' pools mapped here, by the GA of their byte 0; the last found in front.
    std::unordered_map<acp_ga_t, basic::layer::Mapped> peers_;
    acp_ga_t last_peer_ = ACP_GA_NULL;
    char *last_base_ = nullptr;
};

}  // namespace acpx::middle
