// What the libfabric transport puts on the wire besides RMA: every message
// starts with a FrameHeader. Runtime messages larger than one receive
// buffer travel as several frames and are put back together by (sender,
// message id) and offset, so no provider ordering is relied on. Atomics the
// provider cannot do travel as an AtomicRequest and come back as an
// AtomicReply, executed by the target's progress (its agent).
//
// Pure code, no libfabric: unit-tested in test/basic/ofi_wire_test.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace acpx::basic::ofi {

enum class FrameKind : uint8_t { kMessage = 1, kAtomicRequest = 2, kAtomicReply = 3 };

struct FrameHeader {
    FrameKind kind;
    uint8_t pad[3];
    uint32_t from;    // sender's rank
    uint32_t msg_id;  // per sender, kMessage only
    uint32_t total;   // bytes of the whole message
    uint32_t offset;  // of this frame's payload within the message
};
static_assert(sizeof(FrameHeader) == 20);

struct AtomicRequest {
    uint64_t id;       // the requester's operation
    uint64_t raddr;    // virtual address at the target
    uint64_t key;      // the registration the requester was given
    uint64_t operand;  // value (kCas: the compare value)
    uint64_t swap_in;  // kCas: the new value
    uint8_t op;        // AtomicOp
    uint8_t width;     // 4 or 8
    uint8_t pad[6];
};

struct AtomicReply {
    uint64_t id;
    uint64_t old;    // the value before the operation
    int32_t status;  // 0, or -1: the address is not in a registration with that key
    uint32_t pad;
};

// Splits a message of `len` bytes into frames of at most `frame_bytes`
// (header included) and calls emit(header, payload, payload_len) for each.
template <class Emit>
void split_message(uint32_t from, uint32_t msg_id, const uint8_t *data, size_t len, size_t frame_bytes, Emit emit) {
    const size_t room = frame_bytes - sizeof(FrameHeader);
    size_t off = 0;
    do {
        const size_t n = len - off < room ? len - off : room;
        FrameHeader h{FrameKind::kMessage, {}, from, msg_id, static_cast<uint32_t>(len), static_cast<uint32_t>(off)};
        emit(h, data + off, n);
        off += n;
    } while (off < len);
}

// Puts frames back into messages, whatever order they arrive in.
class Reassembly {
  public:
    // Adds one frame's payload. Returns true and fills *out when that frame
    // completes its message; false while parts are missing or when the
    // frame is malformed (*malformed set).
    bool add(const FrameHeader &h, const uint8_t *payload, size_t n, std::vector<uint8_t> *out, bool *malformed) {
        *malformed = false;
        if (static_cast<uint64_t>(h.offset) + n > h.total) {
            *malformed = true;
            return false;
        }
        if (h.offset == 0 && n == h.total) {  // the common case: one frame
            out->assign(payload, payload + n);
            return true;
        }
        Partial &p = partial_[{h.from, h.msg_id}];
        if (p.bytes.empty()) p.bytes.resize(h.total);
        if (p.bytes.size() != h.total) {
            *malformed = true;
            return false;
        }
        std::copy(payload, payload + n, p.bytes.begin() + h.offset);
        p.received += n;
        if (p.received < h.total) return false;
        *out = std::move(p.bytes);
        partial_.erase({h.from, h.msg_id});
        return true;
    }

    size_t pending() const { return partial_.size(); }

  private:
    struct Partial {
        std::vector<uint8_t> bytes;
        size_t received = 0;
    };
    std::map<std::pair<uint32_t, uint32_t>, Partial> partial_;
};

}  // namespace acpx::basic::ofi
