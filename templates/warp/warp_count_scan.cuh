/* An inclusive scan of one count per lane across a warp (every lane takes part): the shuffle
 * steps of the block's count scan (cta_count_scan.cuh) and of select's numbering of its
 * groups. */
#ifndef MJ_WARP_COUNT_SCAN_CUH
#define MJ_WARP_COUNT_SCAN_CUH

#include "common/spec_default.cuh"

/* The sum of x over lanes 0 to `lane`. */
template <typename T> MJ_DEVICE T mj_warp_count_scan(T x, int lane) {
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T y = __shfl_up_sync(0xFFFFFFFFu, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

#endif
