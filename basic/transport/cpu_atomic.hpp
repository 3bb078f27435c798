// The acpx atomic operations on this process's memory with CPU atomics:
// used for atomics on own or mapped memory (gma.cpp) and for those a
// transport's peer asks this process to carry out (ofi). Being CPU
// atomics, they are atomic with respect to each other across processes
// sharing the page, and to libfabric's and UCX's software atomics.
#pragma once

#include "transport.hpp"

namespace acpx::basic {

// Returns the previous value. kCas: operand is the compare value and
// swap_in the new one.
template <class T>
T apply_cpu_atomic(AtomicOp op, T *p, T operand, T swap_in) {
    switch (op) {
        case AtomicOp::kCas:
            __atomic_compare_exchange_n(p, &operand, swap_in, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return operand;  // the previous value, whether or not it swapped
        case AtomicOp::kSwap: return __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
        case AtomicOp::kAdd: return __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
        case AtomicOp::kXor: return __atomic_fetch_xor(p, operand, __ATOMIC_SEQ_CST);
        case AtomicOp::kOr: return __atomic_fetch_or(p, operand, __ATOMIC_SEQ_CST);
        case AtomicOp::kAnd: return __atomic_fetch_and(p, operand, __ATOMIC_SEQ_CST);
    }
    return 0;
}

}  // namespace acpx::basic
