// copy_bytes' pieces (see the header).
#include "copy_bytes.hpp"

namespace acpx::basic {

// Pieces in the order memmove needs: from the end when the destination
// is above the source (a piece then never overwrites a source byte not
// yet copied), else from the start.
void copy_in_pieces(char *dst, const char *src, size_t n) {
    if (dst > src) {
        for (size_t end = n; end > 0;) {
            const size_t len = end < kCopyPiece ? end : kCopyPiece;
            end -= len;
            std::memmove(dst + end, src + end, len);
        }
        return;
    }
    for (size_t at = 0; at < n; at += kCopyPiece)
        std::memmove(dst + at, src + at, n - at < kCopyPiece ? n - at : kCopyPiece);
}

}  // namespace acpx::basic
