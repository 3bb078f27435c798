// Framing for the acprun control socket, shared by acprun (server) and
// the acprun bootstrap (client). Every read/write has a deadline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace acpx::wire {

// Names of the environment variables acprun passes to each rank.
constexpr const char *kEnvSocket = "ACP_RUN_SOCKET";
constexpr const char *kEnvCookie = "ACP_RUN_COOKIE";
constexpr const char *kEnvRank = "ACP_RUN_RANK";
constexpr const char *kEnvProcs = "ACP_RUN_PROCS";
constexpr size_t kCookieChars = 64;  // 32 random bytes in hex

// Hello (client -> server): cookie (kCookieChars) + uint32 rank.
// Allgather (client -> server): uint64 length + bytes.
// Reply (server -> client): uint64 count, then per rank uint64 length + bytes.

// timeout_ms < 0: wait forever. False on error, EOF or timeout.
bool write_all(int fd, const void *buf, size_t len, int timeout_ms);
bool read_all(int fd, void *buf, size_t len, int timeout_ms);
bool write_frame(int fd, const std::vector<uint8_t> &data, int timeout_ms);
bool read_frame(int fd, std::vector<uint8_t> *data, size_t max_len, int timeout_ms);

}  // namespace acpx::wire
