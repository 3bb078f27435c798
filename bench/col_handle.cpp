#include "col_handle.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "peers/peer_common.h"

namespace acpx::bench {

Array::~Array() {
    if (ga_ != ACP_GA_NULL) acp_free(ga_);
}

bool Array::assign(size_t bytes, char value, bool from_malloc) {
    if (from_malloc) {
        ga_ = acp_malloc(bytes, acp_rank());
        if (ga_ == ACP_GA_NULL) return false;
        p_ = static_cast<char *>(acp_query_address(ga_));
    } else {
        own_.resize(bytes);
        p_ = own_.data();
    }
    std::memset(p_, value, bytes);
    n_ = bytes;
    return true;
}

void create(Handle &x, bool bcast, bool buffered, std::vector<int> &group, size_t size, bool malloc_arrays) {
    const int n = static_cast<int>(group.size());
    const size_t bytes = size ? size : 1;
    x.block = bytes;
    if (bcast) {
        if (!x.array.assign(bytes, 1, malloc_arrays && !buffered)) return;
        x.h = buffered ? acp_create_bcast_buffered(0, n, group.data(), bytes)
                       : acp_create_bcast_direct(0, n, group.data(), x.array.data(), x.array.size());
    } else if (buffered) {
        x.in.assign(bytes, 1);
        x.out.assign(bytes * n, 0);
        x.h = acp_create_allgather_buffered(n, group.data(), bytes);
    } else {
        if (!x.array.assign(bytes * n, 1, malloc_arrays)) return;
        x.h = acp_create_allgather_direct(n, group.data(), x.array.data(), bytes);
    }
}

acp_request_t send(const Handle &x, bool bcast, bool buffered, size_t size) {
    if (bcast)
        return buffered ? acp_send_bcast_buffered(x.h, x.array.data(), size) : acp_send_bcast_direct(x.h, 0, size);
    return buffered ? acp_send_allgather_buffered(x.h, x.in.data(), const_cast<char *>(x.out.data()), size)
                    : acp_send_allgather_direct(x.h, 0, size);
}

bool checked_round(const Handle &x, bool bcast, bool buffered, const std::vector<int> &group, size_t size, int round,
                   const std::function<bool()> &run) {
    const int me = acp_rank(), n = static_cast<int>(group.size());
    const int mine = static_cast<int>(std::find(group.begin(), group.end(), me) - group.begin());
    // A direct allgather's blocks are the handle's, a buffered one's the round's.
    const size_t block = !bcast && !buffered && x.block ? x.block : size ? size : 1;
    char *blocks = nullptr;  // where the round's blocks land, in group order
    if (bcast) {
        char *a = x.array.data();
        if (mine == 0)
            peer_fill(a, size, round, 0);
        else
            std::memset(a, PEER_POISON, size);
        blocks = a;
    } else {
        char *own = buffered ? const_cast<char *>(x.in.data()) : x.array.data() + mine * block;
        blocks = buffered ? const_cast<char *>(x.out.data()) : x.array.data();
        std::memset(blocks, PEER_POISON, block * n);
        peer_fill(own, size, round, mine);
    }
    if (run ? !run() : acp_wait_col(send(x, bcast, buffered, size)) != 0) return false;
    for (int src = 0; src < (bcast ? 1 : n); ++src) {
        const char *got = blocks + src * block;
        const long at = peer_first_bad(got, size, round, src);
        if (at < 0) continue;
        std::fprintf(stderr,
                     "rank %d: %zu bytes, checked round %d: block of member %d, byte %ld is 0x%02x, not 0x%02x\n", me,
                     size, round, src, at, static_cast<unsigned char>(got[at]),
                     peer_pattern(round, src, static_cast<size_t>(at)));
        return false;
    }
    return true;
}

}  // namespace acpx::bench
