// Algorithm names, shared by the environment variables and the tools.
#include "algorithms.hpp"

namespace acpx::collectives {

const char *name_of(BcastAlgo a) {
    switch (a) {
        case BcastAlgo::kBinomial: return "binomial";
        case BcastAlgo::kBinaryTree: return "binary";
    }
    return "?";
}

const char *name_of(AllgatherAlgo a) {
    switch (a) {
        case AllgatherAlgo::kBlockTree: return "tree";
        case AllgatherAlgo::kRing: return "ring";
    }
    return "?";
}

std::optional<BcastAlgo> parse_bcast_algo(std::string_view s) {
    for (auto a : {BcastAlgo::kBinomial, BcastAlgo::kBinaryTree})
        if (s == name_of(a)) return a;
    return std::nullopt;
}

std::optional<AllgatherAlgo> parse_allgather_algo(std::string_view s) {
    for (auto a : {AllgatherAlgo::kBlockTree, AllgatherAlgo::kRing})
        if (s == name_of(a)) return a;
    return std::nullopt;
}

}  // namespace acpx::collectives
