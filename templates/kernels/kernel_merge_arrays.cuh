/* Merge of two sorted arrays (the merge primitive): after the coarse partition
 * (kernel_merge_partition.cuh: the merge path search at every tile's first output), one block
 * per tile merges its part of a and b (mj_cta_merge, shared with mergesort). Stable: on ties a
 * comes first. */
#ifndef MJ_KERNEL_MERGE_ARRAYS_CUH
#define MJ_KERNEL_MERGE_ARRAYS_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "thread/merge_path.cuh"
#include "block/cta_merge.cuh"
#include "block/await_split.cuh"

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
