/* An exclusive scan of one count per thread across a block of MJ_NT threads (a multiple of
 * 32): warp shuffles, then the warp totals through shared memory. For counts (bulk remove's
 * kept elements as int, a join's rows as unsigned long long), where cta_scan.cuh scans the
 * spec's keys with its operator. */
#ifndef MJ_CTA_COUNT_SCAN_CUH
#define MJ_CTA_COUNT_SCAN_CUH

#include "common/spec_default.cuh"
#include "warp/warp_count_scan.cuh"

#define MJ_COUNT_SCAN_WARPS (MJ_NT / 32)

/* The sum of the x of the threads before this one. Every thread of the block calls it;
 * s_warps holds MJ_COUNT_SCAN_WARPS counts (their sum is the block's total) and must not be
 * used again before a barrier. */
template <typename T>
MJ_DEVICE T mj_cta_count_scan(T x, T *s_warps, int tid) {
    int lane = tid & 31, warp = tid >> 5;
    T inclusive = mj_warp_count_scan(x, lane);
    if (lane == 31) s_warps[warp] = inclusive;
    __syncthreads();
    T before = 0;
    /* Unrolled over the block's warps (a loop to `warp` is not): a few predicated adds. */
#pragma unroll
    for (int w = 0; w < MJ_COUNT_SCAN_WARPS - 1; ++w)
        if (w < warp) before += s_warps[w];
    return before + inclusive - x;
}

/* The block's total, from the warp totals mj_cta_count_scan left in s_warps (read before the
 * next barrier). */
template <typename T>
MJ_DEVICE T mj_cta_count_total(const T *s_warps) {
    T total = 0;
#pragma unroll
    for (int w = 0; w < MJ_COUNT_SCAN_WARPS; ++w) total += s_warps[w];
    return total;
}

#endif
