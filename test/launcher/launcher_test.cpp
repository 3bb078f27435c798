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
#include "job_util.hpp"
#include "tools/acprun/failures.hpp"

using namespace launcher_test;

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
    EXPECT_TRUE(has(r.err, "rank 1 to reach the barrier (round 0); rank 1 did not answer a liveness probe")) << r.err;
    EXPECT_LT(r.seconds, 20);
}

// A channel's or a segmented buffer's peer that stops: the other end's
// call fails at ACP_TIMEOUT naming it (or, where the basic layer waits
// for the stopped rank first, as a sender mapping the receiver's slots
// does, the job ends there, naming it), and the job ends.
TEST(Acprun, AStoppedPeerFailsChannelsAndSegmentedBuffersAtTheTimeout) {
    const std::pair<const char *, const char *> cases[] = {
        {"ch-stopped-sender", "rank 1: receive returned -1"},
        {"ch-stopped-receiver", "waited 2 s (ACP_TIMEOUT) for rank 1"},
        {"sb-stopped-dst", "rank 0: connect returned 1"},
    };
    for (const auto &[mode, says] : cases) {
        JobResult r = acprun(2, {mode}, {"ACP_TIMEOUT=2"});
        EXPECT_NE(r.status, 0) << mode;
        EXPECT_TRUE(has(r.err, "waited 2 s (ACP_TIMEOUT) for rank ")) << mode << ": " << r.err;
        EXPECT_TRUE(has(r.err, says)) << mode << ": " << r.err;
        EXPECT_LT(r.seconds, 20) << mode;
    }
}

// A channel's sender killed while the receiver waits: the job ends at
// once, naming it.
TEST(Acprun, AKilledChannelPeerEndsTheJob) {
    JobResult r = acprun(2, {"ch-killed-sender"});
    EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
    EXPECT_TRUE(has(r.err, "rank 0 (pid")) << r.err;
    EXPECT_TRUE(has(r.err, "killed by signal 9 (Killed); stopping the other ranks")) << r.err;
    EXPECT_LT(r.seconds, 15);
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

// A timeout means "not heard from", not "not finished": a rank waiting in
// acp_sync for a peer that is alive and busy (copying into it for three
// times ACP_TIMEOUT) probes it, gets an answer, and waits on.
TEST(Acprun, AWaitForABusyPeerOutlastsTheTimeout) {
    for (const char *cma : {"ACP_CMA=1", "ACP_CMA=0"}) {
        JobResult r = acprun(2, {"busy-peer", "3"}, {"ACP_TIMEOUT=1", cma});
        EXPECT_EQ(r.status, 0) << cma << "\n" << r.err;
        EXPECT_TRUE(has(r.err, "rank 0: synced after 3.")) << cma << "\n" << r.err;
        EXPECT_FALSE(has(r.err, "ACP_TIMEOUT")) << cma << "\n" << r.err;
    }
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

// A buffered bcast member whose round timed out may reuse its array: the
// root's late round, which would have written there (on one node, above
// the inline slots, middle/round.cpp put_in_place), goes to its buffer.
TEST(Collectives, AMemberWhoseBufferedRoundTimedOutGetsNoLateBytesInItsArray) {
    JobResult r = acprun(2, {"col-late-root-buffered"}, {"ACP_TIMEOUT=2"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1: acp_wait_col returned -1")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 0: acp_wait_col returned 0")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1: array untouched: yes")) << r.err;
    EXPECT_LT(r.seconds, 20);
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
    EXPECT_TRUE(has(r.err,
                    "acp_create_bcast_buffered: memory: cannot allocate a block of 1073741824 bytes: cannot get "
                    "1073741824 bytes of shared memory"))
        << r.err;
    EXPECT_TRUE(has(r.err, "acp_create_allgather_buffered: memory: cannot allocate")) << r.err;
    EXPECT_TRUE(has(r.err, "oom: survived")) << r.err;
}

// One member without memory for a handle fails the create on every
// member, not only on those whose plans name it (create gives GAs to
// neighbours only: the coordinator checks every member's), each saying
// which; the group then makes a small handle.
TEST(Collectives, AMemberThatCannotAllocateFailsTheCreateEverywhere) {
    JobResult r = acprun(3, {"oom-one"}, {"ACP_COL_BCAST_ALGO=binomial"});  // rank 2 hears from rank 0 only
    EXPECT_EQ(r.status, 0) << r.err;
    if (has(r.err, "oom: not under AddressSanitizer"))
        GTEST_SKIP() << "RLIMIT_AS and ASan do not mix; the plain build runs it";
    for (int rank = 0; rank < 3; ++rank) {
        EXPECT_TRUE(has(r.err, "oom-one: rank " + std::to_string(rank) + ": create failed")) << r.err;
        EXPECT_TRUE(has(r.err, "oom-one: rank " + std::to_string(rank) + ": survived")) << r.err;
    }
    EXPECT_TRUE(has(r.err, "acp_create_bcast_buffered: memory: cannot allocate a block of 268435456 bytes")) << r.err;
    EXPECT_TRUE(has(r.err, "rank 1 could not allocate or register its memory")) << r.err;
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
