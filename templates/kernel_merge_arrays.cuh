/* Merge of two sorted arrays (the merge primitive): coarse partitioning with the merge path
 * search at every tile's first output, then one block per tile merges its part of a and b
 * (mj_cta_merge, shared with mergesort). Stable: on ties a comes first. */
#ifndef MJ_KERNEL_MERGE_ARRAYS_CUH
#define MJ_KERNEL_MERGE_ARRAYS_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "merge_path.cuh"
#include "cta_merge.cuh"

/* partitions[t] for t in [0, tiles]: how many of the first t * MJ_NV outputs come from a.
 * The merge kernel may start while this one runs (mj_launch_overlapped): every entry is set
 * to -1 before its block lets the merge kernel start, and each merge block waits until its
 * two entries are found (mj_await_split). The first `early` entries, which the first waves of
 * merge blocks wait for, are found by groups of `early_lanes` threads (fewer rounds of loads,
 * more loads: mj_group_search), the rest one thread each (the fewest loads; the first waves'
 * merges hide their latency). The early entries' blocks come first in the grid. */
extern "C" __global__ void mj_merge_partition(const mj_key *a, mj_i64 a_count, const mj_key *b,
                                              mj_i64 b_count, mj_i64 tiles,
                                              mj_i64 *partitions, mj_i64 early,
                                              int early_lanes) {
    mj_i64 early_blocks = (early * early_lanes + blockDim.x - 1) / blockDim.x;
    bool first = blockIdx.x < early_blocks;
    int lanes = first ? early_lanes : 1;
    mj_i64 block = first ? blockIdx.x : blockIdx.x - early_blocks;
    mj_i64 t = (first ? 0 : early) + (block * blockDim.x + threadIdx.x) / lanes;
    bool mine = t < (first ? early : tiles + 1);
    bool owner = mine && (threadIdx.x & (lanes - 1)) == 0;
    volatile mj_i64 *slot = partitions + t;
    if (owner) *slot = -1;
    __threadfence();
    __syncthreads();
    mj_allow_next_kernel();
    /* Groups past the end search an empty range: their lanes still take part in the ballots. */
    mj_i64 diag = mine ? mj_min(t * MJ_NV, a_count + b_count) : 0;
    mj_i64 p = mj_group_merge_path(lanes, a, a_count, b, b_count, diag);
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
    mj_cta_merge(src, total, unsegmented, keys_out + d0, values_out + d0, s_keys, s_pos,
                 threadIdx.x);
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
