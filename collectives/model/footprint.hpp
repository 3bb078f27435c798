// How much slower a round's copies are because the data their core
// touches outgrows the caches the calibration's copies ran in (the
// calibration's comm_footprint). Internal to the model (predict.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "calibration.hpp"
#include "collectives/command_list.hpp"
#include "predict.hpp"
#include "topology.hpp"

namespace acpx::collectives::model {

// One block's command list and its bytes.
struct BlockList {
    CommandList list;
    uint64_t bytes;
};

// How an allgather's block lists follow from a few (collectives::AllgatherTurn).
using Turn = AllgatherTurn;

// How much slower each member's copies are because the data its core
// touches in a round outgrows the caches the calibration's copies ran
// in: comm_footprint at the bytes of the blocks that core's copies read
// and write on its node (each once), over its value at the largest comm
// sample's (whose root's core touches both arrays). At least 1. A
// member's core is its place among its node's members modulo the cores
// (acprun --bind-to core); with no core count, its own.
// Why a core's bytes, not its node's: the 2-core VM reports one 32 MiB
// L3, but a 2-rank bcast of 8 MiB (one core touches 16 MiB) copies at
// 1.4x the time a byte of 4 MiB, while a 2-rank allgather of 4 MiB (16
// MiB on the node, 8 a core) copies at 1.1x, and a 3-rank one of 2 MiB
// (18 MiB on the node; 12 on the core of members 0 and 2) at 1.0x,
// where the node's 18 MiB read 1.3-1.4x.
// lists: c's block lists. turn.period > 0: c is an allgather turned so
// (Turn), and lists holds only blocks 0..period-1, from which the bytes
// of all are counted.
std::vector<double> footprint_factors(const Case &c, const Calibration &cal, const Topology *t,
                                      const std::vector<BlockList> &lists, Turn turn = {});

}  // namespace acpx::collectives::model
