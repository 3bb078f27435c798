// acprun: starts N processes of an acpx program on this machine.
//
// Gives the ranks a start-up exchange (allgather) over a Unix-domain socket
// in a private 0700 directory; a rank joins with the job's random cookie,
// so no other process can. Forwards INT/TERM/HUP/QUIT/USR1/USR2 to the
// ranks. When a rank fails (non-zero exit or a signal), prints which and
// how, stops the others, and exits with that rank's status (128+signal for
// a signal); of the ranks that fail within 250 ms, it names one killed by
// a signal first (failures.hpp). Option parsing: getopt_long, from the C library.
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "basic/bootstrap/wire.hpp"
#include "binding.hpp"
#include "failures.hpp"
#include "acpx_config.h"

namespace {

namespace wire = acpx::wire;

constexpr size_t kMaxFrame = 64u << 20;
constexpr int kIoTimeoutMs = 10000;
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

struct Options {
    int np = 0;
    std::string transport;
    std::string starter_memsize;
    std::string timeout;
    bool verbose = false;
    acpx::launcher::BindTo bind_to = acpx::launcher::BindTo::kAuto;
    char **argv = nullptr;  // the program and its arguments
};

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: acprun -n N [options] program [args...]\n"
                 "Starts N processes of an acpx program on this machine.\n\n"
                 "  -n, --np N                 number of processes (ranks)\n"
                 "      --transport ucx|ofi    transport (sets ACP_TRANSPORT)\n"
                 "      --starter-memsize B    starter memory per rank, bytes, K/M/G suffix\n"
                 "                             (sets ACP_STARTER_MEMSIZE)\n"
                 "      --timeout S            seconds an internal wait may last (ACP_TIMEOUT)\n"
                 "      --bind-to auto|none|core  auto (default): core when every core gets as\n"
                 "                             many ranks (N <= cores or a multiple), else none;\n"
                 "                             none: the kernel places the ranks;\n"
                 "                             core: rank r runs on core r mod cores\n"
                 "                             (the cores acprun may run on: taskset narrows them)\n"
                 "  -v, --verbose              print the set-up (ACP_VERBOSE=1)\n"
                 "  -h, --help                 this text\n"
                 "  -V, --version              the acpx version\n\n"
                 "Exit status: 0 if every rank exits 0; otherwise the failing rank's exit\n"
                 "status, or 128+signal if it was killed by a signal. Of the ranks that fail\n"
                 "within 250 ms of the first, one killed by a signal is named first: the\n"
                 "others' errors are likely its peers losing it.\n");
}

bool parse(int argc, char **argv, Options *o) {
    enum { kTransport = 256, kStarter, kTimeout, kBindTo };
    static const option longs[] = {{"np", required_argument, nullptr, 'n'},
                                   {"transport", required_argument, nullptr, kTransport},
                                   {"starter-memsize", required_argument, nullptr, kStarter},
                                   {"timeout", required_argument, nullptr, kTimeout},
                                   {"bind-to", required_argument, nullptr, kBindTo},
                                   {"verbose", no_argument, nullptr, 'v'},
                                   {"help", no_argument, nullptr, 'h'},
                                   {"version", no_argument, nullptr, 'V'},
                                   {nullptr, 0, nullptr, 0}};
    int c;
    // "+": stop at the first non-option, which is the program.
    while ((c = getopt_long(argc, argv, "+n:vhV", longs, nullptr)) != -1) {
        switch (c) {
            case 'n': {
                char *end = nullptr;
                long v = std::strtol(optarg, &end, 10);
                if (*end || v < 1 || v > (1 << 20)) {
                    std::fprintf(stderr, "acprun: -n: '%s' is not a number of processes in [1, 1048576]\n", optarg);
                    return false;
                }
                o->np = static_cast<int>(v);
                break;
            }
            case kTransport:
                if (std::strcmp(optarg, "ucx") != 0 && std::strcmp(optarg, "ofi") != 0) {
                    std::fprintf(stderr, "acprun: --transport: '%s' is not ucx or ofi\n", optarg);
                    return false;
                }
                o->transport = optarg;
                break;
            case kStarter: o->starter_memsize = optarg; break;
            case kTimeout: o->timeout = optarg; break;
            case kBindTo:
                if (!acpx::launcher::parse_bind_to(optarg, &o->bind_to)) {
                    std::fprintf(stderr, "acprun: --bind-to: '%s' is not auto, none or core\n", optarg);
                    return false;
                }
                break;
            case 'v': o->verbose = true; break;
            case 'h': usage(stdout); std::exit(0);
            case 'V': std::printf("acprun (acpx) %s\n", PACKAGE_VERSION); std::exit(0);
            default: usage(stderr); return false;
        }
    }
    if (o->np == 0) {
        std::fprintf(stderr, "acprun: -n N is required\n");
        usage(stderr);
        return false;
    }
    if (optind >= argc) {
        std::fprintf(stderr, "acprun: no program given\n");
        usage(stderr);
        return false;
    }
    o->argv = argv + optind;
    return true;
}

std::string make_cookie() {
    unsigned char raw[wire::kCookieChars / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            std::perror("acprun: getrandom");
            std::exit(1);
        }
        got += static_cast<size_t>(n);
    }
    static const char hex[] = "0123456789abcdef";
    std::string s;
    for (unsigned char b : raw) {
        s += hex[b >> 4];
        s += hex[b & 15];
    }
    return s;
}

// Constant-time comparison, so the cookie cannot be guessed byte by byte.
bool same(const char *a, const std::string &b) {
    unsigned char diff = 0;
    for (size_t i = 0; i < b.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

struct Rank {
    pid_t pid = -1;
    bool running = false;
    int fd = -1;               // control connection, once joined
    bool contributed = false;  // to the current allgather
    std::vector<uint8_t> blob;
};

class Launcher {
  public:
    explicit Launcher(const Options &o) : opt_(o), ranks_(o.np) {}

    int run() {
        std::string why;
        if (!binding_.init(opt_.bind_to, opt_.np, &why)) {
            std::fprintf(stderr, "acprun: --bind-to core: %s\n", why.c_str());
            return 1;
        }
        if (opt_.verbose && opt_.bind_to == acpx::launcher::BindTo::kAuto) {
            const bool bound = binding_.how() == acpx::launcher::BindTo::kCore;
            std::fprintf(stderr, "acprun: --bind-to auto: %s (%d ranks, %d cores%s%s)\n", bound ? "core" : "none",
                         opt_.np, binding_.cores(), why.empty() ? "" : "; ", why.c_str());
        }
        if (!listen_socket() || !block_signals()) return 1;
        cookie_ = make_cookie();
        for (int r = 0; r < opt_.np; ++r)
            if (!spawn(r)) {
                stop_all(SIGKILL);
                reap_all();
                cleanup();
                return 127;
            }
        loop();
        cleanup();
        return exit_status_;
    }

  private:
    bool listen_socket() {
        const char *tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/acprun.XXXXXX";
        std::vector<char> buf(templ.begin(), templ.end());
        buf.push_back('\0');
        if (!mkdtemp(buf.data())) {  // mode 0700
            std::fprintf(stderr, "acprun: cannot create a directory in %s: %s\n", tmp ? tmp : "/tmp",
                         std::strerror(errno));
            return false;
        }
        dir_ = buf.data();
        path_ = dir_ + "/ctl";
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (path_.size() >= sizeof addr.sun_path) {
            std::fprintf(stderr, "acprun: socket path too long: %s (set TMPDIR)\n", path_.c_str());
            return false;
        }
        std::strcpy(addr.sun_path, path_.c_str());
        listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const mode_t old = umask(0177);  // the socket is created 0600
        const int rc = bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        umask(old);
        if (rc != 0 || listen(listen_fd_, 128) != 0) {
            std::fprintf(stderr, "acprun: cannot listen on %s: %s\n", path_.c_str(), std::strerror(errno));
            return false;
        }
        return true;
    }

    bool block_signals() {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGCHLD);
        for (int s : kForwarded) sigaddset(&set, s);
        sigprocmask(SIG_BLOCK, &set, &old_mask_);
        sig_fd_ = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sig_fd_ < 0) {
            std::perror("acprun: signalfd");
            return false;
        }
        return true;
    }

    bool spawn(int r) {
        const pid_t pid = fork();
        if (pid < 0) {
            std::fprintf(stderr, "acprun: cannot start rank %d: %s\n", r, std::strerror(errno));
            return false;
        }
        if (pid == 0) {
            // If acprun dies (even by SIGKILL, which it cannot forward), its
            // ranks die with it rather than run on with nobody to report
            // to. The check after it covers a death before the prctl.
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent_) _exit(127);
            sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
            setenv(wire::kEnvSocket, path_.c_str(), 1);
            setenv(wire::kEnvCookie, cookie_.c_str(), 1);
            setenv(wire::kEnvRank, std::to_string(r).c_str(), 1);
            setenv(wire::kEnvProcs, std::to_string(opt_.np).c_str(), 1);
            if (!opt_.transport.empty()) setenv("ACP_TRANSPORT", opt_.transport.c_str(), 1);
            if (!opt_.starter_memsize.empty()) setenv("ACP_STARTER_MEMSIZE", opt_.starter_memsize.c_str(), 1);
            if (!opt_.timeout.empty()) setenv("ACP_TIMEOUT", opt_.timeout.c_str(), 1);
            if (opt_.verbose) setenv("ACP_VERBOSE", "1", 1);
            std::string where, why;
            if (!binding_.apply(r, &where, &why)) {
                std::fprintf(stderr, "acprun: rank %d: --bind-to core: %s\n", r, why.c_str());
                _exit(127);
            }
            if (opt_.verbose && !where.empty()) std::fprintf(stderr, "acprun: rank %d bound to %s\n", r, where.c_str());
            execvp(opt_.argv[0], opt_.argv);
            std::fprintf(stderr, "acprun: cannot execute %s: %s\n", opt_.argv[0], std::strerror(errno));
            _exit(127);
        }
        ranks_[r].pid = pid;
        ranks_[r].running = true;
        ++running_;
        return true;
    }

    using Clock = std::chrono::steady_clock;

    // Milliseconds until t (0 if past), for poll.
    static int ms_until(Clock::time_point t) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
        return left > 0 ? static_cast<int>(left) : 0;
    }

    void loop() {
        while (running_ > 0) {
            std::vector<pollfd> fds{{sig_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
            std::vector<int> who;
            for (int r = 0; r < opt_.np; ++r)
                if (ranks_[r].fd >= 0) {
                    fds.push_back({ranks_[r].fd, POLLIN, 0});
                    who.push_back(r);
                }
            int wait_ms = -1;
            if (stopping_)
                wait_ms = ms_until(kill_at_);
            else if (!failures_.empty())
                wait_ms = ms_until(name_at_);
            const int n = poll(fds.data(), fds.size(), wait_ms);
            if (n < 0 && errno != EINTR) break;
            if (stopping_ && Clock::now() >= kill_at_) {
                stop_all(SIGKILL);
                kill_at_ = Clock::now() + std::chrono::seconds(1);  // poll, not spin, until they are reaped
            }
            if (n > 0) {
                if (fds[0].revents) on_signal();
                if (fds[1].revents & POLLIN) accept_rank();
                for (size_t i = 2; i < fds.size(); ++i)  // skip ranks reaped above
                    if (fds[i].revents && ranks_[who[i - 2]].fd == fds[i].fd) read_rank(who[i - 2]);
                maybe_answer_allgather();
            }
            if (!failures_.empty() && !named_ && (Clock::now() >= name_at_ || running_ == 0)) name_failure();
        }
        if (!failures_.empty() && !named_) name_failure();  // every rank ended within the window
    }

    // Stops the ranks: SIGTERM now (sig), SIGKILL to those left after 3 s.
    // SIGCONT after the signal, as Slurm and Open MPI send it: a stopped
    // rank (SIGSTOP, a debugger's) would hold it for the whole 3 s.
    void begin_stopping(int sig) {
        if (stopping_) return;
        stopping_ = true;
        kill_at_ = Clock::now() + std::chrono::seconds(3);
        if (sig) {
            stop_all(sig);
            stop_all(SIGCONT);
        }
    }

    // The window after the first failure is over: name its cause (and the
    // others), end the job with its status, stop the rest.
    void name_failure() {
        named_ = true;
        const size_t cause = acpx::launcher::root_cause(failures_);
        std::fprintf(stderr, "acprun: %s; stopping the other ranks\n",
                     acpx::launcher::describe(failures_[cause]).c_str());
        for (size_t i = 0; i < failures_.size(); ++i)
            if (i != cause)
                std::fprintf(stderr, "acprun: %s, within %d ms\n", acpx::launcher::describe(failures_[i]).c_str(),
                             acpx::launcher::kFailureWindowMs);
        exit_status_ = acpx::launcher::job_status(failures_[cause]);
        begin_stopping(SIGTERM);
    }

    void on_signal() {
        signalfd_siginfo si;
        while (read(sig_fd_, &si, sizeof si) == sizeof si) {
            if (si.ssi_signo == SIGCHLD) {
                reap();
                continue;
            }
            // Forwarded signals: the ranks decide; their exits are reported as usual.
            for (auto &r : ranks_)
                if (r.running) kill(r.pid, static_cast<int>(si.ssi_signo));
            if (si.ssi_signo != SIGUSR1 && si.ssi_signo != SIGUSR2 && !stopping_) {
                if (exit_status_ == 0) exit_status_ = 128 + static_cast<int>(si.ssi_signo);
                begin_stopping(0);
            }
        }
    }

    void reap() {
        int status = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            int r = 0;
            while (r < opt_.np && ranks_[r].pid != pid) ++r;
            if (r == opt_.np) continue;
            ranks_[r].running = false;
            --running_;
            close_rank(r);
            const bool failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            // Failures after the job is stopping are acprun's own kills
            // (naming a failure stops the job).
            if (!failed || stopping_) continue;
            if (failures_.empty())
                name_at_ = Clock::now() + std::chrono::milliseconds(acpx::launcher::kFailureWindowMs);
            failures_.push_back({r, pid, status});
        }
    }

    void reap_all() {
        while (running_ > 0) {
            int status;
            if (wait(&status) < 0) break;
            --running_;
        }
    }

    void stop_all(int sig) {
        for (auto &r : ranks_)
            if (r.running) kill(r.pid, sig);
    }

    void accept_rank() {
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;
        char cookie[wire::kCookieChars];
        uint32_t r = 0;
        if (!wire::read_all(fd, cookie, sizeof cookie, kIoTimeoutMs) ||
            !wire::read_all(fd, &r, sizeof r, kIoTimeoutMs) || !same(cookie, cookie_) ||
            r >= static_cast<uint32_t>(opt_.np) || ranks_[r].fd >= 0) {
            close(fd);  // not one of ours, or a rank joining twice
            return;
        }
        ranks_[r].fd = fd;
    }

    void read_rank(int r) {
        Rank &k = ranks_[r];
        if (k.contributed || !wire::read_frame(k.fd, &k.blob, kMaxFrame, kIoTimeoutMs)) {
            close_rank(r);  // the rank closed the socket (finished or died) or misbehaved
            return;
        }
        k.contributed = true;
    }

    void close_rank(int r) {
        if (ranks_[r].fd >= 0) close(ranks_[r].fd);
        ranks_[r].fd = -1;
    }

    void maybe_answer_allgather() {
        for (const auto &k : ranks_)
            if (!k.contributed) return;
        for (auto &k : ranks_) {
            const uint64_t count = ranks_.size();
            bool ok = wire::write_all(k.fd, &count, sizeof count, kIoTimeoutMs);
            for (const auto &src : ranks_) ok = ok && wire::write_frame(k.fd, src.blob, kIoTimeoutMs);
            (void)ok;  // a rank that cannot be answered fails on its own, and is reported
        }
        for (auto &k : ranks_) k.contributed = false;
    }

    void cleanup() {
        for (int r = 0; r < opt_.np; ++r) close_rank(r);
        if (listen_fd_ >= 0) close(listen_fd_);
        if (!path_.empty()) unlink(path_.c_str());
        if (!dir_.empty()) rmdir(dir_.c_str());
    }

    Options opt_;
    acpx::launcher::Binding binding_;
    std::vector<Rank> ranks_;
    std::string dir_, path_, cookie_;
    int listen_fd_ = -1;
    int sig_fd_ = -1;
    sigset_t old_mask_{};
    const pid_t parent_ = getpid();  // the ranks' parent: acprun itself
    int running_ = 0;
    bool stopping_ = false;
    Clock::time_point kill_at_{};
    std::vector<acpx::launcher::Failure> failures_;  // within the window after the first
    Clock::time_point name_at_{};                    // when the window ends
    bool named_ = false;
    int exit_status_ = 0;
};

}  // namespace

int main(int argc, char **argv) {
    Options o;
    if (!parse(argc, argv, &o)) return 2;
    return Launcher(o).run();
}
