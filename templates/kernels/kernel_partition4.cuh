/* Coarse partitioning for one 4-way mergesort pass: for every tile, the 4-way split at the
 * tile's first output diagonal within its frame (templates/shared/corank.h), four offsets into
 * the frame's lists. A warp a tile, MJ_CR_WARPS(sizeof(mj_key)) warps a block (the host
 * launches as many); mj_merge4 reads its tile's entry and the next. 2-way passes use
 * mj_partition (kernel_partition.cuh). Launched overlapped or not (MERGEJIT_PDL), as
 * mj_partition: it waits for the pass before it first. */
#ifndef MJ_KERNEL_PARTITION4_CUH
#define MJ_KERNEL_PARTITION4_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/corank.h"
#include "block/tile_io.cuh"

extern "C" __global__ void mj_partition4(const mj_key *keys, mj_i64 n, mj_i64 coop, mj_i64 tiles,
                                         mj_i64 *partitions) {
    mj_await_prior_kernels();
    mj_allow_next_kernel();
    __shared__ mj_cr_shared s_search[MJ_CR_WARPS(sizeof(mj_key))];
    int warp = threadIdx.x / MJ_CR_LANES, lane = threadIdx.x % MJ_CR_LANES;
    mj_i64 tile = (mj_i64)blockIdx.x * MJ_CR_WARPS(sizeof(mj_key)) + warp;
    if (tile >= tiles) return; /* the whole warp: its lanes share the tile */
    mj_frame4 f = mj_sort_frame4(tile, coop, MJ_NV, n);
    mj_i64 split[4];
    mj_corank4(keys, f.begin, f.count,
               mj_min(mj_tile_diag(tile, coop, MJ_NV), mj_frame4_total(f)), lane, MJ_CR_LANES,
               &s_search[warp], split);
    if (lane < 4) {
        mj_i64 mine = split[0];
#pragma unroll
        for (int l = 1; l < 4; ++l) mine = lane == l ? split[l] : mine;
        partitions[4 * tile + lane] = mine;
    }
}

#endif
