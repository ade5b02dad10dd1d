/* Coarse partitioning for one mergesort pass of `ways` lists (4, or 2): for every tile, the
 * 4-way split at the tile's first output diagonal within its frame (templates/shared/corank.h),
 * four offsets into the frame's lists (a 2-way pass's last two empty). A thread a tile; the
 * merge kernel reads its tile's entry and the next. */
#ifndef MJ_KERNEL_PARTITION_CUH
#define MJ_KERNEL_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/corank.h"
#include "block/tile_io.cuh"

extern "C" __global__ void mj_partition(const mj_key *keys, mj_i64 n, mj_i64 coop, int ways,
                                        mj_i64 tiles, mj_i64 *partitions) {
    mj_i64 tile = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (tile >= tiles) return;
    mj_frame4 f = mj_sort_frame4(tile, coop, ways, MJ_NV, n);
    mj_i64 split[4];
    mj_corank4(keys, f.begin, f.count,
               mj_min(mj_tile_diag(tile, coop, MJ_NV), mj_frame4_total(f)), split);
#pragma unroll
    for (int l = 0; l < 4; ++l) partitions[4 * tile + l] = split[l];
}

#endif
