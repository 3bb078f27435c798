// The runtime's copies of user data in memory (a member's inline store
// into a peer's mapped slot and its copy out, buffered rounds' copies in
// and out, acp_copy through a mapped or local segment).
//
// Why not memmove alone: above glibc's x86_rep_movsb_threshold (2112
// bytes on the 2-core VM) it copies with `rep movsb`, and on that VM's
// AMD EPYC (Zen 4, KVM) that ran 25x slower when the destination sat
// 1-15 bytes after the source modulo 4096 (a 16 KiB copy: 4.8 us against
// 0.16-0.18 at other distances; 2x at 16 bytes, 1.7-2.3x at 48-72).
// A bcast's inline slot starts 8 bytes after its stamp, so a root
// storing from an array at page offset 16 (glibc's malloc of 128 KiB and
// up) lands 8 bytes on: 2-rank rounds of 16 KiB from arrays at offsets
// 16 and 24 took 3.5-14 us, from 0, 8 or 64 about 2. Below the threshold
// glibc copies with vector moves, at any distance alike; so in the
// window, copy_bytes copies in pieces below it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace acpx::basic {

// Distances (destination - source, modulo 4096) at which a long copy
// goes in pieces, and the pieces' size: within glibc's default rep movsb
// thresholds (2112 bytes and up; a tunable may set it lower).
inline constexpr uintptr_t kSlowDistance = 64;
inline constexpr size_t kCopyPiece = 2048;

void copy_in_pieces(char *dst, const char *src, size_t n);

// memmove(dst, src, n), overlapping or not, without the slow distances.
inline void copy_bytes(void *dst, const void *src, size_t n) {
    const uintptr_t distance = (reinterpret_cast<uintptr_t>(dst) - reinterpret_cast<uintptr_t>(src)) & 4095;
    if (n <= kCopyPiece || distance == 0 || distance >= kSlowDistance)
        std::memmove(dst, src, n);
    else
        copy_in_pieces(static_cast<char *>(dst), static_cast<const char *>(src), n);
}

}  // namespace acpx::basic
