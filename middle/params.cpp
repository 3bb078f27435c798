#include "params.hpp"

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "basic/config.hpp"
#include "collectives/algorithms.hpp"

namespace acpx::middle {

const char *name_of(Kind k) { return k == Kind::kBcast ? "bcast" : k == Kind::kAllgather ? "allgather" : "allreduce"; }
const char *name_of(DType t) {
    return t == DType::kInt32 ? "int32" : t == DType::kInt64 ? "int64" : t == DType::kDouble ? "double" : "none";
}
const char *name_of(ROp o) { return o == ROp::kSum ? "sum" : o == ROp::kMax ? "max" : o == ROp::kMin ? "min" : "none"; }
size_t size_of(DType t) { return t == DType::kInt32 ? 4 : t == DType::kInt64 || t == DType::kDouble ? 8 : 0; }
const char *name_of(Storage s) { return s == Storage::kDirect ? "direct" : "buffered"; }
const char *name_of(Exec e) { return e == Exec::kRoot ? "root" : "delegated"; }

std::string algo_name(const Params &p) {
    if (p.kind == Kind::kAllreduce)
        return p.algo == kAllreduceRabenseifner ? "rabenseifner"
               : p.mid || p.end                 ? "butterfly:" + std::to_string(p.mid) + "," + std::to_string(p.end)
                                                : "butterfly";
    return std::string(p.hier ? collectives::kHierPrefix : "") +
           (p.kind == Kind::kBcast ? collectives::name_of(static_cast<collectives::BcastAlgo>(p.algo), p.radix)
                                   : collectives::name_of(static_cast<collectives::AllgatherAlgo>(p.algo)));
}

bool inline_max_from_env(uint32_t *out, std::string *why) {
    *out = kInlineAuto;
    const char *inl = basic::config_env("ACP_COL_INLINE");
    if (!inl || std::string_view(inl) == "auto") return true;
    size_t v = 0;
    if (!basic::parse_size(inl, &v) || v > kDefaultInlineMax) {
        *why = "'" + std::string(inl) + "' is not auto or a size from 0 to " + std::to_string(kDefaultInlineMax) +
               " bytes (K suffix allowed)";
        return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
}

bool pool_bytes_from_env(size_t *out, uint8_t *mode, std::string *why) {
    *out = kDefaultPoolBytes;
    *mode = kPoolLarge;
    const char *pool = basic::config_env("ACP_COL_POOL");
    if (!pool || !*pool || std::string(pool) == "auto") return true;  // unset: the larger handles
    size_t v = 0;
    if (!basic::parse_size(pool, &v) || v > (size_t{1} << 30)) {
        *why = "'" + std::string(pool) + "' is not a size from 0 to 1G bytes (K, M suffixes allowed)";
        return false;
    }
    *out = v;
    *mode = v > 0 ? kPoolEvery : kPoolNone;
    return true;
}

bool pull_from_env(bool *out, std::string *why) {
    const char *pull = basic::config_env("ACP_COL_PULL");
    *out = !pull || !std::strcmp(pull, "1");
    if (!pull || !std::strcmp(pull, "0") || !std::strcmp(pull, "1")) return true;
    *why = "'" + std::string(pull) + "' is not 0 or 1";
    return false;
}

bool ring_max_from_env(uint32_t *out, std::string *why) {
    *out = kDefaultRingMax;
    const char *ring = basic::config_env("ACP_COL_RING_DEPTH");
    if (!ring) return true;
    size_t v = 0;
    if (!basic::parse_size(ring, &v) || v < 2 || v > kDefaultRingMax || (v & (v - 1))) {
        *why = "'" + std::string(ring) + "' is not one of 2, 4, 8, 16, 32, " + std::to_string(kDefaultRingMax);
        return false;
    }
    *out = static_cast<uint32_t>(v);
    return true;
}

bool place_trials_from_env(uint16_t *out, std::string *why) {
    *out = 0;
    const char *place = basic::config_env("ACP_COL_PLACE");
    if (!place || !*place || !std::strcmp(place, "none")) return true;
    const std::string_view v(place);
    size_t n = kDefaultPlaceTrials;
    if (v.substr(0, 4) != "tac3" || (v.size() > 4 && (v[4] != ':' || !basic::parse_size(place + 5, &n))) || n < 1 ||
        n > 100000) {
        *why = "'" + std::string(place) + "' is not none, tac3 or tac3:TRIALS (1..100000)";
        return false;
    }
    *out = static_cast<uint16_t>(n);
    return true;
}

std::string first_difference(const Params &a, const Params &b) {
    auto num = [](const char *what, auto x, auto y) {
        return std::string(what) + " " + std::to_string(x) + " vs " + std::to_string(y);
    };
    auto str = [](const char *what, const std::string &x, const std::string &y) {
        return std::string(what) + " " + x + " vs " + y;
    };
    if (a.kind != b.kind) return str("operation", name_of(a.kind), name_of(b.kind));
    if (a.storage != b.storage) return str("kind", name_of(a.storage), name_of(b.storage));
    if (a.members != b.members) return num("np_group", a.members, b.members);
    if (a.group_hash != b.group_hash) return "group: the same ranks in a different order";
    if (a.root != b.root) return num("root", a.root, b.root);
    if (a.kind == Kind::kAllreduce && a.dtype != b.dtype) return str("type", name_of(a.dtype), name_of(b.dtype));
    if (a.kind == Kind::kAllreduce && a.size != b.size)
        return num("count", a.size / size_of(a.dtype), b.size / size_of(b.dtype));
    if (a.kind == Kind::kAllreduce && a.op != b.op) return str("op", name_of(a.op), name_of(b.op));
    if (a.size != b.size)
        return num(a.storage == Storage::kBuffered ? "buffersize"
                   : a.kind == Kind::kBcast        ? "arraysize"
                                                   : "blocksize",
                   a.size, b.size);
    if (a.exec != b.exec) return str("ACP_COL_EXEC", name_of(a.exec), name_of(b.exec));
    if (a.inline_max != b.inline_max) {
        auto text = [](uint32_t v) { return v == kInlineAuto ? std::string("auto") : std::to_string(v); };
        return str("ACP_COL_INLINE", text(a.inline_max), text(b.inline_max));
    }
    if (a.ring_max != b.ring_max) return num("ACP_COL_RING_DEPTH", a.ring_max, b.ring_max);
    if (a.across_nodes != b.across_nodes)
        return num("nodes of the group (the runtimes' node maps differ)", a.across_nodes, b.across_nodes);
    if (a.pooled != b.pooled) return num("ACP_COL_POOL being 0 (no eager pool)", !a.pooled, !b.pooled);
    if (a.crowded != b.crowded)
        return num("the node's ranks outnumbering its cores (the runtimes' counts differ)", a.crowded, b.crowded);
    if (a.auto_algo != b.auto_algo)
        return str("algorithm", a.auto_algo ? "automatic" : "forced " + algo_name(a),
                   b.auto_algo ? "automatic" : "forced " + algo_name(b));
    if (a.algo != b.algo || a.radix != b.radix || a.hier != b.hier || a.mid != b.mid || a.end != b.end)
        return str("algorithm", algo_name(a), algo_name(b));
    return "";
}

}  // namespace acpx::middle
