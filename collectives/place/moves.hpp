// eq. (1) (or tac3-ports), with or without the hop-bytes tie-break,
// priced move by move for the annealing (anneal.hpp, MoveCost). Computed
// anew, a placement costs every message's route in every CCS; a move of
// one or two tasks changes only their messages. Kept for the current
// placement: each CCS's load on every link and how many links carry each
// load, so the CCS's term is its bytes x the largest load (or port count)
// and a move updates the loads along its messages' old and new routes.
// A CCS whose messages differ in size is priced anew when a move touches
// it (its term is not one size x the largest load). Sums are integers
// (bytes x coll, byte-hops), as Evaluator's: the cost of a placement is
// the same figure however it was reached, so a search gives the same
// placement as with the cost computed anew (place_test holds them equal).
#pragma once

#include <cstdint>
#include <vector>

#include "anneal.hpp"
#include "objective.hpp"

namespace acpx::collectives::place {

class Eq1Moves final : public MoveCost {
  public:
    // ev's pattern and network; ports: tac3-ports; tiebreak: + eq. (2) x
    // ev.tiebreak_scale() (Evaluator::with_tiebreak).
    Eq1Moves(Evaluator &ev, bool ports, bool tiebreak);

    double reset(const std::vector<uint32_t> &map) override;
    double propose(const std::vector<uint32_t> &map, uint32_t a, uint32_t b) override;
    void commit() override;

  private:
    using Sum = unsigned __int128;
    struct PerCcs {
        uint64_t bytes = 0;              // its messages' size, if they share one
        bool uniform = true;             // they do: its term is bytes x max(ports, largest load)
        uint32_t port_coll = 1;          // its largest port count (tac3-ports; else 1)
        uint64_t cost = 0;               // its term x B, current placement
        uint32_t top = 0;                // the largest load on any link
        std::vector<uint32_t> load;      // per link (uniform ones)
        std::vector<uint32_t> links_at;  // links_at[v]: links carrying v messages (v >= 1)
    };
    // A message of a task: CCS c's message i (traffic: c == kTraffic).
    struct Ref {
        uint32_t c, i;
        bool operator<(const Ref &o) const { return c != o.c ? c < o.c : i < o.i; }
        bool operator==(const Ref &o) const { return c == o.c && i == o.i; }
    };
    static constexpr uint32_t kTraffic = UINT32_MAX;

    double total() const;
    void add_route(PerCcs &s, uint32_t from, uint32_t to, int sign);
    void apply(const std::vector<uint32_t> &from, const std::vector<uint32_t> &to);
    uint64_t recount(const PerCcs &s) const;
    void drop_proposal();

    Evaluator &ev_;
    bool ports_, tiebreak_;
    std::vector<PerCcs> ccs_;
    std::vector<std::vector<Ref>> refs_;  // per task, sorted
    std::vector<uint32_t> now_;           // the current placement
    Sum eq1_ = 0, eq2_ = 0;               // bytes x coll summed; byte-hops
    // The proposal in force, undone by the next call unless committed.
    std::vector<uint32_t> prop_;  // now_ but for the moved tasks
    uint32_t moved_a_ = 0, moved_b_ = kNoTask;
    std::vector<Ref> touched_;
    std::vector<std::pair<uint32_t, uint64_t>> old_cost_;  // CCS, its term before
    Sum old_eq1_ = 0, old_eq2_ = 0;
    bool pending_ = false;
};

}  // namespace acpx::collectives::place
