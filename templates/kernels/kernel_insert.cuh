/* Bulk insert: the merge of a's positions with b's indices 0..b_count-1, a position going
 * before the equal index, is load-balancing search's merge with the positions as offsets and
 * b's elements as items. Its coarse partition and each tile's sources (cta_load_balance.cuh's
 * mj_cta_lbs_sources) note, per output of the tile, where it comes from (b's item x as x, a's
 * element y as ~y) in shared memory; the block then copies keys and values from a and b with
 * coalesced stores. */
#ifndef MJ_KERNEL_INSERT_CUH
#define MJ_KERNEL_INSERT_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "thread/index_array.cuh"
#include "block/cta_load_balance.cuh"

extern "C" __global__ void __launch_bounds__(MJ_LBS_PARTITION_THREADS)
mj_insert_partition(const void *positions, int index_size, mj_i64 a_count, mj_i64 b_count,
                    mj_i64 tiles, mj_i64 *partitions) {
    mj_lbs_partition_entry(mj_indices(positions, index_size), a_count, b_count, tiles,
                           partitions);
}

/* out[k] = the tile's source k (b[s] for s >= 0, a[~s] otherwise) for k < len, block-strided:
 * every load is issued before the first store. */
template <typename T>
MJ_DEVICE void mj_insert_move(const T *a, const T *b, T *out, const int *s_src, int len,
                              int tid) {
    T x[MJ_VT];
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int i = tid + MJ_NT * k;
        if (i < len) {
            int s = s_src[i];
            x[k] = s >= 0 ? b[s] : a[~s];
        }
    }
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k)
        if (tid + MJ_NT * k < len) out[tid + MJ_NT * k] = x[k];
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_insert_tiles(const void *positions, int index_size, mj_i64 a_count, mj_i64 b_count,
                const mj_i64 *partitions, const mj_key *a_keys, const mj_value *a_values,
                const mj_key *b_keys, const mj_value *b_values, mj_key *out_keys,
                mj_value *out_values) {
    __shared__ int s_pos[MJ_LBS_NV + 1]; /* relative to the tile's first item */
    __shared__ int s_src[MJ_LBS_NV];
    int tid = threadIdx.x;
    mj_lbs_range r = mj_cta_lbs_sources(mj_indices(positions, index_size), a_count, b_count,
                                        partitions, s_pos, s_src, tid);
    /* The tile's outputs start at x0 + y0 = tile * MJ_LBS_NV, whatever the positions. */
    int len = (int)((r.x1 - r.x0) + (r.y1 - r.y0));
    mj_i64 d0 = r.x0 + r.y0;
    mj_insert_move(a_keys + r.y0, b_keys + r.x0, out_keys + d0, s_src, len, tid);
    if (MJ_HAS_VALUES)
        mj_insert_move(a_values + r.y0, b_values + r.x0, out_values + d0, s_src, len, tid);
    /* Work after this kernel in the stream may take the partition kernel to be over too. */
    mj_await_prior_kernels();
}

#endif
