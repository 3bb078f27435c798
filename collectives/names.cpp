// Algorithm names, shared by the environment variables and the tools.
#include <charconv>

#include "algorithms.hpp"

namespace acpx::collectives {

const char *name_of(BcastAlgo a) {
    switch (a) {
        case BcastAlgo::kBinomial: return "binomial";
        case BcastAlgo::kBinaryTree: return "binary";
        case BcastAlgo::kKnomial: return "knomial";
        case BcastAlgo::kChain: return "chain";
        case BcastAlgo::kPipeline: return "pipeline";
        case BcastAlgo::kScatterRing: return "scatter_ring";
    }
    return "?";
}

const char *name_of(AllgatherAlgo a) {
    switch (a) {
        case AllgatherAlgo::kBlockTree: return "tree";
        case AllgatherAlgo::kRing: return "ring";
        case AllgatherAlgo::kBruck: return "bruck";
        case AllgatherAlgo::kRecursiveDoubling: return "recdoubling";
        case AllgatherAlgo::kNeighborExchange: return "neighbor";
    }
    return "?";
}

std::optional<AlgoParam> bcast_param(BcastAlgo a) {
    if (a == BcastAlgo::kKnomial) return AlgoParam{kDefaultRadix, 2, kMaxRadix};
    if (a == BcastAlgo::kPipeline) return AlgoParam{kDefaultSegments, 2, kMaxSegments};
    return std::nullopt;
}

std::string name_of(BcastAlgo a, unsigned radix) {
    if (!bcast_param(a)) return name_of(a);
    return std::string(name_of(a)) + ":" + std::to_string(radix);
}

// "name" (the parameter's default) or "name:N" with N in range.
std::optional<BcastChoice> parse_bcast_algo(std::string_view s) {
    const size_t colon = s.find(':');
    const std::string_view name = s.substr(0, colon);
    for (auto a : kBcastAlgos) {
        if (name != name_of(a)) continue;
        const auto param = bcast_param(a);
        if (colon == std::string_view::npos) return BcastChoice{a, param ? param->def : 2};
        if (!param) return std::nullopt;
        const std::string_view k = s.substr(colon + 1);
        unsigned v = 0;
        auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), v);
        if (ec != std::errc() || end != k.data() + k.size() || v < param->min || v > param->max)
            return std::nullopt;
        return BcastChoice{a, v};
    }
    return std::nullopt;
}

std::optional<AllgatherAlgo> parse_allgather_algo(std::string_view s) {
    for (auto a : kAllgatherAlgos)
        if (s == name_of(a)) return a;
    return std::nullopt;
}

std::string bcast_algo_names() {
    std::string out;
    for (auto a : kBcastAlgos) out += (out.empty() ? "" : ", ") + std::string(name_of(a));
    return out + " (knomial:K, K = 2.." + std::to_string(kMaxRadix) + "; pipeline:S, S = 2.." +
           std::to_string(kMaxSegments) + " segments)";
}

std::string allgather_algo_names() {
    std::string out;
    for (auto a : kAllgatherAlgos) out += (out.empty() ? "" : ", ") + std::string(name_of(a));
    return out;
}

}  // namespace acpx::collectives
