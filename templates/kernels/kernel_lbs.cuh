/* Load-balancing search: one block a tile of the merged items and offsets writes, for each of
 * its items, the owning object and (when ranks is not NULL) the item's rank in it, through
 * shared memory so that the stores are coalesced. */
#ifndef MJ_KERNEL_LBS_CUH
#define MJ_KERNEL_LBS_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_lbs_tiles(const mj_key *offsets, mj_i64 objects, mj_i64 items, const mj_i64 *partitions,
             mj_key *__restrict__ objects_out, mj_key *__restrict__ ranks_out) {
    MJ_LBS_SHARED(s_off, s_owner);
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_load_balance(offsets, objects, items, partitions, s_off, s_owner,
                                         tid, true);
    int nx = (int)(r.x1 - r.x0);
    /* Unrolled like expand's copy, so that the stores of a thread go out back to back. */
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int i = tid + k * MJ_NT;
        if (i >= nx) break;
        int o = s_owner[i];
        objects_out[r.x0 + i] = (mj_key)(r.base + o);
        if (ranks_out) ranks_out[r.x0 + i] = (mj_key)(r.x0 + i - (mj_i64)s_off[o]);
    }
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
