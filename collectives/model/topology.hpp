// Mesh/torus networks and their link collisions (seed 003, section V).
//
// ACP_TOPOLOGY syntax:
//   torus:4x2x8x2x3x2[:order=XYZACB]   every dimension wraps around
//   mesh:4x4[:order=YX]                 no dimension wraps
//   ...:wrap=101                        per dimension, 1 wraps (overrides)
//   ...:ports=4                         a rank sends (and takes in) up to 4
//                                       messages at once, each at a link's
//                                       speed (several injection engines,
//                                       as Tofu's); ports=all: as many as
//                                       its node has links, so that only
//                                       links are shared; default 1 (one
//                                       network interface)
//   switch:16                           16 nodes on one non-blocking switch
//                                       (a full fat tree, a crossbar)
//   none (or unset, or empty)           one fully connected node
// Dimensions are named X Y Z A B C (Tofu's names; a seventh and further by
// digits 6, 7, ...); order= is the dimension-order routing sequence
// (default: X Y Z ... as listed). Node index i has coordinates with the
// first dimension varying fastest. The rank -> node map defaults to rank r
// on node r; a map file lists one node index per line, in rank order
// (blank lines and # comments skipped).
//
// Routes take the shorter way around each ring (positive direction on a
// tie), dimension by dimension in the routing order. A link is one
// direction between neighbouring nodes. On a switch a message between two
// nodes crosses its sender node's link up to the switch (dim 0, +1) and
// its receiver node's link down (dim 0, -1): what a node's ranks send to
// other nodes at once shares its network port, as on most clusters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace acpx::collectives::model {

struct Topology {
    std::vector<uint32_t> dims;
    std::vector<bool> wrap;
    std::vector<uint32_t> order;  // routing order: indices into dims
    std::vector<uint32_t> map;    // rank -> node; empty: rank r on node r
    bool switched = false;        // switch:N (dims {N}): no links between nodes but their ports
    // Messages a rank sends, and takes in, at once at full speed (:ports=);
    // kAllPorts: no port limit, links only.
    static constexpr uint32_t kAllPorts = 0;
    uint32_t ports = 1;
    // Of n messages (or bytes) a rank sends, or takes in, at once, what
    // one of its ports carries: n over the ports, rounded up. Not for
    // kAllPorts, where no port is shared.
    uint64_t per_port(uint64_t n) const { return (n + ports - 1) / ports; }

    uint64_t nodes() const;
    uint32_t node_of(uint32_t rank) const;
    std::vector<uint32_t> coords(uint64_t node) const;
    std::string describe() const;  // "torus 4x2x8 order XYZ"
};

// A directed link: from `node`, along dimension `dim`, +1 or -1.
struct Link {
    uint64_t node;
    uint32_t dim;
    int dir;
    bool operator==(const Link &o) const { return node == o.node && dim == o.dim && dir == o.dir; }
};

// True for a spec that names no network: empty or "none".
bool is_no_topology(const std::string &spec);
// Parses ACP_TOPOLOGY syntax (a network, not none); false with *why on error.
bool parse_topology(const std::string &spec, Topology *out, std::string *why);
// Reads a rank -> node map file into t->map (checked against t->nodes()).
bool read_node_map(const std::string &path, Topology *t, std::string *why);
// The switch joining the nodes of a job whose rank r runs on the node
// named node_id[r] (ids as the runtime has them: equal on one node), its
// map numbering the nodes in order of first appearance. What the model
// takes for a job across nodes when ACP_TOPOLOGY names no network:
// costing it as one node would put every rank on one node's cores.
Topology switch_of_nodes(const std::vector<uint64_t> &node_id);

// The links a message from node a to node b crosses, in order.
std::vector<Link> route(const Topology &t, uint64_t a, uint64_t b);

// For messages (src rank, dst rank) sent at once: for each, the largest
// number of these messages that share one link of its route (1 if it
// crosses no link: same node). Without a topology (t == nullptr) every
// pair of nodes has its own link, and only the endpoints are shared.
// Either way a message also counts the messages its source sends and its
// destination receives at the same time (one injection and one ejection
// port per rank; with t->ports P, those counts over P, rounded up; none
// with kAllPorts), and, between two ranks of one node (every pair without
// a topology), ceil(m / cores) for the m such messages of that node: the
// node's CPUs do those copies (cores 0: no such limit).
// on_node_copies, if given: per message, that m of its node (0 for a
// message between two nodes).
std::vector<uint32_t> collisions(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                                 unsigned cores = 0, std::vector<uint32_t> *on_node_copies = nullptr);

// The same sharing in bytes: for messages (src rank, dst rank) of
// bytes[i] bytes sent at once, for each, the largest total of the bytes
// of the messages that share one of its links or its source's or
// destination's port (no core limit). Where every message of the set has
// the same size M, that is collisions() x M; where they differ, a link
// shared fairly carries the small ones off early and then the large one
// at full speed, ending with the link's total.
std::vector<uint64_t> shared_bytes(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                                   const std::vector<uint64_t> &bytes);

// Both of one step from one routing of its messages: collisions() (with
// its on-node copies) and, where bytes are given, shared_bytes().
struct StepShares {
    std::vector<uint32_t> collisions, on_node;
    std::vector<uint64_t> bytes;  // empty without bytes
};
StepShares step_shares(const Topology *t, const std::vector<std::pair<uint32_t, uint32_t>> &msgs,
                       const std::vector<uint64_t> &bytes, unsigned cores);

}  // namespace acpx::collectives::model
