/* The merge path partition of two sorted arrays (the merge primitive's coarse partition,
 * which the sorted search reuses): every tile's first output split between a and b, found
 * while the tile kernel that reads it may already run (block/await_split.cuh). */
#ifndef MJ_KERNEL_MERGE_PARTITION_CUH
#define MJ_KERNEL_MERGE_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "thread/merge_path.cuh"
#include "block/await_split.cuh"

/* partitions[t] for t in [0, tiles]: how many of the first t * MJ_NV outputs come from a.
 * The merge kernel may start while this one runs (mj__launch_overlapped): every entry is set
 * to -1 before its block lets the merge kernel start (mj_open_split), and each merge block
 * waits until its two entries are found (mj_await_split).
 * The first `early` entries, which the first waves of merge blocks wait for, come first in the
 * grid and are found by groups of `early_lanes` threads: fewer rounds of dependent loads, at
 * the cost of more loads (mj_group_search). Each later block finds MJ_MP_NT / MJ_MP_LANES
 * consecutive entries with fewer loads: first, by groups of early_lanes too (while the merges
 * have not yet taken the memory bandwidth, which makes every round slower), every
 * MJ_MP_STRIDE-th entry and the next block's first; then groups of MJ_MP_LANES search for each
 * entry between only between the two it lies between, MJ_MP_STRIDE tiles of output apart
 * (early_lanes * MJ_MP_BOUNDS <= MJ_MP_NT, so that one block's threads find all bounds). */
#define MJ_MP_ENTRIES (MJ_MP_NT / MJ_MP_LANES)
#define MJ_MP_BOUNDS (MJ_MP_ENTRIES / MJ_MP_STRIDE + 1)
extern "C" __global__ void __launch_bounds__(MJ_MP_NT)
mj_merge_partition(const mj_key *a, mj_i64 a_count, const mj_key *b, mj_i64 b_count,
                   mj_i64 tiles, mj_i64 *partitions, mj_i64 early, int early_lanes) {
    __shared__ mj_i64 s_bound[MJ_MP_BOUNDS];
    int tid = threadIdx.x;
    mj_i64 early_blocks = (early * early_lanes + MJ_MP_NT - 1) / MJ_MP_NT;
    bool first = blockIdx.x < early_blocks;
    int lanes = first ? early_lanes : MJ_MP_LANES;
    mj_i64 t0 = first ? blockIdx.x * (MJ_MP_NT / lanes)
                      : early + (blockIdx.x - early_blocks) * MJ_MP_ENTRIES;
    mj_i64 t = t0 + tid / lanes;
    bool mine = t < (first ? early : tiles + 1);
    bool owner = mine && (tid & (lanes - 1)) == 0;
    volatile mj_i64 *slot = partitions + t;
    mj_open_split(slot, owner);

    mj_i64 n = a_count + b_count;
    mj_i64 diag = mine ? mj_min(t * MJ_NV, n) : 0;
    mj_i64 lo = diag > b_count ? diag - b_count : 0, hi = mine ? mj_min(diag, a_count) : 0;
    if (!first) {
        /* The bounds, in as many whole warps as their groups take. */
        if (tid / 32 <= (MJ_MP_BOUNDS * early_lanes - 1) / 32) {
            int k = tid / early_lanes;
            bool bound = k < MJ_MP_BOUNDS;
            mj_i64 d = bound ? mj_min(mj_min(t0 + k * MJ_MP_STRIDE, tiles) * MJ_NV, n) : 0;
            mj_i64 p = mj_group_merge_path(early_lanes, a, a_count, b, b_count, d);
            if (bound && (tid & (early_lanes - 1)) == 0) s_bound[k] = p;
        }
        __syncthreads();
        int j = (tid / lanes) / MJ_MP_STRIDE;
        mj_i64 t_left = t0 + j * MJ_MP_STRIDE;
        mj_i64 d_left = mj_min(t_left * MJ_NV, n);
        mj_i64 d_right = mj_min(mj_min(t_left + MJ_MP_STRIDE, tiles) * MJ_NV, n);
        mj_i64 p_left = s_bound[j], p_right = s_bound[j + 1];
        if (mine) mj_narrow_split(diag, d_left, p_left, d_right, p_right, &lo, &hi);
    }
    mj_i64 p = mj_group_search(lanes, a, b, diag, lo, hi);
    if (owner) *slot = p;
}

#endif
