// The objectives a placement is searched by (seed 000, section 4.4 and
// 5.1). A placement maps task i to node pi(i) of a mesh, torus or switch
// (model/topology.hpp); messages follow its dimension-order routes.
//   eq. (1), TAC3:  sum over CCS t of max over its messages m of
//                   bytes(m) x coll(t, m) / B, where coll is the largest
//                   number of t's messages on one directed link of m's
//                   route (1 for an empty route: both tasks on one node)
//   tac3-ports:     the same with coll from model::collisions(), which
//                   also counts a task's sends and receives in the CCS
//                   (one injection and one ejection port a task)
//   eq. (2), TAHB:  sum over task pairs of hops(pi(i), pi(j)) x bytes(i, j)
//   eq. (3), O2F:   eq. (2) x the largest number of bytes any one directed
//                   link carries over the whole kernel (the seed's
//                   "max_link"; our reading)
// B is the link bandwidth, 5 GB/s in the seed (section 5.2).
//
// eq. (1) is flat: most moves of a task change no CCS's largest coll, and
// a CCS gets cheaper only once all of its worst collisions are gone at
// once. The annealing then drifts, and with the seed's parameters rarely
// ends collision-free on 96 nodes (doc/measurements/2026-12-05-placement-
// seed000.md). with_tiebreak adds eq. (2) scaled to stay under half of
// the smallest message's bytes / B: among placements of equal eq. (1) the
// one with fewer byte-hops wins, and for a pattern of one message size
// (the seed's kernels, section 4.2) it never reverses which of two
// placements has the lower eq. (1).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "collectives/model/topology.hpp"
#include "pattern.hpp"

namespace acpx::collectives::place {

inline constexpr double kSeedBandwidth = 5e9;  // bytes/s

struct Scores {
    double eq1 = 0;         // seconds
    double eq2 = 0;         // byte-hops
    double eq3 = 0;         // byte-hops x bytes
    uint32_t max_coll = 0;  // largest coll over every message of every CCS (eq. 1's)
};

// Evaluates placements of one pattern on one network, many times over
// (the annealing's inner loop): routes between nodes are found once
// each and kept, link loads live in a flat array reset after each CCS.
class Evaluator {
  public:
    // t: its map is ignored (placements come with each call); p is kept
    // by reference and must outlive the evaluator.
    Evaluator(const model::Topology &t, const Pattern &p, double bandwidth = kSeedBandwidth);

    double eq1(const std::vector<uint32_t> &pi);
    double eq1_ports(const std::vector<uint32_t> &pi);  // tac3-ports
    // eq. (1) (ports: tac3-ports) plus the tie-break by eq. (2) above.
    double with_tiebreak(const std::vector<uint32_t> &pi, bool ports = false);
    // What a byte-hop adds in with_tiebreak.
    double tiebreak_scale() const { return tie_scale_; }
    double eq2(const std::vector<uint32_t> &pi);
    double eq3(const std::vector<uint32_t> &pi);
    // Per CCS: eq. (1)'s largest coll (the CCS costs bytes x that / B).
    std::vector<uint32_t> coll_per_ccs(const std::vector<uint32_t> &pi);
    // Every objective, and eq. (1)'s largest coll.
    Scores all(const std::vector<uint32_t> &pi);

    const model::Topology &topology() const { return t_; }
    // Of n messages a task sends (or takes in) in one CCS, how many share
    // one of its ports (model::Topology::per_port; with no port limit, 1).
    uint32_t port_share(uint32_t n) const {
        return t_.ports == model::Topology::kAllPorts ? 1 : static_cast<uint32_t>(t_.per_port(n));
    }
    const Pattern &pattern() const { return p_; }
    double bandwidth() const { return bandwidth_; }
    // Directed links of the network (link indices are below it).
    size_t links() const { return load_.size(); }

    // The directed links from node a to b, as link indices. Valid until
    // the next call (a large network's routes are cached in a map that
    // starts over when full).
    const std::vector<uint32_t> &route(uint32_t a, uint32_t b);
    // CCS c's eq. (1) term times B: its largest bytes x coll under pi
    // (ports: tac3-ports); *coll: that CCS's largest coll.
    uint64_t ccs_cost(size_t c, const std::vector<uint32_t> &pi, bool ports, uint32_t *coll = nullptr);

  private:
    // ports: coll counts a task's sends (receives) in the CCS too.
    double eq1_of(const std::vector<uint32_t> &pi, bool ports, uint32_t *max_coll,
                  std::vector<uint32_t> *per_ccs = nullptr);

    model::Topology t_;
    const Pattern &p_;
    double bandwidth_;
    double tie_scale_ = 0;
    uint64_t nodes_;
    std::vector<std::vector<uint32_t>> routes_;  // a * nodes + b; filled on first use
    std::vector<uint8_t> routed_;
    std::unordered_map<uint64_t, std::vector<uint32_t>> sparse_;  // above kDenseRouteNodes
    std::vector<uint32_t> load_;                                  // messages per link (eq. 1), one CCS at a time
    std::vector<uint32_t> sends_, recvs_;                         // per task, one CCS at a time (eq1_ports)
    std::vector<uint64_t> link_bytes_;                            // bytes per link (eq. 3)
};

}  // namespace acpx::collectives::place
