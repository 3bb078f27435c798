// Helpers for the persistent-collective suites: groups of several shapes
// (every rank computes the same one), and environment settings that every
// rank applies alike before a create.
#pragma once

#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "../mp_util.hpp"

namespace acpx::test {

enum class Shape { kAll, kPermuted, kPartial };

inline const char *name_of(Shape s) {
    return s == Shape::kAll ? "all" : s == Shape::kPermuted ? "permuted" : "partial";
}

// kAll: 0..np-1. kPermuted: reversed, then rotated by one (so neither the
// first nor the lowest rank is member 0). kPartial: every rank but one
// (the middle one), in order; with one process, that process.
inline std::vector<int> make_group(Shape s) {
    std::vector<int> g(np());
    std::iota(g.begin(), g.end(), 0);
    if (s == Shape::kPermuted) {
        std::reverse(g.begin(), g.end());
        std::rotate(g.begin(), g.begin() + 1, g.end());
    } else if (s == Shape::kPartial && np() > 1) {
        g.erase(g.begin() + np() / 2);
    }
    return g;
}

// A chain round (0 -> 1 -> ...) in which member `who`'s copy to who + 1
// failed, as this member saw it (rc, what it printed): -1 naming the copy
// on `who`, -1 and "failed on its way here" below it. Whether this
// member's round was to fail; the members above are the caller's.
inline bool expect_chain_failure(int rc, const std::string &err, int who) {
    if (me() == who) {
        EXPECT_EQ(rc, -1);
        EXPECT_NE(err.find("a copy this rank issued failed: block 0 to rank " + std::to_string(who + 1)),
                  std::string::npos)
            << err;
    } else if (me() > who) {
        EXPECT_EQ(rc, -1) << "rank " << me() << " got undefined bytes and success";
        EXPECT_NE(err.find("failed on its way here"), std::string::npos) << err;
    }
    return me() >= who;
}

inline bool member_of(const std::vector<int> &g) { return std::find(g.begin(), g.end(), me()) != g.end(); }

inline int index_in(const std::vector<int> &g, int rank) {
    return static_cast<int>(std::find(g.begin(), g.end(), rank) - g.begin());
}

// Sets an environment variable for the scope; after it, the variable is
// as it was (a suite's own setting, e.g. ACP_COL_INLINE=0, stays for the
// tests after this one).
class ScopedEnv {
  public:
    ScopedEnv(const char *name, const std::string &value) : name_(name) {
        if (const char *was = std::getenv(name)) was_ = was;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (was_)
            setenv(name_, was_->c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv &) = delete;
    ScopedEnv &operator=(const ScopedEnv &) = delete;

  private:
    const char *name_;
    std::optional<std::string> was_;
};

// Whether this suite runs on the two-host bed (test/run-two-hosts.sh sets
// ACPX_TEST_NODES=2).
inline bool on_two_hosts() {
    const char *nodes = std::getenv("ACPX_TEST_NODES");
    return nodes && std::string(nodes) == "2";
}

// Which of a test's bcast handles on this suite's settings send their
// rounds over 48 bytes through an eager pool (middle/params.hpp; across
// nodes, to members of other nodes, as held puts): delegated ones, unless
// ACP_COL_POOL is 0; by default bcasts over 4 KiB (`large`: the tests' 1
// MiB handles), with ACP_COL_POOL set every one (`small` too).
struct PoolUse {
    bool large, small;
};
inline PoolUse pool_use(bool delegated) {
    const char *pool = std::getenv("ACP_COL_POOL");
    const bool set = pool && *pool, none = set && std::string(pool) == "0";
    return {delegated && !none, delegated && set && !none};
}

// What a suite runs over: execution mode and algorithm.
struct ColConfig {
    const char *exec;
    const char *algo;
};

inline std::string config_name(const ColConfig &c) {
    std::string s = std::string(c.exec) + "_" + c.algo;
    for (char &ch : s)
        if (ch == ':') ch = '_';  // knomial:3 -> knomial_3 (test names are identifiers)
    return s;
}

}  // namespace acpx::test
