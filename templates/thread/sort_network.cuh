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

/* The rounds two at a time in a loop that is not unrolled: the same swaps in a twelfth of the
 * code for NVRTC to optimize (an H100 sorts as fast; the u64 blocksort compiles in half the
 * time). Sorts with values unrolled every round while ptxas spilled the loop's registers in
 * two blocksorts of then (f64 + 8-byte values, sm_80 f32 + 4-byte segmented); today's tiles
 * compile clean (test_compile). NVRTC's work to a cubin with the loop against every round
 * unrolled (cachegrind, sm_90): f64 + 8 desc blocksort 4782 -> 3499 M instructions, u32 + 4
 * 2180 -> 1972, segmented u32 + 4 2769 -> 2468. */
MJ_DEVICE void mj_sort_network(mj_key keys[MJ_VT], int pos[MJ_VT], unsigned heads) {
#pragma unroll 1
    for (int round = 0; round + 1 < MJ_VT; round += 2) {
        mj_sort_round(keys, pos, heads, 0);
        mj_sort_round(keys, pos, heads, 1);
    }
    if (MJ_VT & 1) mj_sort_round(keys, pos, heads, 0);
}

#endif
