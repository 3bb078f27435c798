// Running acprun jobs from a test process: their status, stderr and when
// each line of it arrived, with a limit that turns a hang into a failure.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace launcher_test {

struct JobResult {
    int status = -1;  // exit status, or 128+signal
    std::string err;  // what the job printed on stderr
    double seconds = 0;
    std::vector<std::pair<size_t, double>> arrivals;  // err's length and seconds since start, per read

    // When `what` first reached stderr, in seconds since the start (-1: never).
    double seconds_until(const std::string &what) const {
        const size_t at = err.find(what);
        if (at == std::string::npos) return -1;
        for (const auto &[length, t] : arrivals)
            if (length >= at + what.size()) return t;
        return -1;
    }
};

inline std::string builddir() {
    const char *b = std::getenv("ACPX_BUILDDIR");
    return b ? b : ".";
}

// Runs argv with extra environment, capturing stderr; kills it after
// limit_s, so a hang fails the test instead of the suite.
inline JobResult run(std::vector<std::string> argv, std::vector<std::string> env = {}, double limit_s = 60,
                     int signal_after_1s = 0) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return {};
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        for (auto &e : env) putenv(e.data());
        std::vector<char *> args;
        for (auto &a : argv) args.push_back(a.data());
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(126);
    }
    close(pipefd[1]);
    std::thread signaller;
    if (signal_after_1s)
        signaller = std::thread([&] {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            kill(pid, signal_after_1s);
        });
    std::thread killer([&, pid] {
        const auto until = t0 + std::chrono::duration<double>(limit_s);
        while (std::chrono::steady_clock::now() < until) {
            if (kill(pid, 0) != 0) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        kill(pid, SIGKILL);
    });
    JobResult r;
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof buf)) > 0) {
        r.err.append(buf, static_cast<size_t>(n));
        r.arrivals.emplace_back(r.err.size(),
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    killer.join();
    if (signaller.joinable()) signaller.join();
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

inline JobResult acprun(int np, std::vector<std::string> args, std::vector<std::string> env = {},
                        int signal_after_1s = 0) {
    std::vector<std::string> argv{builddir() + "/acprun", "-n", std::to_string(np),
                                  builddir() + "/test/launcher/fault_prog"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, env, 60, signal_after_1s);
}

inline bool has(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

}  // namespace launcher_test
