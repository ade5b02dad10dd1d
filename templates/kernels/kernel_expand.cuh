/* Interval expand: the load-balancing search's tiles, each item taking its owner's value
 * (out[i] = values[object of i]), stored coalesced. */
#ifndef MJ_KERNEL_EXPAND_CUH
#define MJ_KERNEL_EXPAND_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_expand_tiles(const mj_key *offsets, mj_i64 objects, mj_i64 items, const mj_i64 *partitions,
                const mj_value *__restrict__ values, mj_value *__restrict__ out) {
    MJ_LBS_SHARED(s_off, s_owner);
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_load_balance(offsets, objects, items, partitions, s_off, s_owner,
                                         tid, true);
    int nx = (int)(r.x1 - r.x0);
    /* Unrolled, and out never aliases values (the host refuses overlap), so a thread's loads
     * of values are all in flight at once instead of one load-store round trip per item. */
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int i = tid + k * MJ_NT;
        if (i < nx) out[r.x0 + i] = values[r.base + s_owner[i]];
    }
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
