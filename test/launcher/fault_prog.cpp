// A program whose ranks misbehave on purpose, for launcher_test.
//   fault_prog exit N      rank 1 exits with status N; the others wait in acp_sync
//   fault_prog kill        rank 1 is killed by SIGKILL; the others wait in acp_sync
//   fault_prog exit-then-kill  rank 2 exits with status 1, rank 1 is killed by
//                          SIGKILL 50 ms later (a death that reaches acprun
//                          after the error exit it caused)
//   fault_prog never-sync  rank 1 stops (SIGSTOP) before acp_sync; the others time out there
//   fault_prog sleep       every rank sleeps (for signal forwarding)
//   fault_prog socket      checks acprun's socket: modes 0700/0600, bad cookie refused
//   fault_prog after-finalize  calls after acp_finalize fail cleanly
//   fault_prog starter BYTES   the starter memory holds exactly BYTES, zeroed
//   fault_prog col-never-send  persistent bcast of 70000 bytes from rank 0 (above
//                              the inline slots); the last rank never sends, the
//                              waits of those that send to it time out
//   fault_prog col-never-send-small  the same with 1000 bytes, 3 rounds: they go
//                              ahead of it; the frees of those that send to it
//                              time out (every wait and free prints its return)
//   fault_prog col-kill        rank 1 is killed between create and send of a
//                              persistent bcast; the others are waiting in it
//   fault_prog col-late-root-buffered  a buffered bcast of 200 KiB from rank 0
//                              (written into rank 1's array, above the inline
//                              slots): rank 0 sends 3 s late, rank 1's wait
//                              times out (ACP_TIMEOUT=2), it marks its array;
//                              then rank 0's round must not write there
//                              (prints "rank 1: array untouched: yes|no")
//   fault_prog steady-traffic  rank 0 waits in acp_complete for a copy that
//                          stopped rank 2 must execute, while rank 1 keeps
//                          rank 0 busy with copies it executes (10 s); rank
//                          0's wait must still end at ACP_TIMEOUT
//   fault_prog busy-peer SECONDS  rank 1 copies into rank 0 for SECONDS before its
//                          acp_sync, while rank 0 waits there: rank 1 answers
//                          rank 0's liveness probes, so rank 0's wait outlasts
//                          ACP_TIMEOUT (prints "rank 0: synced after S s")
//   fault_prog oom         with the address space limited to what the process
//                          has plus 32 MiB, 1 GiB buffered handles fail with a
//                          message, a small handle still works, and the
//                          process goes on (prints "oom: survived")
//   fault_prog oom-one     3 ranks: rank 1's address space is limited (as
//                          oom); a buffered bcast of 256 MiB fails on every
//                          member, naming rank 1 (its memory), then a small
//                          one works (prints "oom-one: rank R: create failed"
//                          and "oom-one: rank R: survived")
//   fault_prog libraries   each rank says, after acp_init, whether libfabric is
//                          loaded in it ("libfabric loaded: yes" or "no")
//   fault_prog ch-stopped-sender | ch-killed-sender | ch-stopped-receiver
//                          a channel 0 -> 1: rank 0 stops (SIGSTOP) or is
//                          killed instead of sending, or rank 1 stops
//                          instead of receiving a 5,000-byte message; the
//                          other end prints "rank R: send|receive returned
//                          -1" (or "a size") and exits 1 (or 2)
//   fault_prog sb-stopped-dst  rank 1 stops before creating its end of a
//                          segmented buffer from rank 0; rank 0's connect
//                          prints "rank 0: connect returned N"
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "acp.h"

namespace {

// A helper's "carry on to the final acp_sync"; else its exit status.
constexpr int kGoOn = -1;

int check_socket() {
    const char *path = std::getenv("ACP_RUN_SOCKET");
    if (!path) return std::fprintf(stderr, "no ACP_RUN_SOCKET\n"), 1;
    struct stat st;
    if (stat(path, &st) != 0 || (st.st_mode & 0777) != 0600)
        return std::fprintf(stderr, "socket mode %o\n", st.st_mode & 0777), 1;
    std::string dir(path);
    dir.resize(dir.rfind('/'));
    if (stat(dir.c_str(), &st) != 0 || (st.st_mode & 0777) != 0700)
        return std::fprintf(stderr, "directory mode %o\n", st.st_mode & 0777), 1;
    // A client with the wrong cookie is disconnected without an answer.
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) return std::perror("connect"), 1;
    char bad[64 + 4] = {};
    std::memset(bad, 'f', 64);
    if (write(fd, bad, sizeof bad) != sizeof bad) return 1;
    char c;
    const ssize_t n = read(fd, &c, 1);  // 0: closed by acprun
    close(fd);
    if (n != 0) return std::fprintf(stderr, "bad cookie not refused\n"), 1;
    return 0;
}

// Limits this process's address space to what it has now plus margin_mib
// (RLIMIT_AS). False (reported) if it cannot.
bool limit_address_space(unsigned long long margin_mib) {
    std::ifstream status("/proc/self/status");
    std::string line;
    unsigned long long vm_kb = 0;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0) vm_kb = std::strtoull(line.c_str() + 7, nullptr, 10);
    const rlim_t cap = (vm_kb + margin_mib * 1024) * 1024;
    const rlimit lim{cap, cap};
    if (vm_kb == 0 || setrlimit(RLIMIT_AS, &lim) != 0) return std::perror("setrlimit"), false;
    return true;
}

// 1 GiB buffered handles under RLIMIT_AS fail with a message; a small
// handle still works. kGoOn, or the exit status.
int oom(int me) {
#if defined(__SANITIZE_ADDRESS__)
    // ASan reserves terabytes of shadow and dies rather than fail an
    // allocation under RLIMIT_AS: this check belongs to the plain build.
    std::fprintf(stderr, "oom: not under AddressSanitizer\n");
    acp_finalize();
    return 0;  // without the final acp_sync
#endif
    if (!limit_address_space(32)) return 1;
    int group[1] = {me};
    if (acp_create_bcast_buffered(me, 1, group, size_t{1} << 30) != ACP_COL_NULL)
        return std::fprintf(stderr, "a 1 GiB buffer under a 32 MiB margin was granted\n"), 1;
    if (acp_create_allgather_buffered(1, group, size_t{1} << 30) != ACP_COL_NULL)
        return std::fprintf(stderr, "a 1 GiB allgather buffer under a 32 MiB margin was granted\n"), 1;
    // Smaller things still work.
    std::vector<char> a(4096);
    acp_col_t h = acp_create_bcast_direct(me, 1, group, a.data(), a.size());
    if (h == ACP_COL_NULL || acp_wait_col(acp_send_bcast_direct(h, 0, a.size())) != 0 || acp_free_col(h) != 0)
        return std::fprintf(stderr, "a small handle failed after the large ones\n"), 1;
    std::fprintf(stderr, "oom: survived\n");
    return kGoOn;
}

// oom-one (see the top). kGoOn, or the exit status.
int oom_one(int me) {
#if defined(__SANITIZE_ADDRESS__)
    std::fprintf(stderr, "oom: not under AddressSanitizer\n");
    return kGoOn;
#endif
    if (acp_procs() != 3) return 1;
    if (me == 1 && !limit_address_space(64)) return 1;
    int group[3] = {0, 1, 2};
    if (acp_create_bcast_buffered(0, 3, group, size_t{256} << 20) != ACP_COL_NULL)
        return std::fprintf(stderr, "oom-one: rank %d: a handle without rank 1's buffer was made\n", me), 1;
    std::fprintf(stderr, "oom-one: rank %d: create failed\n", me);
    std::vector<char> a(4096, me == 0 ? 7 : 0);
    acp_col_t h = acp_create_bcast_direct(0, 3, group, a.data(), a.size());
    if (h == ACP_COL_NULL || acp_wait_col(acp_send_bcast_direct(h, 0, a.size())) != 0 || acp_free_col(h) != 0 ||
        a[4095] != 7)
        return std::fprintf(stderr, "oom-one: rank %d: a small handle failed after it\n", me), 1;
    std::fprintf(stderr, "oom-one: rank %d: survived\n", me);
    return kGoOn;
}

// Rank 0 waits for a copy stopped rank 2 must execute while rank 1 keeps
// it busy: its wait must still end at ACP_TIMEOUT.
int steady_traffic(int me) {
    const acp_ga_t s0 = acp_query_starter_ga(0), s1 = acp_query_starter_ga(1), s2 = acp_query_starter_ga(2);
    if (acp_sync() != 0) return 1;
    if (me == 2) raise(SIGSTOP);  // never executes what it is sent
    if (me == 0) {
        usleep(200 * 1000);                                       // rank 2 is stopped by now
        acp_complete(acp_copy(s1 + 64, s2, 8, ACP_HANDLE_NULL));  // executed by rank 2: never
        std::fprintf(stderr, "rank 0: the copy from the stopped rank completed\n");
        return 1;
    }
    if (me == 1) {  // each copy is a command that rank 0's progress executes
        // Four batches in flight: rank 0 always has commands waiting, so
        // its progress never goes idle for long (a wait that read the
        // clock only when idle never timed out).
        const auto t0 = std::chrono::steady_clock::now();
        acp_handle_t batch_end[4] = {ACP_HANDLE_NULL, ACP_HANDLE_NULL, ACP_HANDLE_NULL, ACP_HANDLE_NULL};
        for (unsigned b = 0; std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10); ++b) {
            if (batch_end[b % 4] != ACP_HANDLE_NULL) acp_complete(batch_end[b % 4]);
            for (int i = 0; i < 256; ++i) batch_end[b % 4] = acp_copy(s0 + 128, s0 + 256, 8, ACP_HANDLE_NULL);
        }
        acp_complete(ACP_HANDLE_ALL);
        std::fprintf(stderr, "rank 1: traffic for 10 s and the job is still on\n");
    }
    return kGoOn;
}

// col-late-root-buffered (see the top).
int col_late_root(int me) {
    if (acp_procs() != 2) return 1;
    int group[2] = {0, 1};
    acp_col_t h = acp_create_bcast_buffered(0, 2, group, 256 << 10);
    if (h == ACP_COL_NULL) return 1;
    std::vector<char> a(200 << 10, me == 0 ? 0x11 : 0);
    if (me == 0) sleep(3);
    const int rc = acp_wait_col(acp_send_bcast_buffered(h, a.data(), a.size()));
    std::fprintf(stderr, "rank %d: acp_wait_col returned %d\n", me, rc);
    if (me == 1) std::fill(a.begin(), a.end(), 0x5A);  // the application takes its array back
    if (acp_sync() != 0) return 1;                     // rank 0's round is over
    if (me == 1) {
        const bool untouched = std::all_of(a.begin(), a.end(), [](char x) { return x == 0x5A; });
        std::fprintf(stderr, "rank 1: array untouched: %s\n", untouched ? "yes" : "no");
    }
    acp_free_col(h);
    return kGoOn;
}

// col-never-send, col-never-send-small, col-kill (see the top).
int col_fault(const std::string &mode, int me) {
    const bool never_send = mode == "col-never-send" || mode == "col-never-send-small";
    const int n = acp_procs();
    std::vector<int> group(n);
    for (int i = 0; i < n; ++i) group[i] = i;
    const bool small = mode == "col-never-send-small";
    std::vector<char> a(small ? 1000 : 70000, 0);
    acp_col_t h = acp_create_bcast_direct(0, n, group.data(), a.data(), a.size());
    if (h == ACP_COL_NULL) return 1;
    if (mode == "col-kill" && me == 1) raise(SIGKILL);
    if (never_send && me == n - 1) {
        sleep(3);  // never sends; reaches the final barrier after the others gave up (ACP_TIMEOUT=2)
        if (acp_free_col(h) != 0) return 1;
    } else {
        int failed = 0;
        for (int round = 0; round < (small ? 3 : 1) && !failed; ++round) {
            acp_request_t r = acp_send_bcast_direct(h, 0, a.size());
            if (r == ACP_REQUEST_NULL) return 1;
            failed = acp_wait_col(r);
            std::fprintf(stderr, "rank %d: acp_wait_col returned %d\n", me, failed);
        }
        const int freed = acp_free_col(h);
        std::fprintf(stderr, "rank %d: acp_free_col returned %d\n", me, freed);
        // A rank that did not wait for the silent one is done at once:
        // it would reach the final barrier a whole ACP_TIMEOUT before
        // the ranks that time out, and give up there first. Arrive
        // about when they do.
        if (!failed && freed == 0 && never_send) usleep(1500 * 1000);
    }
    return kGoOn;
}

// Bcast rounds of 64 KiB over every rank for SECONDS (rank 0's clock:
// it sets the last round's first byte), each checked on every rank:
// what the two-host fault tests cut the link under.
int col_rounds(int me, int seconds) {
    const int n = acp_procs();
    std::vector<int> group(n);
    for (int i = 0; i < n; ++i) group[i] = i;
    std::vector<unsigned char> a(65536, 0);
    const acp_col_t h = acp_create_bcast_direct(0, n, group.data(), a.data(), a.size());
    if (h == ACP_COL_NULL) return 1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    unsigned rounds = 0;
    for (bool last = false; !last; ++rounds) {
        if (me == 0) {
            last = std::chrono::steady_clock::now() >= deadline;
            std::memset(a.data(), static_cast<int>(rounds % 251), a.size());
            a[0] = last ? 1 : 0;
        }
        const int rc = acp_wait_col(acp_send_bcast_direct(h, 0, a.size()));
        if (rc != 0) return std::fprintf(stderr, "rank %d: round %u failed\n", me, rounds), 3;
        last = a[0] == 1;
        for (size_t i = 1; i < a.size(); ++i)
            if (a[i] != rounds % 251)
                return std::fprintf(stderr, "rank %d: round %u: byte %zu wrong\n", me, rounds, i), 4;
    }
    if (acp_free_col(h) != 0) return 1;
    std::fprintf(stderr, "rank %d: %u rounds done\n", me, rounds);
    return kGoOn;
}

// Rank 1 busy copying into rank 0 for `seconds`; rank 0 in acp_sync.
int busy_peer(int me, int seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    if (me == 1) {
        const acp_ga_t to = acp_query_starter_ga(0), from = acp_query_starter_ga(1);
        while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(seconds))
            acp_complete(acp_copy(to + 64, from + 64, 4096, ACP_HANDLE_NULL));
    }
    if (acp_sync() != 0) return 1;
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - t0;
    std::fprintf(stderr, "rank %d: synced after %.1f s\n", me, waited.count());
    return kGoOn;
}

// The starter memory holds exactly `size` bytes, zeroed.
int starter(int me, uint64_t size) {
    const int peer = (me + 1) % acp_procs();
    const acp_ga_t mine = acp_query_starter_ga(me), theirs = acp_query_starter_ga(peer);
    auto *p = static_cast<unsigned char *>(acp_query_address(mine));
    for (uint64_t i = 0; i < size; ++i)
        if (p[i] != 0) return std::fprintf(stderr, "starter byte %llu not zero\n", (unsigned long long)i), 1;
    p[size - 1] = 42;
    if (acp_sync() != 0) return 1;
    // The last byte is reachable; one more is not.
    acp_handle_t h = acp_copy(mine, theirs + size - 1, 1, ACP_HANDLE_NULL);
    if (h == ACP_HANDLE_NULL) return 1;
    acp_complete(h);
    if (p[0] != 42) return std::fprintf(stderr, "last starter byte not copied\n"), 1;
    if (acp_copy(mine, theirs + size - 1, 2, ACP_HANDLE_NULL) != ACP_HANDLE_NULL)
        return std::fprintf(stderr, "copy past the starter memory accepted\n"), 1;
    return kGoOn;
}
// A channel from rank 0 to rank 1 whose one end never comes: the other
// end's request must fail (at ACP_TIMEOUT for a stopped peer; a killed one
// ends the job first).
int channel_peer_gone(const std::string &mode, int me) {
    if (me > 1) return kGoOn;
    acp_ch_t ch = acp_create_ch(0, 1);
    if (ch == ACP_CH_NULL) return 1;
    const int absent = mode == "ch-stopped-receiver" ? 1 : 0;
    if (me == absent) {
        if (mode == "ch-killed-sender") raise(SIGKILL);
        raise(SIGSTOP);
        return 0;
    }
    std::vector<char> buf(5000, 1);
    const size_t got = me == 0 ? acp_wait_ch(acp_nbsend_ch(ch, buf.data(), buf.size()))
                               : acp_wait_ch(acp_nbrecv_ch(ch, buf.data(), buf.size()));
    const bool failed = got == static_cast<size_t>(-1);
    std::fprintf(stderr, "rank %d: %s returned %s\n", me, me == 0 ? "send" : "receive", failed ? "-1" : "a size");
    return failed ? 1 : 2;  // either ends the job: acprun stops the absent rank
}

// A segmented buffer from rank 0 whose destination never creates its end.
int segbuf_peer_gone(int me) {
    if (me == 1) {
        raise(SIGSTOP);
        return 0;
    }
    if (me != 0) return kGoOn;
    char buf[64];
    acp_segbuf_t sb = acp_create_src_segbuf(1, buf, 64, 1);
    const int rc = acp_connect_segbuf(sb);
    std::fprintf(stderr, "rank 0: connect returned %d\n", rc);
    acp_free_segbuf(sb);
    return 1;
}

}  // namespace

int main(int argc, char **argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "socket" && check_socket() != 0) return 1;
    if (acp_init(&argc, &argv) != 0) return 1;
    const int me = acp_rank();
    if (mode == "libraries") {  // libacpx opens libfabric only for the ofi transport
        std::ifstream maps("/proc/self/maps");
        std::string line;
        bool loaded = false;
        while (std::getline(maps, line)) loaded = loaded || line.find("/libfabric.so") != std::string::npos;
        std::fprintf(stderr, "rank %d: libfabric loaded: %s\n", me, loaded ? "yes" : "no");
    }
    // Connect everyone first, so the survivors wait for the failed rank in
    // the next acp_sync (and acprun reports it) rather than failing to
    // connect to a rank that is already gone.
    if ((mode == "exit" || mode == "kill" || mode == "exit-then-kill") && acp_sync() != 0) return 1;
    if (mode == "exit-then-kill" && me == 2) _exit(1);
    if (mode == "exit-then-kill" && me == 1) {
        usleep(50 * 1000);
        raise(SIGKILL);
    }
    if (mode == "exit" && me == 1) _exit(argc > 2 ? std::atoi(argv[2]) : 3);
    if (mode == "kill" && me == 1) raise(SIGKILL);
    if (mode == "never-sync" && me == 1) {
        raise(SIGSTOP);  // alive, it would answer the others' probes and they would wait on
        return 0;
    }
    if (mode == "sleep") sleep(60);
    int rc = kGoOn;
    if (mode.rfind("ch-", 0) == 0) rc = channel_peer_gone(mode, me);
    if (mode == "sb-stopped-dst") rc = segbuf_peer_gone(me);
    if (mode == "oom") rc = oom(me);
    if (mode == "oom-one") rc = oom_one(me);
    if (mode == "steady-traffic") rc = steady_traffic(me);
    if (mode == "col-never-send" || mode == "col-never-send-small" || mode == "col-kill") rc = col_fault(mode, me);
    if (mode == "col-rounds" && argc > 2) rc = col_rounds(me, std::atoi(argv[2]));
    if (mode == "col-late-root-buffered") rc = col_late_root(me);
    if (mode == "busy-peer" && argc > 2) rc = busy_peer(me, std::atoi(argv[2]));
    if (mode == "starter" && argc > 2) rc = starter(me, std::strtoull(argv[2], nullptr, 10));
    if (rc != kGoOn) return rc;
    if (acp_sync() != 0) return 1;
    if (acp_finalize() != 0) return 1;
    if (mode == "after-finalize") {
        if (acp_rank() != -1 || acp_sync() != -1 || acp_copy(1, 1, 1, ACP_HANDLE_NULL) != ACP_HANDLE_NULL) return 1;
    }
    return 0;
}
