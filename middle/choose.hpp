// The algorithm of a new handle: forced (acp_set_col_algorithm, else
// ACP_COL_BCAST_ALGO / ACP_COL_ALLGATHER_ALGO), else the one the
// collectives' model predicts fastest for the handle's size. The group's
// coordinator (its lowest rank) computes the model's choice from its
// calibration and topology and sends it to the others (create.cpp), so
// members need not load the same calibration file.
#pragma once

#include <string>
#include <vector>

#include "allreduce.hpp"
#include "collectives/model/calibration.hpp"
#include "collectives/model/topology.hpp"
#include "params.hpp"

namespace acpx::middle {

struct State;

// Parses an algorithm name for p->kind ("" or "auto": p->auto_algo) into
// p. False, reported under fn naming `arg`, on an unknown name.
bool parse_algorithm(const char *fn, const char *arg, const std::string &name, Params *p);

// Reads the forced algorithm for p->kind into p (p->auto_algo false), or
// marks p->auto_algo. False, reported under fn, on an unknown name.
bool read_algorithm(const char *fn, const State &st, Params *p);

// The nodes `ranks` run on, as the runtime found them at start-up, on a
// switch (numbered as they first appear): what the model takes for a
// group when ACP_TOPOLOGY names no network. One node: nodes() == 1.
collectives::model::Topology nodes_of(const std::vector<int> &ranks);

// For p->auto_algo: sets p->algo / p->radix from the model, for the
// members' ranks `group`; *predicted_s gets the prediction (0 if forced). Loads the
// calibration and ACP_TOPOLOGY on first use (none: the group's nodes, from
// the runtime, on a switch). False, reported under fn, if
// the calibration file or the topology cannot be used; a forced algorithm
// that cannot run on this group (neighbor exchange, odd) also fails here.
bool choose_algorithm(const char *fn, State &st, const std::vector<int> &group, Params *p, double *predicted_s);

// ACP_COL_PLACE=tac3 (p.place_trials > 0), for a bcast or an allgather
// of 3 or more members on ACP_TOPOLOGY, not hierarchical: which group
// member plays each member index of the command lists, (*order)[j] (seed
// 000's "virtual task reassignment"). The model's steps of p's algorithm
// are the CCS; the annealing (collectives/place/anneal.hpp, p.place_trials
// a level, seeded by the group, cut at a quarter of ACP_TIMEOUT)
// minimises eq. (1) with the ports counted (a bcast's root sends several
// copies at once), ties broken by hop-bytes; a bcast's root keeps its own
// index (an allgather's list block j is then member (*order)[j]'s:
// Plan::data_blocks). *order stays empty (the group's order) where
// placing gains nothing, or without ACP_COL_PLACE; *predicted_s then
// becomes the placed round's. False, reported under fn, without a
// topology to place on.
bool place_members(const char *fn, State &st, const std::vector<int> &group, const Params &p,
                   std::vector<uint32_t> *order, double *predicted_s);

// The model's seconds for an allreduce round of shape s (allreduce.hpp):
// per stage an exchange each way at once and the combine (a memcpy of its
// bytes); a folded member's vector and result; Rabenseifner's stages move
// halves, then gather them back (an exchange and a copy out each). Create
// picks the faster of the butterfly and Rabenseifner by it
// (ACP_COL_ALLREDUCE_ALGO=auto, the default), the butterfly on a tie.
double allreduce_seconds(const collectives::model::Calibration &cal, const ar::Shape &s, bool across_nodes);

}  // namespace acpx::middle
