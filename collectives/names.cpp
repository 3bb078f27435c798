// Algorithm names, shared by the environment variables and the tools.
#include <charconv>

#include "algorithms.hpp"

namespace acpx::collectives {

std::string name_of(BcastAlgo a, unsigned radix) {
    if (!bcast_param(a)) return name_of(a);
    return std::string(name_of(a)) + ":" + std::to_string(radix);
}

// "name" (the parameter's default) or "name:N" with N in range.
std::optional<BcastChoice> parse_bcast_algo(std::string_view s) {
    const size_t colon = s.find(':');
    const std::string_view name = s.substr(0, colon);
    for (const BcastInfo &i : bcast_table()) {
        if (name != i.name) continue;
        const BcastAlgo a = i.algo;
        const auto param = i.param;
        if (colon == std::string_view::npos) return BcastChoice{a, param ? param->def : 2};
        if (!param) return std::nullopt;
        const std::string_view k = s.substr(colon + 1);
        unsigned v = 0;
        auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), v);
        if (ec != std::errc() || end != k.data() + k.size() || v < param->min || v > param->max) return std::nullopt;
        return BcastChoice{a, v};
    }
    return std::nullopt;
}

std::optional<AllgatherAlgo> parse_allgather_algo(std::string_view s) {
    for (const AllgatherInfo &i : allgather_table())
        if (s == i.name) return i.algo;
    return std::nullopt;
}

std::string bcast_algo_names() {
    std::string out, params;
    for (const BcastInfo &i : bcast_table()) {
        out += (out.empty() ? "" : ", ") + std::string(i.name);
        if (i.param)
            params += (params.empty() ? "" : "; ") + std::string(i.name) + ":N, N = " + std::to_string(i.param->min) +
                      ".." + std::to_string(i.param->max) + " (" + std::to_string(i.param->def) + " unless given)";
    }
    return params.empty() ? out : out + " (" + params + ")";
}

std::string allgather_algo_names() {
    std::string out;
    for (const AllgatherInfo &i : allgather_table()) out += (out.empty() ? "" : ", ") + std::string(i.name);
    return out;
}

}  // namespace acpx::collectives
