#include "log_cut.hpp"

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <map>

namespace acpx::collectives::place {
namespace {

bool is_send(LogCall::Kind k) { return k == LogCall::kSend || k == LogCall::kIsend; }
bool is_recv(LogCall::Kind k) { return k == LogCall::kRecv || k == LogCall::kIrecv; }
bool blocks(LogCall::Kind k) { return k == LogCall::kSend || k == LogCall::kRecv || k == LogCall::kWait; }

const char *name_of(LogCall::Kind k) {
    static const char *const names[] = {"send", "isend", "recv", "irecv", "wait"};
    return names[k];
}

std::string where(uint32_t task, const LogCall &c) {
    return "task " + std::to_string(task) + ": " + name_of(c.kind) + " " + std::to_string(c.peer) +
           (c.line ? " (line " + std::to_string(c.line) + ")" : "");
}

}  // namespace

bool cut_log(const std::vector<std::vector<LogCall>> &calls, std::vector<Ccs> *out, std::string *why) {
    const auto tasks = static_cast<uint32_t>(calls.size());
    // partner[t][i]: the index in the peer's calls of the call matching
    // call i of task t (sends and receives); waits: unused.
    std::vector<std::vector<size_t>> partner(tasks);
    std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> sends, recvs;  // (src, dst) -> call indices
    for (uint32_t t = 0; t < tasks; ++t) {
        partner[t].assign(calls[t].size(), SIZE_MAX);
        for (size_t i = 0; i < calls[t].size(); ++i) {
            const LogCall &c = calls[t][i];
            if (c.peer >= tasks) return *why = where(t, c) + ": no such task", false;
            if (is_send(c.kind)) sends[{t, c.peer}].push_back(i);
            if (is_recv(c.kind)) recvs[{c.peer, t}].push_back(i);
        }
    }
    for (const auto &[pair, s] : sends) {
        const auto &r = recvs[pair];
        for (size_t k = 0; k < s.size(); ++k) {
            if (k >= r.size())
                return *why = where(pair.first, calls[pair.first][s[k]]) + ": no matching receive at task " +
                              std::to_string(pair.second),
                       false;
            partner[pair.first][s[k]] = r[k];
            partner[pair.second][r[k]] = s[k];
        }
    }
    for (const auto &[pair, r] : recvs) {
        const size_t matched = sends.count(pair) ? sends[pair].size() : 0;
        if (r.size() > matched)
            return *why = where(pair.second, calls[pair.second][r[matched]]) + ": no matching send from task " +
                          std::to_string(pair.first),
                   false;
    }

    std::vector<size_t> head(tasks, 0), end(tasks, 0);  // window: [head, end)
    std::vector<std::vector<uint8_t>> taken(tasks), now(tasks);
    for (uint32_t t = 0; t < tasks; ++t) taken[t].assign(calls[t].size(), 0), now[t].assign(calls[t].size(), 0);
    auto in_window = [&](uint32_t t, size_t i) { return i >= head[t] && i < end[t] && !taken[t][i]; };
    out->clear();
    for (;;) {
        bool left = false;
        for (uint32_t t = 0; t < tasks; ++t) {
            while (head[t] < calls[t].size() && taken[t][head[t]]) ++head[t];
            size_t e = head[t];
            while (e < calls[t].size() && (taken[t][e] || !blocks(calls[t][e].kind))) ++e;
            end[t] = std::min(calls[t].size(), e + 1);
            left |= head[t] < calls[t].size();
        }
        if (!left) return true;
        bool moved = false;
        Ccs ccs;
        // Sends and receives first: a wait may go once what it completes went.
        for (uint32_t t = 0; t < tasks; ++t)
            for (size_t i = head[t]; i < end[t]; ++i) {
                const LogCall &c = calls[t][i];
                if (!in_window(t, i) || c.kind == LogCall::kWait || !in_window(c.peer, partner[t][i])) continue;
                now[t][i] = 1;
                moved = true;
                if (is_send(c.kind) && c.peer != t) ccs.push_back({t, c.peer, c.bytes});
            }
        for (uint32_t t = 0; t < tasks; ++t)
            for (size_t i = head[t]; i < end[t]; ++i) {
                const LogCall &w = calls[t][i];
                if (w.kind != LogCall::kWait || taken[t][i]) continue;
                bool done = true;
                for (size_t j = 0; j < i && done; ++j)
                    if ((calls[t][j].kind == LogCall::kIsend || calls[t][j].kind == LogCall::kIrecv) &&
                        calls[t][j].peer == w.peer)
                        done = taken[t][j] || now[t][j];
                if (done) now[t][i] = 1, moved = true;
            }
        if (!moved) {
            for (uint32_t t = 0; t < tasks; ++t)
                if (head[t] < calls[t].size())
                    return *why = "the log deadlocks: " + where(t, calls[t][end[t] - 1]) + " can never go", false;
        }
        for (uint32_t t = 0; t < tasks; ++t)
            for (size_t i = head[t]; i < end[t]; ++i)
                if (now[t][i]) taken[t][i] = 1, now[t][i] = 0;
        if (!ccs.empty()) out->push_back(std::move(ccs));
    }
}

bool read_log_pattern(const std::string &path, Pattern *out, std::string *why) {
    static const std::map<std::string, LogCall::Kind> kinds = {{"send", LogCall::kSend},
                                                               {"isend", LogCall::kIsend},
                                                               {"recv", LogCall::kRecv},
                                                               {"irecv", LogCall::kIrecv},
                                                               {"wait", LogCall::kWait}};
    std::vector<std::vector<LogCall>> calls;
    auto index = [](const std::string &s, unsigned long *v) {
        char *end = nullptr;
        errno = 0;
        *v = std::strtoul(s.c_str(), &end, 10);
        return !s.empty() && s[0] >= '0' && s[0] <= '9' && !*end && !errno && *v < (1u << 24);
    };
    const bool read = read_words(
        path,
        [&](int lineno, const std::vector<std::string> &w) -> std::string {
            unsigned long t = 0, p = 0;
            if (w.size() < 3 || w.size() > 4 || !index(w[0], &t) || !index(w[2], &p))
                return "want TASK OP PEER [BYTES], tasks below 2^24";
            const auto kind = kinds.find(w[1]);
            if (kind == kinds.end()) return "'" + w[1] + "' is no call (send, isend, recv, irecv, wait)";
            LogCall c{kind->second, static_cast<uint32_t>(p), kDefaultBytes, lineno};
            if (w.size() == 4) {
                char *end = nullptr;
                errno = 0;
                c.bytes = std::strtoull(w[3].c_str(), &end, 10);
                if (*end || w[3][0] < '0' || w[3][0] > '9' || errno) return "'" + w[3] + "' is not a byte count";
            }
            const size_t need = std::max<size_t>(t, p) + 1;
            if (calls.size() < need) calls.resize(need);
            calls[t].push_back(c);
            return "";
        },
        why);
    if (!read) return false;
    if (calls.empty()) return *why = path + ": no calls", false;
    Pattern pat;
    pat.tasks = static_cast<uint32_t>(calls.size());
    if (!cut_log(calls, &pat.ccs, why)) return *why = path + ": " + *why, false;
    pat.traffic = traffic_of(pat.tasks, pat.ccs);
    *out = std::move(pat);
    return true;
}

}  // namespace acpx::collectives::place
