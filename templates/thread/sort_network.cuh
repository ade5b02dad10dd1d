/* Odd-even transposition sort of one thread's MJ_VT keys in registers. Only adjacent pairs
 * swap, and only when strictly out of order, so equal keys keep their order: stable. MJ_VT
 * rounds sort MJ_VT keys; every index is a compile-time constant once unrolled, so the
 * arrays stay in registers. In segmented sorts bit i of `heads` marks key i as the first of a
 * segment: no swap crosses it, so each segment is sorted on its own. */
#ifndef MJ_SORT_NETWORK_CUH
#define MJ_SORT_NETWORK_CUH

#include "common/spec_default.cuh"
#include "thread/serial_merge.cuh"

/* Round `odd`: the pairs (i, i + 1) with i of that parity. */
MJ_DEVICE void mj_sort_round(mj_key keys[MJ_VT], int pos[MJ_VT], unsigned heads, int odd) {
#pragma unroll
    for (int i = odd; i + 1 < MJ_VT; i += 2) {
#if MJ_SEGMENTED
        bool apart = (heads >> (i + 1)) & 1;
#else
        bool apart = false;
        (void)heads;
#endif
        if (!apart && mj_less(keys[i + 1], keys[i])) {
            mj_swap(keys[i], keys[i + 1]);
            mj_swap(pos[i], pos[i + 1]);
        }
    }
}

/* Keys alone: the rounds two at a time in a loop that is not unrolled, the same swaps in a
 * twelfth of the code for NVRTC to optimize (an H100 sorts as fast; the u64 blocksort compiles
 * in half the time). With values, ptxas spilled the loop's registers in some blocksorts (f64
 * keys with 8-byte values): every round unrolled. */
MJ_DEVICE void mj_sort_network(mj_key keys[MJ_VT], int pos[MJ_VT], unsigned heads) {
#if MJ_HAS_VALUES
#pragma unroll
    for (int round = 0; round < MJ_VT; ++round) mj_sort_round(keys, pos, heads, round & 1);
#else
#pragma unroll 1
    for (int round = 0; round + 1 < MJ_VT; round += 2) {
        mj_sort_round(keys, pos, heads, 0);
        mj_sort_round(keys, pos, heads, 1);
    }
    if (MJ_VT & 1) mj_sort_round(keys, pos, heads, 0);
#endif
}

#endif
