/* Bulk remove: a coarse partition finds, for each tile boundary, the first removal index at or
 * past it; then one block a tile of MJ_NT x MJ_VT source elements marks the tile's removals in
 * shared memory, numbers the kept elements with a block scan and copies them, keys then
 * values, to the tile's output start (its base minus the removals before it). Each warp's
 * stores fall on consecutive slots, so they coalesce like a plain copy's. */
#ifndef MJ_KERNEL_REMOVE_CUH
#define MJ_KERNEL_REMOVE_CUH

#include "common/spec_default.cuh"
#include "shared/bulk_remove.h"
#include "thread/index_array.cuh"
#include "block/cta_count_scan.cuh"
#include "block/cta_move_kept.cuh"

#define MJ_REMOVE_NV (MJ_NT * MJ_VT)

extern "C" __global__ void __launch_bounds__(MJ_REMOVE_PARTITION_NT)
mj_remove_partition(const void *indices, int index_size, mj_i64 num_indices, mj_i64 n,
                    mj_i64 tiles, mj_i64 *partitions) {
    mj_i64 t = (mj_i64)blockIdx.x * MJ_REMOVE_PARTITION_NT + threadIdx.x;
    if (t > tiles) return;
    partitions[t] = mj_index_lower_bound(mj_indices(indices, index_size), num_indices,
                                         mj_remove_boundary(t, MJ_REMOVE_NV, n));
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_remove_tiles(const mj_key *keys, const mj_value *values, mj_i64 n, const void *indices,
                int index_size, const mj_i64 *partitions, mj_key *out_keys,
                mj_value *out_values, mj_i64 out_count) {
    /* 1 for an element kept, 0 removed (and past the end); then each kept one's output slot
     * in the tile, -1 for the rest. */
    __shared__ int s_dest[MJ_REMOVE_NV];
    __shared__ int s_warps[MJ_COUNT_SCAN_WARPS];
    int tid = threadIdx.x;
    mj_i64 tile = blockIdx.x;
    mj_remove_range r = mj_remove_tile_range(tile, MJ_REMOVE_NV, n, partitions[tile],
                                             partitions[tile + 1]);
    int len = (int)r.len, count = (int)r.count;
    for (int i = tid; i < MJ_REMOVE_NV; i += MJ_NT) s_dest[i] = i < len;
    __syncthreads();
    /* Only indices inside the tile mark: a broken contract cannot reach other slots. */
    mj_index_array ix = mj_indices(indices, index_size);
    for (int i = tid; i < count; i += MJ_NT) {
        mj_i64 at = ix[r.first + i] - r.base;
        if (at >= 0 && at < len) s_dest[at] = 0;
    }
    __syncthreads();
    /* Number the kept elements: each thread its MJ_VT consecutive slots (an odd MJ_VT keeps
     * these reads free of bank conflicts). */
    int keep[MJ_VT], kept = 0;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        keep[k] = s_dest[tid * MJ_VT + k];
        kept += keep[k];
    }
    int slot = mj_cta_count_scan(kept, s_warps, tid);
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) s_dest[tid * MJ_VT + k] = keep[k] ? slot++ : -1;
    __syncthreads();
    mj_move_kept(keys + r.base, out_keys, r.out_base, out_count, s_dest, len, tid);
    if (MJ_HAS_VALUES)
        mj_move_kept(values + r.base, out_values, r.out_base, out_count, s_dest, len, tid);
}

#endif
