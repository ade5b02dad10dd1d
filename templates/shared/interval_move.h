/* Interval move's index arithmetic, in the common subset of C and CUDA C++ so that the kernel
 * and the CPU model in test_move_model run the very same code. An item of an interval that
 * starts at offset `off` with gather (or scatter) entry `entry` has the source (destination)
 * entry + (item - off). The kernel forms the shift entry - off from its interval's entry and
 * offset and adds the item's index; both wrap modulo 2^64. For offsets in the contract
 * (0 <= off <= item < 2^62) and any entry of the index type, the true index lies in
 * [-2^63, 2^63 + 2^62), so the wrapped value is below a count under 2^63 exactly when the true
 * index is in [0, count): a negative one wraps to 2^63 or more. Whatever the offsets, an index
 * that passes is inside the array. */
#ifndef MJ_INTERVAL_MOVE_H
#define MJ_INTERVAL_MOVE_H

#include "shared/host_device.h"

MJ_HD unsigned long long mj_move_shift(long long entry, long long off) {
    return (unsigned long long)entry - (unsigned long long)off;
}

MJ_HD unsigned long long mj_move_index(long long item, unsigned long long shift) {
    return (unsigned long long)item + shift;
}

#endif
