// Measured costs the model is built from (seed 003, section IV): the time
// of one copy between two ranks and of one local memcpy, for sampled
// sizes, interpolated linearly between the two nearest samples (eq. 1).
//
// File format (JSON, written by `acpx-bench calibrate`):
//   {
//     "schema": "acpx-calibration/1",
//     "machine": "hostname and CPU, free text",
//     "created": "2026-11-23T10:00:00Z",
//     "transport": "ucx",
//     "cores": 2,                          // copies a node runs at once
//                                          // (optional; 0 or absent: no limit)
//     "pair_ns": 51,                       // one way for a cache line
//                                          // between ranks 0 and 1 while
//                                          // the 2-rank curves were
//                                          // measured: later samples of
//                                          // acpx-bench are taken on a
//                                          // pair this near (bench/
//                                          // placement.hpp; optional;
//                                          // 0 or absent: unknown)
//     "comm":   [[bytes, seconds], ...],   // one command-list entry between
//                                          // two ranks: a round of a
//                                          // 2-member direct bcast
//     "comm_direct": [[bytes, seconds], ...],  // the same without the
//                                          // inline slots (ACP_COL_INLINE=0):
//                                          // what a block of a multi-block
//                                          // bcast costs (optional; absent:
//                                          // comm)
//     "comm_stream": [[bytes, seconds], ...],  // a block that follows
//                                          // another between the same
//                                          // two ranks: a 2-member
//                                          // pipeline:16 round / 16, by
//                                          // block size (optional;
//                                          // absent: comm_direct)
//     "comm_net": [[bytes, seconds], ...], // comm between two ranks on
//                                          // different nodes: acpx-bench
//                                          // calibrate on 2 ranks of two
//                                          // nodes, after the run on one
//                                          // (optional; absent: copies
//                                          // across nodes cost as on one)
//     "comm_net_stream": [[bytes, seconds], ...], // comm_stream across
//                                          // nodes (optional; absent:
//                                          // comm_net)
//     "comm_net_pair": [[bytes, seconds], ...], // a round of a 2-member
//                                          // direct allgather across
//                                          // nodes: a copy each way at
//                                          // once (optional; absent:
//                                          // as each alone)
//     "switch_s": 1.2e-6,                  // a core handing over from one
//                                          // rank to another: what a step
//                                          // of a node running more ranks
//                                          // than cores waits besides
//                                          // (time slicing, predict.hpp;
//                                          // optional; absent: 0)
//     "memcpy": [[bytes, seconds], ...],   // one memcpy of that size
//     "comm_pair": [[bytes, seconds], ...], // a round of a 2-member
//                                          // direct allgather of blocks of
//                                          // that size: both ranks copy at
//                                          // once, one each way, on their
//                                          // own cores (sizes above an
//                                          // allgather's inline slots;
//                                          // optional;
//                                          // absent: copies at once on a
//                                          // node cost as each alone)
//     "comm_pair_inline": [[bytes, seconds], ...], // the same round
//                                          // through the inline slots
//                                          // (sizes up to them): each
//                                          // rank copies its block in
//                                          // and the other's out
//                                          // (optional; absent: a
//                                          // block's copy out costs a
//                                          // memcpy)
//     "comm_footprint": [[bytes, seconds], ...], // a 1 MiB entry of a
//                                          // 2-member round whose data
//                                          // spans that many bytes (both
//                                          // ranks' arrays; optional)
//   }
// Keys not listed here are ignored: files of earlier versions hold
// curves of a node crowded with more ranks than cores ("comm_crowded",
// "crowd_ranks" and others), which the model no longer reads (predict.hpp
// prices such a node by time slicing).
// Samples are sorted by size on load; sizes must be distinct and >= 0,
// times finite and >= 0, and each list needs at least one sample.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace acpx::collectives::model {

class Samples {
  public:
    Samples() = default;
    explicit Samples(std::vector<std::pair<double, double>> points);  // (bytes, seconds)
    // Seconds for `bytes`: linear between the two nearest samples (eq. 1);
    // below the smallest, its time; above the largest, its bandwidth.
    double at(double bytes) const;
    // The same, but flat above the largest sample too (a time that
    // stops growing, e.g. once nothing fits in a cache).
    double clamped(double bytes) const;
    const std::vector<std::pair<double, double>> &points() const { return pts_; }
    bool empty() const { return pts_.empty(); }

  private:
    std::vector<std::pair<double, double>> pts_;
};

// The samples (bytes ascending) that stand more than `factor` times
// above the line between their two neighbours: a burst of noise while
// they were measured, or a real step (a protocol switch looks the same
// at three points), which only measuring again tells apart. Neither end
// is judged.
std::vector<size_t> bumps(const std::vector<std::pair<double, double>> &points, double factor);

// The median of `values`: the middle one, or the mean of the two middle
// ones for an even count; 0 for none. What a sample merged from several
// runs is (median_calibration), and what a bumped sample is worth once
// measured again, its first reading among them: not the smallest, as a
// real step is a bump every time it is measured, and the least of three
// noisy readings is their low tail, not the step.
double median(std::vector<double> values);

struct Calibration {
    Samples comm, memcpy;
    Samples comm_direct;       // empty: comm (files without it)
    Samples comm_stream;       // a block right behind another on its pair; empty: entry(false)
    Samples comm_footprint;    // a 1 MiB entry by the bytes its rounds span (empty: no cache effect)
    Samples comm_pair;         // two copies of a size at once, one each way (empty: as each alone)
    Samples comm_pair_inline;  // the same through the inline slots (empty: copies out cost a memcpy)
    Samples comm_net;          // an entry between two nodes (empty: as on one node)
    Samples comm_net_stream;   // a streamed block between two nodes (empty: comm_net)
    Samples comm_net_pair;     // two copies across nodes at once, one each way (empty: as each alone)
    // The entry cost of a round that does (not) go through the inline slots.
    const Samples &entry(bool inline_round) const { return inline_round || comm_direct.empty() ? comm : comm_direct; }
    // What a copy between two members costs: on one node entry(), or
    // comm_stream for a block right behind another on its pair (when
    // measured); across nodes comm_net (comm_net_stream) when measured,
    // else as on one node.
    const Samples &copy(bool inline_round, bool streamed, bool across_nodes) const {
        if (across_nodes && !comm_net.empty()) return streamed && !comm_net_stream.empty() ? comm_net_stream : comm_net;
        return streamed && !comm_stream.empty() ? comm_stream : entry(inline_round);
    }
    // The seconds of such a copy of `bytes` in a round of `round_bytes`
    // (a multi-block bcast's; 0: a single-block round). A streamed block
    // costs its share of the whole round's entry's bytes plus what a block
    // adds in a stream (stream_overhead), not the stream curve at its size:
    // that curve was measured in pipeline:16 rounds of 16 such blocks,
    // so on its own it prices a block of 128 KiB as part of a 2 MiB
    // array. On the 2-core VM a 2-member pipeline:S round of M bytes took
    // comm(M) + S x 0.75-1.0 us for every S and M from 512 KiB to 4 MiB,
    // while the curve alone read pipeline:4 of 512 KiB (in cache) 2.04x
    // its time and pipeline:32 of 1 MiB (out of it) 0.76x.
    double copy_seconds(bool inline_round, bool streamed, bool across_nodes, double bytes, double round_bytes) const;
    // How many times longer an on-node copy of `bytes` takes while
    // another core of the node copies too: comm_pair over the copy
    // without inline slots (comm_direct, else comm) at that size, at
    // least 1. The two share the node's memory: on the 2-core
    // VM 2-rank allgathers of 256 KiB-1 MiB blocks took 1.11-1.14x the
    // calibrated single copy, of 4 MiB 1.19-1.35x (one main job's
    // launches). 1 without comm_pair or below its smallest sample
    // (inline rounds store into the slots). Measured with two copies:
    // more at once are priced alike.
    double concurrent_slow(double bytes) const;
    // What an allgather member's copy of one block out of the inline
    // slots adds to a round: comm_pair_inline over comm at that size (at
    // least 0), inside that curve's samples; elsewhere a memcpy. The
    // block was just written by the other core and lands in an array
    // the rounds keep in cache, so the memcpy curve (out of cache)
    // overprices it: on the 2-core VM, 2-member allgathers of 2-16 KiB
    // blocks took 1.4-1.9x comm, and comm + memcpy read 1.3-1.9x that
    // (0.85-1.15 with this).
    double inline_copy_out(double bytes) const;
    // How many times longer a copy of `bytes` from node a to node b takes
    // while b also copies to a: comm_net_pair over comm_net at that size,
    // at least 1 (1 without either). A full-duplex network link carries
    // both at once; between two emulated hosts of one VM (veth) both
    // ends' TCP runs on the same two cores: 2-member allgathers of 64
    // KiB-4 MiB blocks take 1.5-1.9x comm_net.
    double net_pair_slow(double bytes) const;
    unsigned cores = 0;  // on-node copies that proceed at once: the node's cores (0: no limit)
    // Seconds for a core to hand over from one rank to another (sched_yield
    // between two processes on one CPU; 0: unknown, free)
    double switch_s = 0;
    // ns one way for a cache line between ranks 0 and 1 when the 2-rank
    // curves were measured (acpx-bench's placement probe; 0: unknown)
    double pair_ns = 0;
    std::string machine, created, transport;
    std::string source;  // the file it came from, or "built-in defaults"
    // Where the _net curves came from: `source`, kBuiltinSource where
    // load_calibration took the built-in ones for a file without them, or
    // "" (none: a job across nodes is priced as on one node).
    std::string net_source;
};

// What a block of `block` bytes adds in a stream beyond its share of
// its round's bytes: stream at that size less its share of the bytes of
// the round stream was measured in (16 such blocks), at least 0; above
// stream's largest sample, as at that sample (the curves there
// extrapolate). A block's share of a round of M bytes: its bytes times
// (entry(M) - the entry's latency) / M, the latency being entry for a few
// bytes (at its smallest sampled size above 0, at most 64).
double stream_overhead(const Samples &stream, const Samples &entry, double block);

// A curve without the inline slots: `measured` (up to their size,
// ascending), then `slotted`'s samples above its largest, where the two
// are the same rounds (calibrate's comm_direct).
std::vector<std::pair<double, double>> slotless_curve(std::vector<std::pair<double, double>> measured,
                                                      const std::vector<std::pair<double, double>> &slotted);

// Calibration::source of the built-in defaults.
inline constexpr char kBuiltinSource[] = "built-in defaults";
// ACP_CALIBRATION's value that asks for the built-in defaults whatever
// files exist (to weigh them against a file's on the same job).
inline constexpr char kBuiltinName[] = "builtin";
// Whether `setting` (ACP_CALIBRATION's value, nullptr if unset) is kBuiltinName.
bool builtin_asked(const char *setting);

// Figures measured on the reference VM (2 cores, UCX, user arrays through
// Cross-Memory Attach): what the model uses when no file is found. Its
// curves between nodes are the VM's two emulated hosts' (one rank each,
// TCP over a veth pair): a network priced as one, even if not this one,
// picks far better than one priced as the node's memory (at 2 + 2 ranks,
// 128-256 KiB bcasts took 2-4x longer so).
Calibration builtin_calibration();
// The same figures on a node of `node_cores` cores (0: unknown, the
// reference's 2), what load_calibration gives without a file: there a
// job of up to node_cores ranks runs a core per rank; a larger one
// shares them (time slicing, predict.hpp).
Calibration builtin_calibration_for(unsigned node_cores);

// Each curve of `runs` (calibrations of one machine, e.g. calibrate's
// sweeps) as the median of their samples at each size (of the two middle
// ones, the mean); pair_ns the least of theirs, switch_s their median,
// the rest the first run's.
// The VM's speed drifts by 20-30% over tens of seconds: one run's curves
// are measured in different stretches of it, and compare wrong.
Calibration median_calibration(const std::vector<Calibration> &runs);

// Whether `b` may be merged with `a` (median_calibration): both measured
// on as many cores. False with *why naming the difference ("its cores are
// 4, the first's 2"): the median of two machines' curves is neither's.
bool mergeable(const Calibration &a, const Calibration &b, std::string *why);

// Parses the JSON text; on error returns false with *why saying what is wrong.
bool parse_calibration(const std::string &json, Calibration *out, std::string *why);
// The JSON text of c (the schema above).
std::string to_json(const Calibration &c);

// The calibration in the file at path (source: path); false with *why
// "PATH: cannot be read" or "PATH: " and what parse_calibration found.
bool read_calibration(const std::string &path, Calibration *out, std::string *why);

// Where the library looks, in order: `setting`, ACP_CALIBRATION's value
// (nullptr if unset; the caller reads it: this layer reads no variable of
// acpx's), a file that must exist and parse (kBuiltinName: the built-in
// defaults),
// $XDG_CONFIG_HOME/acpx/calibration.json (or
// ~/.config/acpx/calibration.json), then <datadir>/acpx/calibration.json.
// Loads the first that exists; built-in defaults if none. A file that
// exists but does not parse is an error (false, *why). The built-in
// defaults take node_cores (builtin_calibration_for; 0: this machine's
// online_cores); a file's "cores" are the cores it was measured on, kept
// as written. A file without curves between nodes (calibrated on one
// node) gets the built-in ones (net_source says so).
bool load_calibration(Calibration *out, std::string *why, unsigned node_cores, const char *setting);
// This machine's online CPUs (sysconf), 0 if unknown: what
// load_calibration fits the built-in defaults to.
unsigned online_cores();
// c's cores as the model takes them ("2 cores"), and for a file measured
// on another count than node_cores (this machine's online_cores; 0:
// unknown), that count too: its figures are likely another machine's.
std::string cores_in_use(const Calibration &c, unsigned node_cores);
// The per-user file the tools write by default.
std::string user_calibration_path();

}  // namespace acpx::collectives::model
