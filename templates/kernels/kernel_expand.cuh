/* Interval expand: the load-balancing search's tiles, each item taking its owner's value
 * (out[i] = values[object of i]), stored coalesced. */
#ifndef MJ_KERNEL_EXPAND_CUH
#define MJ_KERNEL_EXPAND_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_expand_tiles(const mj_key *offsets, mj_i64 objects, mj_i64 items, const mj_i64 *partitions,
                const mj_value *values, mj_value *out) {
    MJ_LBS_SHARED(s_off, s_owner);
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_load_balance(offsets, objects, items, partitions, s_off, s_owner,
                                         tid);
    int nx = (int)(r.x1 - r.x0);
    for (int i = tid; i < nx; i += MJ_NT) out[r.x0 + i] = values[r.base + s_owner[i]];
}

#endif
