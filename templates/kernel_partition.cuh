/* Coarse partitioning for one mergesort pass: for every tile, the merge path split at the
 * tile's first output diagonal within its frame (an offset into list A). One thread a tile;
 * the merge kernel reads its own entry and the next. */
#ifndef MJ_KERNEL_PARTITION_CUH
#define MJ_KERNEL_PARTITION_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "merge_path.cuh"
#include "tile_io.cuh"

extern "C" __global__ void mj_partition(const mj_key *keys, mj_i64 n, mj_i64 coop, mj_i64 tiles,
                                        mj_i64 *partitions) {
    mj_i64 tile = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (tile >= tiles) return;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    mj_i64 diag = mj_min(mj_tile_diag(tile, coop, MJ_NV), f.a_count + f.b_count);
    partitions[tile] = mj_merge_path(keys + f.a0, f.a_count, keys + f.b0, f.b_count, diag);
}

#endif
