/* Merge of two sorted arrays (the merge primitive): coarse partitioning with the merge path
 * search at every tile's first output, then one block per tile merges its part of a and b
 * (mj_cta_merge, shared with mergesort). Stable: on ties a comes first. */
#ifndef MJ_KERNEL_MERGE_ARRAYS_CUH
#define MJ_KERNEL_MERGE_ARRAYS_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "thread/merge_path.cuh"
#include "block/cta_merge.cuh"

/* partitions[t] for t in [0, tiles]: how many of the first t * MJ_NV outputs come from a.
 * The merge kernel may start while this one runs (mj_launch_overlapped): every entry is set
 * to -1 before its block lets the merge kernel start, and each merge block waits until its
 * two entries are found (mj_await_split).
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
    if (owner) *slot = -1;
    __threadfence();
    __syncthreads();
    mj_allow_next_kernel();

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

/* A partition entry once mj_merge_partition has found it. */
MJ_DEVICE mj_i64 mj_await_split(const mj_i64 *slot) {
    mj_i64 p;
    while ((p = *(const volatile mj_i64 *)slot) < 0) __nanosleep(128);
    return p;
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_merge_arrays(const mj_key *a_keys, const mj_value *a_values, mj_i64 a_count,
                const mj_key *b_keys, const mj_value *b_values, mj_i64 b_count,
                mj_key *keys_out, mj_value *values_out, const mj_i64 *partitions) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    __shared__ mj_i64 s_split[2];
    mj_i64 tile = blockIdx.x;
    if (threadIdx.x < 2) s_split[threadIdx.x] = mj_await_split(partitions + tile + threadIdx.x);
    __syncthreads();
    mj_i64 d0 = tile * MJ_NV;
    mj_i64 d1 = mj_min(d0 + MJ_NV, a_count + b_count);
    mj_i64 a0 = s_split[0], a1 = s_split[1];
    int a_len = (int)(a1 - a0);
    int total = (int)(d1 - d0);
    mj_seg unsegmented = {0, total};
    mj_merge_src src = mj_two_runs(a_keys, a_values, a0, a_len, b_keys, b_values, d0 - a0,
                                   total);
    mj_cta_merge(src, total, unsegmented, false, keys_out + d0, values_out + d0, s_keys, s_pos,
                 threadIdx.x);
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
