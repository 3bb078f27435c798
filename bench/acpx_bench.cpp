// acpx-bench: the acpx benchmarks. Run under a launcher:
//   acprun -n 3 acpx-bench copy [--sizes 8:4M] [--iters N] [--window W] [--csv FILE] [--quick]
//   acprun -n 2 acpx-bench calibrate [--out FILE];  acprun -n 4 acpx-bench model-check [--out FILE]
//
// Uses internal headers (basic/bootstrap/wire.hpp) for acprun's rank
// variable only: before acp_init, only rank 0 prints the usage.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "acp.h"
#include "basic/bootstrap/wire.hpp"
#include "bench_common.hpp"

namespace {
void usage(FILE *to) {
    std::fprintf(to,
                 "usage: acprun -n N acpx-bench SUBCOMMAND [options]\n"
                 "subcommands:\n"
                 "  copy   acp_copy latency and bandwidth: put, get, remote->remote (N >= 2; 3 for a\n"
                 "         true third party)\n"
                 "  bcast      persistent broadcast latency (root 0), OSU style\n"
                 "  allgather  persistent allgather latency, OSU style\n"
                 "  allreduce  persistent allreduce latency (sum of size / 8 doubles), OSU style\n"
                 "  overlap    bcast and allgather rounds while the members compute (osu_ibcast's\n"
                 "             method): overall, compute, pure round time and overlap %% per size\n"
                 "  memory     bytes a persistent handle holds per process, by type, algorithm,\n"
                 "             execution mode and role (measured); RSS per channel at each end\n"
                 "             and per acp_malloc block; modelled for 2^4..2^20\n"
                 "             members (CSV: source,handle,algo,exec,ranks,root_query_bytes,\n"
                 "             root_rss_bytes,member_query_bytes,member_rss_bytes; the model\n"
                 "             goes to FILE_model.csv, with the roots' plan build time and peak)\n"
                 "  calibrate  the collectives' model samples on this machine (2 ranks: 2-member\n"
                 "             rounds with and without inline slots; memcpy) as a calibration\n"
                 "             file (JSON) at --out or ~/.config/acpx/calibration.json; then on 2\n"
                 "             ranks of two nodes, adds the network's curves to that file\n"
                 "  model-check  every algorithm, measured vs predicted, per size (CSV at --out,\n"
                 "             default model_check.csv; columns op,algo,procs,size,measured_us,\n"
                 "             predicted_us,ratio), and how often the model picks the best;\n"
                 "             --predict-only: the predictions alone (measured 0)\n"
                 "  channel    ACP channels between ranks 0 and 1: ping-pong latency (half the round\n"
                 "             trip) and streaming bandwidth (--window sends, then a reply), OSU style\n"
                 "  placement  ns one way for a cache line between ranks 0 and 1 (the probe\n"
                 "             calibrate and model-check take their samples by), now and at\n"
                 "             best, and the rule for far (output: 'pair_ns now N best B\n"
                 "             far_over Fx T': over F times the best and over T ns); with\n"
                 "             --near NS it first waits up to 0.5 s for a pair that is not\n"
                 "             far from the best or NS\n"
                 "options:\n"
                 "  --sizes MIN:MAX   message sizes, powers of two between (default 8:4M)\n"
                 "  --iters N         iterations per small size (default 10000)\n"
                 "  --window W        copies in flight for bandwidth (default 64)\n"
                 "  --csv FILE        append rows to FILE (columns: benchmark,op,size,latency_us,\n"
                 "                    bandwidth_MBps,iterations,ranks,transport)\n"
                 "  --memory user|starter|malloc  user: buffers the program registers (default);\n"
                 "                    starter: acpx's starter memory, which on-node peers map\n"
                 "                    (needs acprun --starter-memsize >= max size + 4K);\n"
                 "                    malloc: blocks of acp_malloc, which on-node peers map too\n"
                 "                    (bcast, allgather: a direct handle's arrays)\n"
                 "  --mode direct|buffered|one-call  collectives: user arrays, library buffers\n"
                 "                    (default direct), or acp_bcast / acp_allgather (cached handles)\n"
                 "  --exec root|delegated   collectives: execution mode (default: ACP_COL_EXEC)\n"
                 "  --transport ucx|ofi[:PROVIDER]  sets ACP_TRANSPORT (and FI_PROVIDER), e.g.\n"
                 "                    --transport ofi:shm, --transport 'ofi:tcp;ofi_rxm'\n"
                 "  --out FILE        calibrate: the calibration file; model-check: the CSV\n"
                 "  --quick           two sizes, few iterations (for tests)\n"
                 "  --predict-only    model-check: no measurements\n"
                 "  --near NS         placement: the pair's time to wait for (a calibration's pair_ns)\n"
                 "  --sweeps K        calibrate: measure every curve K times over, each sample the\n"
                 "                    median (default 3; 1 with --quick; at most 9)\n"
                 "  --noise PERIOD:LEN  allreduce: each round timed; every size without, then with a\n"
                 "                    timer per rank spinning LEN us every PERIOD us (seed 001's noise:\n"
                 "                    10000:100); mean, p99, p99.9 (--noise-seed S: the timers' phases)\n"
                 "  --late RANK:US:EVERY  allreduce: RANK spins US us before every EVERY-th send\n"
                 "  --rounds N        allreduce: timed rounds per size with --noise/--late (default 100000)\n"
                 "  --handle B        bcast, allgather (direct, buffered): each handle of at least B bytes\n"
                 "                    (a member), its rounds of each size: small rounds on a large handle\n"
                 "  --skew B          copy: rank r's buffer starts r x B bytes past a page boundary\n"
                 "                    (default 0), so copies from rank r to r + 1 run B bytes apart\n"
                 "                    modulo 4096: distances some CPUs copy several times slower\n");
}

// Whether this process is the launcher's rank 0 (ACP_RUN_RANK, or
// PMIX_RANK under mpirun), or runs alone.
bool rank_zero() {
    const char *rank = std::getenv(acpx::wire::kEnvRank);
    if (!rank) rank = std::getenv("PMIX_RANK");
    return !rank || std::strcmp(rank, "0") == 0;
}

// Every rank parses the same arguments before acp_init, so every rank
// would print the same usage or complaint: only rank 0 does. The others'
// stdout and stderr go to /dev/null meanwhile.
class QuietOffRankZero {
  public:
    QuietOffRankZero() {
        if (rank_zero()) return;
        const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null < 0) return;
        std::fflush(nullptr);
        for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
            saved_[fd] = dup(fd);
            if (saved_[fd] >= 0) dup2(null, fd);
        }
        close(null);
    }
    ~QuietOffRankZero() {
        std::fflush(nullptr);
        for (int fd : {STDOUT_FILENO, STDERR_FILENO})
            if (saved_[fd] >= 0) dup2(saved_[fd], fd), close(saved_[fd]);
    }
    QuietOffRankZero(const QuietOffRankZero &) = delete;
    QuietOffRankZero &operator=(const QuietOffRankZero &) = delete;

  private:
    int saved_[3] = {-1, -1, -1};  // by descriptor: stdout's and stderr's originals
};

// The subcommand and its options: 0 when they are good, -1 after --help
// (exit 0), else main's exit status.
int parse(int argc, char **argv, std::string *cmd, acpx::bench::Options *o) {
    QuietOffRankZero quiet;
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : -1;
    }
    *cmd = argv[1];
    if (*cmd != "copy" && *cmd != "bcast" && *cmd != "allgather" && *cmd != "allreduce" && *cmd != "overlap" &&
        *cmd != "memory" && *cmd != "calibrate" && *cmd != "model-check" && *cmd != "placement" && *cmd != "channel") {
        std::fprintf(stderr, "acpx-bench: unknown subcommand '%s'\n", cmd->c_str());
        usage(stderr);
        return 2;
    }
    if (!acpx::bench::parse_options(argc - 1, argv + 1, o)) {
        usage(stderr);
        return 2;
    }
    return 0;
}
}  // namespace

int main(int argc, char **argv) {
    std::string cmd;
    acpx::bench::Options o;
    if (const int rc = parse(argc, argv, &cmd, &o)) {
        // The other ranks fail after rank 0, which says why: the launcher
        // names the first rank to fail and stops the rest (acprun within
        // 250 ms), so it would otherwise name a silent rank, or stop rank 0
        // before it wrote. Bounded: they exit anyway after 2 s.
        if (rc > 0 && !rank_zero()) std::this_thread::sleep_for(std::chrono::seconds(2));
        return rc < 0 ? 0 : rc;
    }
    if (acp_init(&argc, &argv) != 0) return 1;
    const int rc = cmd == "copy"          ? acpx::bench::run_copy(o)
                   : cmd == "memory"      ? acpx::bench::run_memory(o)
                   : cmd == "calibrate"   ? acpx::bench::run_calibrate(o)
                   : cmd == "model-check" ? acpx::bench::run_model_check(o)
                   : cmd == "placement"   ? acpx::bench::run_placement(o)
                   : cmd == "channel"     ? acpx::bench::run_channel(o)
                   : cmd == "allreduce"   ? acpx::bench::run_allreduce(o)
                   : cmd == "overlap"     ? acpx::bench::run_overlap(o)
                                          : acpx::bench::run_collective(o, cmd == "bcast");
    return acp_finalize() == 0 ? rc : 1;
}
