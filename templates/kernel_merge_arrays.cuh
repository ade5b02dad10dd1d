/* Merge of two sorted arrays (the merge primitive): coarse partitioning with the merge path
 * search at every tile's first output, then one block per tile merges its part of a and b
 * (mj_cta_merge, shared with mergesort). Stable: on ties a comes first. */
#ifndef MJ_KERNEL_MERGE_ARRAYS_CUH
#define MJ_KERNEL_MERGE_ARRAYS_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "merge_path.cuh"
#include "cta_merge.cuh"

/* partitions[t] for t in [0, tiles]: how many of the first t * MJ_NV outputs come from a. A
 * group of `lanes` threads finds each (mj_search_lanes). */
extern "C" __global__ void mj_merge_partition(const mj_key *a, mj_i64 a_count, const mj_key *b,
                                              mj_i64 b_count, mj_i64 tiles,
                                              mj_i64 *partitions, int lanes) {
    mj_i64 t = ((mj_i64)blockIdx.x * blockDim.x + threadIdx.x) / lanes;
    /* Groups past the end search an empty range: their lanes still take part in the ballots. */
    mj_i64 diag = t <= tiles ? mj_min(t * MJ_NV, a_count + b_count) : 0;
    mj_i64 p = mj_group_merge_path(lanes, a, a_count, b, b_count, diag);
    if (t <= tiles && (threadIdx.x & (lanes - 1)) == 0) partitions[t] = p;
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_merge_arrays(const mj_key *a_keys, const mj_value *a_values, mj_i64 a_count,
                const mj_key *b_keys, const mj_value *b_values, mj_i64 b_count,
                mj_key *keys_out, mj_value *values_out, const mj_i64 *partitions) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    mj_i64 tile = blockIdx.x;
    mj_i64 d0 = tile * MJ_NV;
    mj_i64 d1 = mj_min(d0 + MJ_NV, a_count + b_count);
    mj_i64 a0 = partitions[tile], a1 = partitions[tile + 1];
    int a_len = (int)(a1 - a0);
    int total = (int)(d1 - d0);
    mj_seg unsegmented = {0, total};
    mj_merge_src src = mj_two_runs(a_keys, a_values, a0, a_len, b_keys, b_values, d0 - a0,
                                   total);
    mj_cta_merge(src, total, unsegmented, keys_out + d0, values_out + d0, s_keys, s_pos,
                 threadIdx.x);
}

#endif
