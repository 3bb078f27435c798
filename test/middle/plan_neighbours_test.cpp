// Create gives each member the GAs of its neighbours only (middle/
// create.cpp), not the whole table: a plan built from those must be the
// plan the whole table gives, and the relation must be symmetric (a member
// sends its GAs to its neighbours and waits for theirs). Checked in one
// process for every algorithm, execution mode, group size up to 33, with
// and without nodes (hierarchical lists), and for the allreduce's shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "basic/ga.hpp"
#include "collectives/algorithms.hpp"
#include "middle/allreduce.hpp"
#include "middle/plan.hpp"

using namespace acpx::middle;
namespace coll = acpx::collectives;

namespace {

constexpr uint32_t kSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33};

MemberAddr addr_of(uint32_t i) {
    return {acpx::basic::ga::encode(100 + i, 5, 0), acpx::basic::ga::encode(100 + i, 6, 64)};
}

bool same_plan(const Plan &a, const Plan &b) {
    if (a.n_ready != b.n_ready || a.wait_slots != b.wait_slots || a.wait_from != b.wait_from ||
        a.ready_targets != b.ready_targets || a.data_ga != b.data_ga || a.ctl_tag != b.ctl_tag ||
        a.ctl_at_most != b.ctl_at_most || a.ctl_at_else != b.ctl_at_else || a.ready_within != b.ready_within ||
        a.executes_list != b.executes_list || a.out.size() != b.out.size())
        return false;
    for (size_t i = 0; i < a.out.size(); ++i) {
        const OutEntry &x = a.out[i], &y = b.out[i];
        if (x.block != y.block || x.ready != y.ready || x.dst_rank != y.dst_rank || x.wait != y.wait ||
            x.dst_data != y.dst_data || x.dst_arrive != y.dst_arrive)
            return false;
    }
    return true;
}

// Every member of p's group: its plan from its neighbours' GAs alone is
// the whole table's, and i is j's neighbour exactly when j is i's.
void check(const Params &p, const std::vector<uint32_t> &nodes, const std::string &what) {
    const uint32_t n = p.members;
    std::vector<int> group(n);
    std::vector<MemberAddr> table(n);
    for (uint32_t i = 0; i < n; ++i) group[i] = static_cast<int>(100 + i), table[i] = addr_of(i);
    std::vector<std::vector<uint32_t>> near(n);
    for (uint32_t me = 0; me < n; ++me) {
        const PlanBuilder planner(p, me, group, nodes);
        near[me] = planner.neighbours();
        std::vector<MemberAddr> sparse(n);
        sparse[me] = table[me];
        for (uint32_t j : near[me]) sparse[j] = table[j];
        EXPECT_TRUE(same_plan(planner.build(sparse), planner.build(table))) << what << " member " << me;
        EXPECT_TRUE(std::find(near[me].begin(), near[me].end(), me) == near[me].end()) << what << " member " << me;
    }
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j : near[i])
            EXPECT_TRUE(std::binary_search(near[j].begin(), near[j].end(), i))
                << what << ": " << j << " is " << i << "'s neighbour, not the other way";
}

}  // namespace

TEST(PlanNeighbours, BcastPlansNeedTheirNeighboursOnly) {
    for (uint8_t algo = 0; algo < coll::kBcastAlgoCount; ++algo)
        for (Exec exec : {Exec::kRoot, Exec::kDelegated})
            for (uint32_t n : kSizes)
                for (bool hier : {false, true}) {
                    const auto a = static_cast<coll::BcastAlgo>(algo);
                    if (!coll::bcast_applies(a, n).empty() || (hier && !coll::hier_offered(a))) continue;
                    Params p;
                    p.kind = Kind::kBcast;
                    p.storage = Storage::kDirect;
                    p.exec = exec;
                    p.algo = algo;
                    p.radix = 3;  // knomial's k, pipeline's segments
                    p.members = n;
                    p.root = static_cast<int>(100 + n / 2);  // a root inside the group
                    p.hier = hier;
                    std::vector<uint32_t> nodes;
                    if (hier)
                        for (uint32_t i = 0; i < n; ++i) nodes.push_back(i / 3);
                    check(p, nodes,
                          std::string(name_of(exec)) + " bcast algo " + std::to_string(algo) + (hier ? " hier" : "") +
                              " n " + std::to_string(n));
                }
}

TEST(PlanNeighbours, AllgatherPlansNeedTheirNeighboursOnly) {
    for (uint8_t algo = 0; algo < coll::kAllgatherAlgoCount; ++algo)
        for (Exec exec : {Exec::kRoot, Exec::kDelegated})
            for (uint32_t n : kSizes)
                for (bool hier : {false, true}) {
                    const auto a = static_cast<coll::AllgatherAlgo>(algo);
                    if (!coll::allgather_applies(a, n).empty() || (hier && !coll::hier_offered(a))) continue;
                    Params p;
                    p.kind = Kind::kAllgather;
                    p.storage = Storage::kDirect;
                    p.exec = exec;
                    p.algo = algo;
                    p.members = n;
                    p.root = -1;
                    p.hier = hier;
                    std::vector<uint32_t> nodes;
                    if (hier)
                        for (uint32_t i = 0; i < n; ++i) nodes.push_back(i % 3);
                    check(p, nodes,
                          std::string(name_of(exec)) + " allgather algo " + std::to_string(algo) +
                              (hier ? " hier" : "") + " n " + std::to_string(n));
                }
}

// The allreduce's steps (its plan reads each step's peer): symmetric too,
// for the butterfly, Rabenseifner's halving and seed 001's redundant
// butterfly.
TEST(PlanNeighbours, AllreducePeersAreSymmetric) {
    struct Form {
        bool halving;
        uint32_t mid, end;
    };
    for (const Form f : {Form{false, 0, 0}, Form{true, 0, 0}, Form{false, 1, 1}, Form{false, 2, 0}})
        for (uint32_t n = 1; n <= 33; ++n) {
            const ar::Shape s(n, f.mid, f.end, f.halving, 1000, 8);
            // Redundant exchanges need a power of two, M <= K / 2, L <= K (choose.cpp).
            if (s.redundant() && (s.p2 != n || f.mid > s.d || f.end > s.k)) continue;
            std::vector<std::vector<uint32_t>> near(n);
            for (uint32_t i = 0; i < n; ++i) near[i] = ar::neighbours(s, i);
            for (uint32_t i = 0; i < n; ++i)
                for (uint32_t j : near[i])
                    EXPECT_TRUE(std::binary_search(near[j].begin(), near[j].end(), i))
                        << "n " << n << (f.halving ? " halving" : " butterfly") << " M " << f.mid << " L " << f.end
                        << ": " << j << " is " << i << "'s peer, not the other way";
        }
}

// Control blocks are blocks of arenas (basic::layer::alloc_block): each
// member's lies where its process's arena had room. A root-mode executor
// keeps the offset most members share once and the others by member:
// every member's slots are addressed where they are.
TEST(PlanNeighbours, RootModeAddressesEveryControlBlockWhereItLies) {
    for (uint32_t n : {2u, 5u, 17u}) {
        Params p;
        p.kind = Kind::kBcast;
        p.storage = Storage::kDirect;
        p.exec = Exec::kRoot;
        p.algo = static_cast<uint8_t>(coll::BcastAlgo::kBinomial);
        p.members = n;
        p.root = 100;
        std::vector<int> group(n);
        std::vector<MemberAddr> table(n);
        for (uint32_t i = 0; i < n; ++i) {
            group[i] = static_cast<int>(100 + i);
            // Most at 0x3000; members 1 and n - 1 elsewhere (the root's own
            // block, larger, moved the next ones in its process).
            const uint64_t at = i == 1 ? 0x40 : i + 1 == n && n > 2 ? 0x7fc0 : 0x3000;
            table[i] = {acpx::basic::ga::encode(100 + i, 5, 0), acpx::basic::ga::encode(100 + i, 6 + i % 3, at)};
        }
        const Plan pl = PlanBuilder(p, 0, group, {}).build(table);
        ASSERT_TRUE(pl.executes_list);
        EXPECT_EQ(pl.ctl_at_else.size(), n == 2 ? 1u : 2u) << "n " << n;
        for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(pl.ctl_ga(i, 72), table[i].ctl + 72) << "n " << n << " member " << i;
    }
}
