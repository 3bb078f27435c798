// SimGrid's view of a placement (seed 000's independent check): a
// platform file of the network and a hostfile of the map, for the CG
// kernel (tools/simgrid/cg_kernel.c) under smpirun.
#pragma once

#include <string>
#include <vector>

#include "collectives/model/topology.hpp"

namespace acpx::tools {

// The flow simulator's link model in SimGrid's terms (CM02).
struct SimgridLinks {
    double bandwidth = 5e9;     // bytes/s a directed link
    double alpha = 47e-6;       // s: a message's start-up (64 bytes and more)
    double small_alpha = 1e-6;  // s: messages under 64 bytes (a barrier's)
    // A node's injection ("up") and ejection ("down") port limited to
    // `bandwidth` and shared by its messages (flowsim's Params::ports);
    // without, "up" carries the start-up only and there is no "down".
    bool ports = false;
};

// Writes DIR/platform.xml: one Full routing zone, a host per node the map
// uses ("n<index>"), a link per direction between neighbouring nodes
// ("l<node>_<dim><+|->", `bandwidth`) and a route between every two
// hosts from model::route(), behind a start-up link of the sender's
// ("up<node>": no bandwidth limit, the latency small_alpha, which
// smpi_config()'s lat-factor raises to alpha from 64 bytes); and
// DIR/hostfile: rank i's host on line i. False with *why.
bool write_simgrid_platform(const collectives::model::Topology &t, const std::vector<uint32_t> &map,
                            const SimgridLinks &links, const std::string &dir, std::string *why);

// smpirun's --cfg options for that platform: SMPI's model (CM02 with
// factors by message size) without cross traffic, no bandwidth factor,
// the latency factor above, computation not simulated (the kernel's time
// is its messages').
std::vector<std::string> smpi_config(const SimgridLinks &links);

// A kernel built for smpirun (tools/simgrid/: "cg_kernel", "ccs_kernel"):
// in $ACPX_SIMGRID_KERNELS if set, else the build tree's, else the
// installed one; "" with *why if there is none or smpirun is missing.
std::string find_kernel(const std::string &name, std::string *why);

// Runs `kernel args...` under smpirun on DIR's platform and hostfile (np
// ranks); *seconds: the "seconds S" it prints. False with *why (its last
// output line) if it fails.
bool run_kernel(const std::string &kernel, const std::string &dir, size_t np, const std::vector<std::string> &args,
                const SimgridLinks &links, double *seconds, std::string *why);

}  // namespace acpx::tools
