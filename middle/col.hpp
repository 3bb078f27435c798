// One persistent collective handle of this process, and the middle
// layer's per-process state (held by the runtime object, see
// basic/layer.hpp).
#pragma once

#include <acp.h>

#include <chrono>
#include <deque>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "allreduce.hpp"
#include "basic/layer.hpp"
#include "channel.hpp"
#include "eager_pool.hpp"
#include "owner.hpp"
#include "segbuf.hpp"
#include "collectives/model/calibration.hpp"
#include "collectives/model/predict.hpp"
#include "collectives/model/topology.hpp"
#include "params.hpp"
#include "plan.hpp"

namespace acpx::middle {

using Clock = std::chrono::steady_clock;

struct State;

// A handle's state, by lifetime: what it is (fixed at create), the
// memory it owns (fixed at create), its rounds (kept across them), the
// segment in progress (reset at each), and what the first round found
// out about its on-node members (kept until it is freed).
struct Col {
    // --- what the handle is ---
    uint64_t id = 0;
    Params p;
    Plan plan;
    int rank = 0;                   // this process
    bool placed = false;            // ACP_COL_PLACE moved members in its lists (create.cpp); in rank's padding
    bool pull = true;               // ACP_COL_PULL at create: receivers on its node read (round.cpp, publish_pull)
    bool array_mapped = false;      // direct: its array is memory on-node peers map (kPullMapped); in the padding
    const char *algo_label = "";    // acp_query_col_algorithm: "bruck", "knomial:4" (State::name_of)
    std::unique_ptr<Allreduce> ar;  // an allreduce's plan and round (allreduce.hpp); else nullptr

    // --- the memory it owns ---
    struct Memory {
        basic::layer::SharedMemory ctl;          // the control block (plan.hpp)
        basic::layer::SharedMemory buffer;       // buffered: np_group or 1 block of p.size; allreduce: acp_copy sources
        acp_atkey_t array_key = ACP_ATKEY_NULL;  // direct: the user's array, registered (State::arrays)
        char *array = nullptr;                   // direct: the user's array
        acp_ga_t data = ACP_GA_NULL;             // GA of byte 0 of array or buffer
    };
    Memory mem;

    // --- rounds ---
    // A user round (one send) is nseg internal rounds ("segments", more
    // than one only when a buffered send exceeds the buffer); every member
    // numbers internal rounds alike, seq, and stamps its signals with it.
    uint64_t round = 0;       // user rounds started
    uint64_t done_round = 0;  // user rounds finished here
    bool active = false;      // a round is in flight here (set_active)
    uint32_t active_at = 0;   // while active: its place in State::in_flight (in active's padding)
    State *st = nullptr;      // its process's: lists and counts the handles with a round in flight
    void set_active(bool a);
    std::string broken;       // why the handle is unusable ("" if usable)
    std::string round_error;  // a finished round's error (sizes disagree)
    uint64_t error_round = 0;
    uint64_t seq = 0;
    uint32_t seg = 0, nseg = 1;
    size_t offset = 0, size = 0;        // direct: the range; buffered: bytes per member
    const char *in = nullptr;           // buffered: what this member sends
    char *out = nullptr;                // buffered: where it receives
    std::vector<uint8_t> ready_known;   // delegated: per plan.out entry, its receiver's ready byte as last read
    std::vector<uint8_t> member_known;  // root mode: per member, its ready byte as last read
    // The last segment whose ready bytes went to executors on other nodes
    // (round.cpp, ready_due: of small segments, one in a few).
    uint64_t last_due_seq = 0;
    // Small segments to other nodes that ended here once their GMAs' sources
    // were copied out, before those GMAs were known to land (a round trip
    // each, as long as the round itself): their completion is checked by the
    // rounds after, at most depth - 1 of them in flight, and by the free.
    struct Trailing {
        acp_handle_t first, last;
        uint64_t round;
    };
    std::deque<Trailing> trail;

    // --- the segment in progress: reset by begin_segment ---
    // A signal this member sent by GMA (a stamp, a notification, a ready
    // byte): if it failed, its receiver is told so (round.cpp).
    struct Notice {
        acp_handle_t gma;
        acp_ga_t slot;  // the stamp's place at the receiver; ACP_GA_NULL: a ready byte
        int32_t to;     // the receiver's rank
        uint32_t block;
        uint32_t bytes;  // the signal's (ctl::kStampBytes, kFwdBytes; a ready byte: 1)
    };
    struct Segment {
        bool issued = false;  // root mode: this segment's list is issued
        bool staged = false;  // a buffered bcast's root: its array's bytes of the segment are in its buffer
        // How far ahead of a receiver it may go when over the inline slots
        // but eager: pooled_depth, or Layout::eager_depth for held puts
        // (in padding; set by begin_segment, as depth below).
        uint32_t eager_depth = 2;
        // Per plan.out entry (delegated) / plan.wait_slots entry: the
        // segment (Col::seq, low 32 bits) that issued / saw it last, so a
        // new segment clears nothing (every entry is marked before a
        // segment ends; its successor's number differs).
        std::vector<uint32_t> out_issued;
        std::vector<uint32_t> seen;
        uint32_t issued_count = 0;             // out entries issued this segment
        uint32_t pulls = 0;                    // of them, published to be read and not yet counted (in padding)
        acp_handle_t first = ACP_HANDLE_NULL;  // this member's first GMA of the segment
        acp_handle_t last = ACP_HANDLE_NULL;   // and its last
        std::vector<Notice> notices;
        bool failing = false;       // failure stamps sent for this segment; waiting for them
        Clock::time_point start{};  // when a wait first read the clock and found it unfinished ({}: not yet)
        uint32_t polls = 0;         // waits and tests that found it unfinished (overdue)
        // Its ring (plan.hpp): depth, and the offset of its stamp pair from
        // a block's first arrive slot (the same for every block: a small
        // ring exists only with one). Set by begin_segment.
        uint32_t depth = 2;
        size_t turn = 0;
        void reset();  // keeps the vectors' sizes and memory
    };
    Segment cur;

    // --- on-node members' control blocks mapped here ---
    // (basic::layer::mapped), found at the first round: small rounds'
    // data, their arrive stamps and ready bytes go there as plain stores,
    // without a GMA each.
    struct Direct {
        char *arrive = nullptr;  // ring 0 of the entry's stamps, each before its inline slot; nullptr: acp_copy
    };
    struct DirectStores {
        bool known = false;
        bool off_node = false;                        // a member it signals or hears from is on another node
        std::vector<Direct> out;                      // per plan.out entry
        std::vector<uint8_t *> ready;                 // per plan.ready_targets entry
        std::vector<std::shared_ptr<void>> mappings;  // keep those mapped
    };
    DirectStores direct;

    Col() = default;
    Col(const Col &) = delete;
    Col &operator=(const Col &) = delete;
    ~Col() { set_active(false); }  // a handle that goes with a round in flight (acp_finalize)

    // Bytes this handle holds in this process (acp_query_col_memory).
    size_t memory() const;
    uint8_t *ctl_base() const { return static_cast<uint8_t *>(mem.ctl.base); }
};

// A create in progress: the key all members compute alike, and the
// messages that arrived for it (possibly before this process got there).
struct CreateKey {
    uint64_t set_hash;
    uint32_t seq;
    bool operator<(const CreateKey &o) const { return set_hash != o.set_hash ? set_hash < o.set_hash : seq < o.seq; }
};

struct State final : basic::layer::LayerState {
    Owner owner;  // who moves the rounds: the application or the agent (owner.hpp)
    // The handles with a round in flight here (Col::set_active): a wait
    // advances them alone, not every live handle (a program may hold
    // hundreds, and a walk over 100 idle ones doubles a 2-rank 8-byte
    // round). Before cols: a handle leaves it as it goes.
    std::vector<Col *> in_flight;
    EagerPool pool;  // where this process's pooled rounds to on-node members go (eager_pool.hpp)
    std::unordered_map<uint64_t, std::unique_ptr<Col>> cols;  // live handles by id
    uint64_t next_id = 1;                                     // never reused: a freed handle stays recognisable
    // The live handle last found, in front of the map: a round's send and
    // wait find theirs twice, and a map lookup costs a fifth of a
    // one-member round.
    uint64_t last_id = 0;
    Col *last_col = nullptr;
    bool pull = true;  // ACP_COL_PULL, as the create in progress read it (read_choices)
    Col *find(uint64_t id) {
        if (id == last_id && last_col) return last_col;
        auto it = cols.find(id);
        if (it == cols.end()) return nullptr;
        last_id = id;
        return last_col = it->second.get();
    }
    void erase(uint64_t id) {
        if (id == last_id) last_col = nullptr;
        cols.erase(id);
    }
    std::unordered_map<uint64_t, uint32_t> creates_per_set;  // set hash -> creates so far
    std::map<CreateKey, std::vector<basic::layer::Bytes>> mailbox;
    ChannelTable channels;  // acp_create_ch's (channel.cpp)
    SegbufTable segbufs;    // acp_create_*_segbuf's (segbuf.cpp)
    // The one-call collectives' handle caches (one_call.cpp; its type is
    // its own, so this header does not carry it).
    std::shared_ptr<void> one_call;
    // Algorithm names, each kept once for the process: a handle holds a
    // pointer to its own (a string in every handle would grow each by 24
    // bytes, against the documented bound on a handle's bookkeeping).
    std::set<std::string> names;
    const char *name_of(std::string name) { return names.insert(std::move(name)).first->c_str(); }
    // Control blocks of freed handles that receivers on other nodes may
    // still write their last ready byte into (acp_free_col, round.cpp): each
    // goes back once every byte listed reads its round (or the one after).
    struct ParkedCtl {
        basic::layer::SharedMemory ctl;
        std::vector<size_t> ready_at;  // offsets of those ready bytes in it
        uint8_t seq = 0;
    };
    std::vector<ParkedCtl> parked_ctls;
    // Direct handles' arrays, by (address, bytes): one registration for
    // every live handle over them (create.cpp).
    struct ArrayReg {
        acp_atkey_t key = ACP_ATKEY_NULL;
        size_t handles = 0;
    };
    std::map<std::pair<const void *, size_t>, ArrayReg> arrays;
    // Bytes of control blocks and buffers kept until acp_finalize (quarantine).
    size_t quarantined_bytes = 0;

    // The model's inputs, loaded at an automatic choice and again when
    // ACP_CALIBRATION, ACP_TOPOLOGY or ACP_TOPOLOGY_MAP changed (choose.cpp).
    bool model_loaded = false;
    std::string model_env;  // those three variables when last loaded
    collectives::model::Calibration calibration;
    bool has_topology = false;
    collectives::model::Topology topology;
    bool warned_no_net = false;  // a job across nodes, a calibration without their curves: said once
    // acp_set_col_algorithm: the forced names ("" = none: the environment
    // variable, else the model, decides).
    std::string set_bcast, set_allgather, set_allreduce;

    // This runtime's (made on first use). Inline: every call of this
    // layer starts here, and the runtime's slot is a call away.
    static State &get() { return current_ ? *current_ : make(); }
    ~State() override;

  private:
    static State &make();
    static inline State *current_ = nullptr;  // the runtime's slot, while it holds this
};

inline void Col::set_active(bool a) {
    if (a == active) return;
    std::vector<Col *> &v = st->in_flight;
    if (a) {
        active_at = static_cast<uint32_t>(v.size());
        v.push_back(this);  // first: if it throws, the handle is as it was
        st->owner.round_started();
    } else {
        v[active_at] = v.back();
        v[active_at]->active_at = active_at;
        v.pop_back();
        st->owner.round_ended();
    }
    active = a;
}

// Makes progress on every active handle; true if anything moved.
bool progress_all(State &st);

}  // namespace acpx::middle
