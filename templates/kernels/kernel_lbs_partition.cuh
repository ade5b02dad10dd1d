/* Load-balancing search and interval expand, coarse partition: partitions[t] for t in
 * [0, tiles] is how many of the first t * MJ_LBS_NV outputs of the merge of the items with the
 * offsets are items (mj_lbs_path_warp), one warp an entry. */
#ifndef MJ_KERNEL_LBS_PARTITION_CUH
#define MJ_KERNEL_LBS_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(32 * MJ_LBS_PARTITION_WARPS)
mj_lbs_partition(const mj_key *offsets, mj_i64 objects, mj_i64 items, mj_i64 tiles,
                 mj_i64 *partitions) {
    mj_i64 t = (mj_i64)blockIdx.x * MJ_LBS_PARTITION_WARPS + threadIdx.x / 32;
    if (t > tiles) return; /* the whole warp */
    mj_i64 diag = mj_min(t * MJ_LBS_NV, items + objects);
    mj_i64 p = mj_lbs_path_warp(offsets, objects, items, diag, threadIdx.x % 32);
    if (threadIdx.x % 32 == 0) partitions[t] = p;
}

#endif
