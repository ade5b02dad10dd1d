/* An exclusive scan of one int per thread across a block of MJ_NT threads (a multiple of 32):
 * warp shuffles, then the warp totals through shared memory. For counts (bulk remove's kept
 * elements), where cta_scan.cuh scans the spec's keys with its operator. */
#ifndef MJ_CTA_COUNT_SCAN_CUH
#define MJ_CTA_COUNT_SCAN_CUH

#include "common/spec_default.cuh"

#define MJ_COUNT_SCAN_WARPS (MJ_NT / 32)

/* The sum of the x of the threads before this one. Every thread of the block calls it;
 * s_warps holds MJ_COUNT_SCAN_WARPS ints and must not be used again before a barrier. */
MJ_DEVICE int mj_cta_count_scan(int x, int *s_warps, int tid) {
    int lane = tid & 31, warp = tid >> 5, inclusive = x;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int y = __shfl_up_sync(0xFFFFFFFFu, inclusive, d);
        if (lane >= d) inclusive += y;
    }
    if (lane == 31) s_warps[warp] = inclusive;
    __syncthreads();
    int before = 0;
    for (int w = 0; w < warp; ++w) before += s_warps[w];
    return before + inclusive - x;
}

#endif
