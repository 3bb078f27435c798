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

std::string name_of(BcastAlgo a, unsigned radix) {
    if (a != BcastAlgo::kKnomial) return name_of(a);
    return std::string("knomial:") + std::to_string(radix);
}

std::optional<BcastChoice> parse_bcast_algo(std::string_view s) {
    constexpr std::string_view kKnomialPrefix = "knomial:";
    if (s.substr(0, kKnomialPrefix.size()) == kKnomialPrefix) {
        const std::string_view k = s.substr(kKnomialPrefix.size());
        unsigned radix = 0;
        auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), radix);
        if (ec != std::errc() || end != k.data() + k.size() || radix < 2 || radix > kMaxRadix)
            return std::nullopt;
        return BcastChoice{BcastAlgo::kKnomial, radix};
    }
    for (auto a : kBcastAlgos)
        if (s == name_of(a)) return BcastChoice{a, a == BcastAlgo::kKnomial ? kDefaultRadix : 2};
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
    return out + " (knomial:K, K = 2.." + std::to_string(kMaxRadix) + ")";
}

std::string allgather_algo_names() {
    std::string out;
    for (auto a : kAllgatherAlgos) out += (out.empty() ? "" : ", ") + std::string(name_of(a));
    return out;
}

}  // namespace acpx::collectives
