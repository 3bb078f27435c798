// Where acprun puts its ranks (--bind-to, the CPUs it may run on) and how
// the ranks' waits use their cores (ACP_IDLE), driven from one process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "basic/idle.hpp"
#include "job_util.hpp"
#include "tools/acprun/binding.hpp"

using namespace launcher_test;

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
