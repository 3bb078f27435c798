// acprun and fault handling, driven from one process: failing ranks end
// the job quickly with a message naming them, signals are forwarded, the
// control socket keeps strangers out, and calls outside init fail cleanly.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "acp.h"
#include "acpx_config.h"
#include "basic/idle.hpp"
#include "tools/acprun/binding.hpp"
#include "tools/acprun/failures.hpp"

namespace {

struct JobResult {
    int status = -1;  // exit status, or 128+signal
    std::string err;  // what the job printed on stderr
    double seconds = 0;
    std::vector<std::pair<size_t, double>> arrivals;  // err's length and seconds since start, per read

    // When `what` first reached stderr, in seconds since the start (-1: never).
    double seconds_until(const std::string &what) const {
        const size_t at = err.find(what);
        if (at == std::string::npos) return -1;
        for (const auto &[length, t] : arrivals)
            if (length >= at + what.size()) return t;
        return -1;
    }
};

std::string builddir() {
    const char *b = std::getenv("ACPX_BUILDDIR");
    return b ? b : ".";
}

// Runs argv with extra environment, capturing stderr; kills it after
// limit_s, so a hang fails the test instead of the suite.
JobResult run(std::vector<std::string> argv, std::vector<std::string> env = {}, double limit_s = 60,
              int signal_after_1s = 0) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return {};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        for (auto &e : env) putenv(e.data());
        std::vector<char *> args;
        for (auto &a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(126);
    }
    close(pipefd[1]);
    std::thread signaller;
    if (signal_after_1s)
        signaller = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            kill(pid, signal_after_1s);
        });
    std::thread killer([&, pid] {
        const auto until = t0 + std::chrono::duration<double>(limit_s);
        while (std::chrono::steady_clock::now() < until) {
            if (kill(pid, 0) != 0) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        kill(pid, SIGKILL);
    });
    JobResult r;
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) {
        r.err.append(buf, static_cast<size_t>(n));
        r.arrivals.emplace_back(r.err.size(),
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    killer.join();
    if (signaller.joinable()) signaller.join();
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

JobResult acprun(int np, std::vector<std::string> args, std::vector<std::string> env = {}, int signal_after_1s = 0) {
    std::vector<std::string> argv{builddir() + "/acprun", "-n", std::to_string(np),
                                  builddir() + "/test/launcher/fault_prog"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, env, 60, signal_after_1s);
}

bool has(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(Acprun, AllRanksSucceed) {
    JobResult r = acprun(3, {"ok"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Acprun, FailingRankEndsTheJobWithItsStatus) {
    JobResult r = acprun(3, {"exit", "5"});
    EXPECT_EQ(r.status, 5) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1")) << r.err;
    EXPECT_TRUE(has(r.err, "exited with status 5")) << r.err;
    EXPECT_LT(r.seconds, 15);
}

TEST(Acprun, KilledRankEndsTheJobNamingTheSignal) {
    JobResult r = acprun(4, {"kill"});
    EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1")) << r.err;
    EXPECT_TRUE(has(r.err, "signal 9")) << r.err;
    EXPECT_LT(r.seconds, 15);
}

// A peer's error exit that reaches acprun before the kill that caused it:
// the kill is named, the exit listed after it, the job ends with 128+9.
TEST(Acprun, KillIsNamedBeforeAnErrorExitJustAhead) {
    JobResult r = acprun(3, {"exit-then-kill"});
    EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
    const size_t kill = r.err.find("rank 1 (pid"), exit = r.err.find("rank 2 (pid");
    ASSERT_NE(kill, std::string::npos) << r.err;
    ASSERT_NE(exit, std::string::npos) << r.err;
    EXPECT_LT(kill, exit) << r.err;
    EXPECT_TRUE(has(r.err, "killed by signal 9 (Killed); stopping the other ranks")) << r.err;
    EXPECT_TRUE(has(r.err, "exited with status 1, within 250 ms")) << r.err;
    EXPECT_LT(r.seconds, 15);
}

TEST(Failures, ASignalIsTheCauseElseTheFirst) {
    using acpx::launcher::Failure;
    const Failure exited{2, 43, W_EXITCODE(1, 0)}, killed{1, 42, W_EXITCODE(0, SIGKILL)},
        other{0, 41, W_EXITCODE(3, 0)};
    EXPECT_EQ(acpx::launcher::root_cause({exited, killed}), 1u);
    EXPECT_EQ(acpx::launcher::root_cause({exited, other}), 0u);
    EXPECT_EQ(acpx::launcher::root_cause({}), 0u);
    EXPECT_EQ(acpx::launcher::describe(killed), "rank 1 (pid 42) was killed by signal 9 (Killed)");
    EXPECT_EQ(acpx::launcher::describe(exited), "rank 2 (pid 43) exited with status 1");
    EXPECT_EQ(acpx::launcher::job_status(killed), 137);
    EXPECT_EQ(acpx::launcher::job_status(other), 3);
}

TEST(Acprun, WaitTimeoutNamesTheRankNotHeardFrom) {
    JobResult r = acprun(2, {"never-sync"}, {"ACP_TIMEOUT=2"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_sync")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1 to reach the barrier")) << r.err;
    EXPECT_LT(r.seconds, 20);
}

// The deadline of a wait runs from the last sign of life of what it waits
// for: a peer's steady traffic (executed by the waiting rank's progress)
// does not postpone it.
TEST(Acprun, SteadyTrafficDoesNotPostponeAWaitsTimeout) {
    JobResult r = acprun(3, {"steady-traffic"}, {"ACP_TIMEOUT=2", "ACP_CMA=0"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_complete: waited 2 s (ACP_TIMEOUT) for GMA")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 2 not heard from")) << r.err;
    EXPECT_FALSE(has(r.err, "traffic for 10 s")) << r.err;
    // The wait starts within a second of launch; the job's end also waits
    // for acprun to stop the stopped rank, so the line's time is what counts.
    const double timed_out = r.seconds_until("acp_complete: waited 2 s");
    std::fprintf(stderr, "the wait timed out %.2f s after launch\n", timed_out);
    EXPECT_GT(timed_out, 2) << r.err;
    EXPECT_LT(timed_out, 4) << r.err;
}

// Persistent collectives: a member that never sends makes the waits of
// those that send to it fail after ACP_TIMEOUT, naming it, for rounds
// above the inline slots; the job still ends cleanly. The tree is forced (the model picks chain for small
// rounds on 3 ranks of 2 cores): its root sends to rank 2 itself.
TEST(Collectives, MemberThatNeverSendsTimesOutNamingIt) {
    for (const char *mode : {"ACP_COL_EXEC=delegated", "ACP_COL_EXEC=root"}) {
        JobResult r = acprun(3, {"col-never-send"}, {"ACP_TIMEOUT=2", mode, "ACP_COL_BCAST_ALGO=binomial"});
        EXPECT_EQ(r.status, 0) << mode << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "rank 0: acp_wait_col returned -1")) << mode << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "acpx: acp_wait_col: request: handle")) << r.err;
        EXPECT_TRUE(has(r.err, "waited 2 s (ACP_TIMEOUT) for rank 2 (its send)")) << mode << "\n" << r.err;
        EXPECT_LT(r.seconds, 20);
    }
    // Down a delegated chain only rank 1 sends to rank 2: the root's round
    // completes, rank 1's fails naming rank 2.
    JobResult r =
        acprun(3, {"col-never-send"}, {"ACP_TIMEOUT=2", "ACP_COL_EXEC=delegated", "ACP_COL_BCAST_ALGO=chain"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "rank 0: acp_wait_col returned 0")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1: acp_wait_col returned -1")) << r.err;
    EXPECT_TRUE(has(r.err, "waited 2 s (ACP_TIMEOUT) for rank 2 (its send)")) << r.err;
}

// Small rounds go ahead of a member that never sends (up to the depth of
// its slots, acp.h): the waits succeed, and the free of whoever sends to
// it names it after ACP_TIMEOUT; that free still frees.
TEST(Collectives, SmallRoundsGoAheadAndFreeNamesTheMemberThatNeverSends) {
    struct Case {
        const char *exec, *algo, *sender;
    };
    for (const Case c : {Case{"ACP_COL_EXEC=delegated", "ACP_COL_BCAST_ALGO=binomial", "rank 0"},
                         Case{"ACP_COL_EXEC=root", "ACP_COL_BCAST_ALGO=binomial", "rank 0"},
                         Case{"ACP_COL_EXEC=delegated", "ACP_COL_BCAST_ALGO=chain", "rank 1"}}) {
        const std::string what = std::string(c.exec) + " " + c.algo;
        JobResult r = acprun(3, {"col-never-send-small"}, {"ACP_TIMEOUT=2", c.exec, c.algo});
        EXPECT_EQ(r.status, 0) << what << "\n" << r.err;
        EXPECT_FALSE(has(r.err, "acp_wait_col returned -1")) << what << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "rank 0: acp_wait_col returned 0")) << what << "\n" << r.err;
        EXPECT_TRUE(has(r.err, std::string(c.sender) + ": acp_free_col returned -1")) << what << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "acpx: acp_free_col: handle: handle")) << what << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "waited 2 s (ACP_TIMEOUT) for rank 2 to send round 3; freed anyway")) << what << "\n"
                                                                                                     << r.err;
        EXPECT_LT(r.seconds, 20);
    }
}

// Down a binomial tree rank 2's signals go to rank 0; down a chain they
// go to the killed rank 1, and rank 2 may fail on its endpoint before
// acprun has reaped rank 1: the kill is still the one named.
TEST(Collectives, MemberKilledMidRoundEndsTheJob) {
    for (const char *algo : {"ACP_COL_BCAST_ALGO=binomial", "ACP_COL_BCAST_ALGO=chain"}) {
        JobResult r = acprun(3, {"col-kill"}, {algo});
        EXPECT_EQ(r.status, 128 + SIGKILL) << algo << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "rank 1 (pid")) << r.err;
        EXPECT_TRUE(has(r.err, "killed by signal 9 (Killed); stopping the other ranks")) << r.err;
        EXPECT_LT(r.seconds, 15);
    }
}

TEST(Acprun, ForwardsTerminationToTheRanks) {
    JobResult r = acprun(2, {"sleep"}, {}, SIGTERM);
    EXPECT_EQ(r.status, 128 + SIGTERM) << r.err;
    EXPECT_LT(r.seconds, 15);
}

TEST(Acprun, SocketIsPrivateAndRefusesStrangers) {
    JobResult r = acprun(2, {"socket"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Acprun, UsageErrors) {
    JobResult r = run({builddir() + "/acprun", builddir() + "/test/launcher/fault_prog"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "-n N is required")) << r.err;
    r = run({builddir() + "/acprun", "-n", "0", "true"});
    EXPECT_EQ(r.status, 2);
    r = run({builddir() + "/acprun", "-n", "2", "--transport", "carrier-pigeon", "true"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--transport")) << r.err;
    r = run({builddir() + "/acprun", "-n", "2", "/nonexistent/program"});
    EXPECT_EQ(r.status, 127);
    EXPECT_TRUE(has(r.err, "cannot execute /nonexistent/program")) << r.err;
}

TEST(Acprun, BindToCorePinsEachRankToItsCore) {
    // Each rank reports the CPUs it may use; -v says where acprun bound it.
    const std::string report =
        "echo \"rank $ACP_RUN_RANK allowed $(grep Cpus_allowed_list /proc/self/status | cut -f2)\" >&2";
    JobResult r = run({builddir() + "/acprun", "-n", "4", "-v", "--bind-to", "core", "/bin/sh", "-c", report});
    ASSERT_EQ(r.status, 0) << r.err;
    for (int rank = 0; rank < 4; ++rank) {
        const std::string tag = "acprun: rank " + std::to_string(rank) + " bound to core ";
        const size_t at = r.err.find(tag);
        ASSERT_NE(at, std::string::npos) << r.err;
        const size_t open = r.err.find("(CPUs ", at), close = r.err.find(')', open);
        ASSERT_NE(close, std::string::npos) << r.err;
        const std::string cpus = r.err.substr(open + 6, close - open - 6);
        EXPECT_TRUE(has(r.err, "rank " + std::to_string(rank) + " allowed " + cpus + "\n")) << r.err;
    }
    EXPECT_TRUE(has(r.err, "acprun: rank 0 bound to core 0 ")) << r.err;
    // --bind-to none binds nothing, and a placement acprun does not know is refused.
    r = run({builddir() + "/acprun", "-n", "2", "-v", "--bind-to", "none", "/bin/sh", "-c", report});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(has(r.err, "bound to")) << r.err;
    r = run({builddir() + "/acprun", "-n", "2", "--bind-to", "socket", "true"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(has(r.err, "--bind-to: 'socket' is not auto, none or core")) << r.err;
    // The default (auto): bound when every core gets as many ranks (one
    // rank always fits; twice the cores, two each), unbound when some
    // core would get one more than another.
    r = run({builddir() + "/acprun", "-n", "1", "-v", "/bin/sh", "-c", report});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string said = "--bind-to auto: core (1 ranks, ";
    const size_t at = r.err.find(said);
    ASSERT_NE(at, std::string::npos) << r.err;
    EXPECT_TRUE(has(r.err, "acprun: rank 0 bound to core 0 ")) << r.err;
    const int cores = std::atoi(r.err.c_str() + at + said.size());
    ASSERT_GT(cores, 0) << r.err;
    const std::string doubled = std::to_string(2 * cores);
    r = run({builddir() + "/acprun", "-n", doubled, "-v", "/bin/sh", "-c", report});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "--bind-to auto: core (" + doubled + " ranks")) << r.err;
    EXPECT_TRUE(has(r.err, "acprun: rank " + std::to_string(cores) + " bound to core 0 ")) << r.err;
    if (cores > 1) {  // on one core every count divides evenly
        const std::string uneven = std::to_string(cores + 1);
        r = run({builddir() + "/acprun", "-n", uneven, "-v", "/bin/sh", "-c", report});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(has(r.err, "--bind-to auto: none (" + uneven + " ranks")) << r.err;
        EXPECT_FALSE(has(r.err, "bound to")) << r.err;
    }
}

TEST(Acprun, AutoBindsWhenEveryCoreGetsAsManyRanks) {
    using acpx::launcher::auto_binds;
    EXPECT_TRUE(auto_binds(1, 2));
    EXPECT_TRUE(auto_binds(2, 2));
    EXPECT_TRUE(auto_binds(4, 2));
    EXPECT_TRUE(auto_binds(128, 64));
    EXPECT_TRUE(auto_binds(3, 1));
    EXPECT_FALSE(auto_binds(3, 2));
    EXPECT_FALSE(auto_binds(5, 2));
    EXPECT_FALSE(auto_binds(96, 64));
    EXPECT_FALSE(auto_binds(2, 0));  // no cores read: nothing to bind to
}

TEST(Idle, WaitsYieldAtOnceWhereRanksOutnumberTheirCpus) {
    using acpx::basic::idle::Policy;
    Policy p = Policy::kSpin;
    EXPECT_TRUE(acpx::basic::idle::parse("auto", &p));
    EXPECT_EQ(p, Policy::kAuto);
    EXPECT_TRUE(acpx::basic::idle::parse("yield", &p));
    EXPECT_EQ(p, Policy::kYield);
    EXPECT_FALSE(acpx::basic::idle::parse("sometimes", &p));
    EXPECT_FALSE(acpx::basic::idle::parse(nullptr, &p));
    EXPECT_EQ(p, Policy::kYield);  // unchanged by a failed parse
    // Two ranks bound to CPUs 0 and 1, a third to 1 and 65: three CPUs.
    acpx::basic::idle::CpuMask a{}, b{}, c{};
    a[0] = 1, b[0] = 2, c[0] = 2, c[1] = 2;
    EXPECT_EQ(acpx::basic::idle::cpus_in_union({a, b, c}), 3u);
    EXPECT_EQ(acpx::basic::idle::cpus_in_union({a, a}), 1u);
    EXPECT_GE(acpx::basic::idle::cpus_in_union({acpx::basic::idle::own_cpus()}), 1u);
    EXPECT_TRUE(acpx::basic::idle::yield_at_once(Policy::kAuto, 3, 2));
    EXPECT_FALSE(acpx::basic::idle::yield_at_once(Policy::kAuto, 2, 2));
    EXPECT_FALSE(acpx::basic::idle::yield_at_once(Policy::kAuto, 3, 0));  // CPUs unknown: poll
    EXPECT_TRUE(acpx::basic::idle::yield_at_once(Policy::kYield, 1, 64));
    EXPECT_FALSE(acpx::basic::idle::yield_at_once(Policy::kSpin, 64, 1));
}

TEST(Idle, TheAgentYieldsAnEmptyBusyRoundWhereWaitsYieldAtOnce) {
    using acpx::basic::idle::agent_yields;
    // An empty round it cannot sleep through (a put waiting for its
    // target's progress): the core goes to whoever shares it, if crowded.
    EXPECT_TRUE(agent_yields(0, false, true));
    EXPECT_FALSE(agent_yields(0, false, false));
    // A round that made progress goes straight on to the next.
    EXPECT_FALSE(agent_yields(3, false, true));
    // An application thread waiting for the lock always gets a turn.
    EXPECT_TRUE(agent_yields(3, true, false));
    EXPECT_TRUE(agent_yields(0, true, false));
}

TEST(Acprun, WaitsYieldAtOnceOnACrowdedNode) {
    // acprun -v says what acp_init decided from every rank's CPUs.
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const std::string crowd = std::to_string(cpus + 1);
    auto said = [](const JobResult &r, const std::string &ranks, const std::string &how) {
        return has(r.err, "acpx: " + ranks + " ranks on rank 0's node, ") &&
               has(r.err, "CPUs for them: collectives' waits " + how);
    };
    JobResult r = run({builddir() + "/acprun", "-n", crowd, "-v", builddir() + "/test/launcher/fault_prog", "ok"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(said(r, crowd, "yield the core at once (ACP_IDLE=auto)")) << r.err;
    // Bound, two to a core: the union of their CPUs is still the node's.
    r = run({builddir() + "/acprun", "-n", crowd, "-v", "--bind-to", "core", builddir() + "/test/launcher/fault_prog",
             "ok"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(said(r, crowd, "yield the core at once (ACP_IDLE=auto)")) << r.err;
    // As many ranks as CPUs, each bound to its own (acprun's default then): they poll.
    r = run({builddir() + "/acprun", "-n", std::to_string(cpus), "-v", builddir() + "/test/launcher/fault_prog", "ok"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(said(r, std::to_string(cpus), "poll, then yield (ACP_IDLE=auto)")) << r.err;
    r = run({builddir() + "/acprun", "-n", crowd, "-v", builddir() + "/test/launcher/fault_prog", "ok"},
            {"ACP_IDLE=spin"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(said(r, crowd, "poll, then yield (ACP_IDLE=spin)")) << r.err;
    r = acprun(2, {"ok"}, {"ACP_IDLE=sometimes"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_IDLE: 'sometimes' is not auto, spin or yield")) << r.err;
}

TEST(Acprun, AMalformedHugePagesSettingIsReported) {
    JobResult r = acprun(2, {"ok"}, {"ACP_HUGEPAGES=yes"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_HUGEPAGES: 'yes' is neither 0 nor 1")) << r.err;
    r = acprun(2, {"ok"}, {"ACP_HUGEPAGES=0"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Acprun, BindsWithinTheCpusItMayRunOn) {
    // Under taskset (or a batch job's binding) acprun counts only its own
    // CPUs: 2 ranks on one CPU share it, bound there.
    JobResult r = run({"/usr/bin/taskset", "-c", "0", builddir() + "/acprun", "-n", "2", "-v",
                       builddir() + "/test/launcher/fault_prog", "ok"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "acprun: --bind-to auto: core (2 ranks, 1 cores)")) << r.err;
    EXPECT_TRUE(has(r.err, "acprun: rank 1 bound to core 0 (CPUs 0)")) << r.err;
    EXPECT_TRUE(has(r.err, "acpx: 2 ranks on rank 0's node, 1 CPUs for them")) << r.err;
    r = run({"/usr/bin/taskset", "-c", "0", builddir() + "/acprun", "-n", "1", "-v",
             builddir() + "/test/launcher/fault_prog", "ok"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "acprun: rank 0 bound to core 0 (CPUs 0)")) << r.err;
}

TEST(Acprun, BadConfigurationIsReportedAtInit) {
    JobResult r = acprun(2, {"ok"}, {"ACP_STARTER_MEMSIZE=lots"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_STARTER_MEMSIZE")) << r.err;
    r = acprun(2, {"ok"}, {"ACP_TRANSPORT=carrier-pigeon"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_TRANSPORT")) << r.err;
}

// No timeout that cannot end: infinity, NaN, 0 and negatives are refused.
TEST(Acprun, ATimeoutThatNeverEndsIsRefused) {
    for (const char *t : {"inf", "INFINITY", "nan", "0", "-5", "1e300"}) {
        JobResult r = run({builddir() + "/test/launcher/fault_prog", "ok"}, {std::string("ACP_TIMEOUT=") + t}, 30);
        EXPECT_NE(r.status, 0) << t;
        EXPECT_TRUE(has(r.err, "acp_init: ACP_TIMEOUT: '" + std::string(t) + "' is not a number of seconds")) << r.err;
    }
}

// Memory that cannot be had is an error return with a message, never a
// crash: the address space is limited in the child.
TEST(Singleton, MemoryThatCannotBeHadIsAnErrorNotACrash) {
    JobResult r = run({builddir() + "/test/launcher/fault_prog", "oom"}, {}, 30);
    EXPECT_EQ(r.status, 0) << r.err;
    if (has(r.err, "oom: not under AddressSanitizer"))
        GTEST_SKIP() << "RLIMIT_AS and ASan do not mix; the plain build runs it";
    EXPECT_TRUE(has(r.err, "acp_create_bcast_buffered: memory: cannot allocate 1073741824 bytes of shared memory"))
        << r.err;
    EXPECT_TRUE(has(r.err, "acp_create_allgather_buffered: memory: cannot allocate")) << r.err;
    EXPECT_TRUE(has(r.err, "oom: survived")) << r.err;
}

// acprun killed by SIGKILL (it cannot forward that): its ranks do not
// outlive it.
TEST(Acprun, RanksDieWithAKilledAcprun) {
    const JobResult r = acprun(2, {"sleep"}, {}, SIGKILL);
    EXPECT_EQ(r.status, 128 + SIGKILL);
    // The ranks hold the job's stderr open: it closes when the last is gone.
    EXPECT_LT(r.seconds, 6) << "ranks outlived the killed acprun by " << r.seconds - 1 << " s";
    // Any rank of it still running (not a zombie) is one too many.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    int alive = 0;
    for (const auto &entry : std::filesystem::directory_iterator("/proc")) {
        std::ifstream cmd(entry.path() / "cmdline");
        std::string line;
        std::getline(cmd, line, '\0');
        std::string arg;
        std::getline(cmd, arg, '\0');
        if (line.find("test/launcher/fault_prog") != std::string::npos && arg == "sleep") {
            std::ifstream stat(entry.path() / "stat");
            std::string pid, comm, state;
            stat >> pid >> comm >> state;
            if (state != "Z") {
                ++alive;
                kill(std::stoi(pid), SIGKILL);
            }
        }
    }
    EXPECT_EQ(alive, 0) << "ranks outlived the acprun that launched them";
}

// A launcher acpx cannot join (PMI-1/2 only) does not make N singletons.
TEST(Singleton, AForeignLaunchersJobIsRefusedNotRunAsSingletons) {
    for (const char *var : {"PMI_SIZE=4", "OMPI_COMM_WORLD_SIZE=2", "SLURM_NTASKS=3"}) {
        JobResult r = run({builddir() + "/test/launcher/fault_prog", "ok"}, {var}, 30);
        EXPECT_NE(r.status, 0) << var;
        EXPECT_TRUE(has(r.err, "acp_init: bootstrap: this process was started by a launcher acpx cannot join ("))
            << r.err;
    }
    JobResult one = run({builddir() + "/test/launcher/fault_prog", "ok"}, {"SLURM_NTASKS=1"}, 30);
    EXPECT_EQ(one.status, 0) << "a 1-task launch is a singleton: " << one.err;
}

TEST(Ofi, ProviderProblemsAreOneLineAtInit) {
    if (!ACPX_HAVE_OFI) GTEST_SKIP() << "built without libfabric";
    JobResult r = acprun(2, {"ok"}, {"ACP_TRANSPORT=ofi", "FI_PROVIDER=no-such-provider"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err,
                    "acp_init: FI_PROVIDER: libfabric provider 'no-such-provider' is not "
                    "available here or has no reliable-datagram (FI_EP_RDM) endpoint"))
        << r.err;
    r = acprun(2, {"ok"}, {"ACP_TRANSPORT=ofi", "ACP_OFI_ATOMICS=sometimes"});
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_OFI_ATOMICS: 'sometimes' is neither auto nor agent")) << r.err;
    r = acprun(2, {"ok"}, {"ACP_TRANSPORT=ofi", "FI_PROVIDER=shm"});
    EXPECT_EQ(r.status, 0) << r.err;
}

// libfabric is opened when the ofi transport is asked for, not linked:
// loading it (Debian's pulls in PSM) costs every process 0.2 s.
TEST(Ofi, LibfabricIsLoadedOnlyForTheOfiTransport) {
    if (!ACPX_HAVE_OFI) GTEST_SKIP() << "built without libfabric";
    if (ACPX_HAVE_UCX) {
        JobResult r = acprun(2, {"libraries"}, {"ACP_TRANSPORT=ucx"});
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_TRUE(has(r.err, "rank 0: libfabric loaded: no") && has(r.err, "rank 1: libfabric loaded: no")) << r.err;
    }
    JobResult r = acprun(2, {"libraries"}, {"ACP_TRANSPORT=ofi", "FI_PROVIDER=shm"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "rank 0: libfabric loaded: yes") && has(r.err, "rank 1: libfabric loaded: yes")) << r.err;
}

// A libfabric.so.1 found first that is not libfabric (here libm, through
// LD_LIBRARY_PATH): acp_init names the function it lacks, and fails.
TEST(Ofi, ALibfabricWithoutItsFunctionsIsOneLineAtInit) {
    if (!ACPX_HAVE_OFI) GTEST_SKIP() << "built without libfabric";
    char dir[] = "/tmp/acpx-fake-fabric-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string fake = std::string(dir) + "/libfabric.so.1";
    Dl_info libm{};  // where this machine keeps it
    ASSERT_NE(dladdr(dlsym(dlopen("libm.so.6", RTLD_NOW), "cos"), &libm), 0);
    ASSERT_EQ(symlink(libm.dli_fname, fake.c_str()), 0);
    const char *old = std::getenv("LD_LIBRARY_PATH");
    JobResult r = acprun(
        2, {"ok"},
        {"ACP_TRANSPORT=ofi", std::string("LD_LIBRARY_PATH=") + dir + (old && *old ? std::string(":") + old : "")});
    unlink(fake.c_str());
    rmdir(dir);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(has(r.err, "acp_init: ACP_TRANSPORT: ofi: libfabric.so.1 has no fi_getinfo@")) << r.err;
}

TEST(Acprun, CallsAfterFinalizeFail) {
    JobResult r = acprun(2, {"after-finalize"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "called before acp_init or after acp_finalize")) << r.err;
}

TEST(Acprun, StarterMemsizeOption) {
    std::vector<std::string> argv{builddir() + "/acprun",
                                  "-n",
                                  "2",
                                  "--starter-memsize",
                                  "1M",
                                  builddir() + "/test/launcher/fault_prog",
                                  "starter",
                                  "1048576"};
    JobResult r = run(argv);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "passes the end of its registration")) << r.err;
    // The environment variable does the same without acprun's option.
    r = acprun(2, {"starter", "4096"}, {"ACP_STARTER_MEMSIZE=4K"});
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Mpirun, DeadRankEndsTheJobUnderPmix) {
    // Open MPI's (PMIx); with MPICH installed too, plain mpirun may be MPICH's.
    const std::string mpirun =
        access("/usr/bin/mpirun.openmpi", X_OK) == 0 ? "/usr/bin/mpirun.openmpi" : "/usr/bin/mpirun";
    if (access(mpirun.c_str(), X_OK) != 0) GTEST_SKIP() << "mpirun not installed";
    const std::vector<std::string> env{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};
    JobResult r =
        run({mpirun, "--oversubscribe", "-np", "3", builddir() + "/test/launcher/fault_prog", "kill"}, env, 60);
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1")) << r.err;
    EXPECT_LT(r.seconds, 15);
    r = run({mpirun, "--oversubscribe", "-np", "3", builddir() + "/test/launcher/fault_prog", "exit", "4"}, env, 60);
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_LT(r.seconds, 15);
}

TEST(Singleton, RunsWithoutALauncher) {
    JobResult r = run({builddir() + "/test/launcher/fault_prog", "ok"}, {}, 30);
    EXPECT_EQ(r.status, 0) << r.err;
}

TEST(BeforeInit, EveryCallFailsWithItsValue) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(acp_rank(), -1);
    EXPECT_EQ(acp_procs(), -1);
    EXPECT_EQ(acp_sync(), -1);
    EXPECT_EQ(acp_finalize(), -1);
    EXPECT_EQ(acp_query_starter_ga(0), ACP_GA_NULL);
    char b[8];
    EXPECT_EQ(acp_register_memory(b, 8, 0), ACP_ATKEY_NULL);
    EXPECT_EQ(acp_copy(1, 1, 1, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    EXPECT_EQ(acp_add8(1, 1, 1, ACP_HANDLE_NULL), ACP_HANDLE_NULL);
    EXPECT_EQ(acp_inquire(1), -1);
    acp_complete(1);
    int group[1] = {0};
    EXPECT_EQ(acp_create_bcast_direct(0, 1, group, b, 8), ACP_COL_NULL);
    EXPECT_EQ(acp_create_allgather_buffered(1, group, 8), ACP_COL_NULL);
    EXPECT_EQ(acp_send_bcast_direct(reinterpret_cast<acp_col_t>(1), 0, 1), ACP_REQUEST_NULL);
    EXPECT_EQ(acp_wait_col(reinterpret_cast<acp_request_t>(1)), -1);
    EXPECT_EQ(acp_test_col(reinterpret_cast<acp_request_t>(1)), -1);
    EXPECT_EQ(acp_free_col(reinterpret_cast<acp_col_t>(1)), -1);
    EXPECT_EQ(acp_query_col_memory(reinterpret_cast<acp_col_t>(1)), 0u);
    const std::string err = testing::internal::GetCapturedStderr();
    for (const char *fn : {"acp_rank", "acp_sync", "acp_copy", "acp_add8", "acp_complete", "acp_create_bcast_direct",
                           "acp_create_allgather_buffered", "acp_send_bcast_direct", "acp_wait_col", "acp_test_col",
                           "acp_free_col", "acp_query_col_memory"})
        EXPECT_TRUE(has(err, std::string("acpx: ") + fn + ": state: called before acp_init")) << err;
}
