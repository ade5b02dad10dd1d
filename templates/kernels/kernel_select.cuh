/* Select (CUB's DeviceSelect::If and ::Unique) in one pass over the input: one block a tile
 * of MJ_NV elements, numbered in the order the blocks start, loads its keys into shared
 * memory, marks the ones it keeps (the selection operator holds, or the key is not equivalent
 * to the one before it), numbers them with a block scan, learns how many the tiles before it
 * keep (the count look-back) and moves its kept keys from shared memory, its values from
 * global memory, to their slots. The last tile writes the count. */
#ifndef MJ_KERNEL_SELECT_CUH
#define MJ_KERNEL_SELECT_CUH

#include "common/spec_default.cuh"
#include "block/tile_io.cuh"
#include "block/cta_count_scan.cuh"
#include "block/cta_count_look_back.cuh"
#include "block/cta_move_kept.cuh"

/* What mj_select_tiles keeps: the values of mj_select_kind (mergejit.h). */
#define MJ_KEEP_SELECTED 0
#define MJ_KEEP_UNIQUE 1

/* Neither is ordered before the other. */
MJ_DEVICE bool mj_equivalent(const mj_key &a, const mj_key &b) {
    return !mj_less(a, b) && !mj_less(b, a);
}

/* One block a tile (the grid has exactly one a tile; n > 0). states: a look-back word a
 * tile, then the tile counter, all zero before the launch. Outputs hold n elements. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_select_tiles(const mj_key *keys, const mj_value *values, mj_i64 n, int kind,
                mj_u64 *states, mj_key *out_keys, mj_value *out_values, mj_u64 *out_count) {
    __shared__ mj_key s_keys[MJ_NV];
    __shared__ int s_dest[MJ_NV]; /* each element's slot in the tile's output, -1 if dropped */
    __shared__ int s_warps[MJ_COUNT_SCAN_WARPS];
    __shared__ mj_i64 s_tile, s_base;
    int tid = threadIdx.x;
    mj_i64 tiles = gridDim.x;
    if (tid == 0) s_tile = (mj_i64)atomicAdd(states + tiles, 1ull);
    __syncthreads();
    mj_i64 tile = s_tile, first = tile * MJ_NV;
    int len = (int)mj_min<mj_i64>(n - first, MJ_NV);
    mj_copy_tile<MJ_NT>(keys + first, len, s_keys, tid);
    __syncthreads();

    /* Each thread its MJ_VT consecutive elements. Unique compares each key with the one
     * before it: the tile's first with the last of the tile before, from global memory. */
    int j0 = tid * MJ_VT;
    bool keep[MJ_VT];
    int kept = 0;
    if (j0 < len) {
        mj_key prev = j0 > 0 ? s_keys[j0 - 1] : first > 0 ? keys[first - 1] : s_keys[0];
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k) {
            int j = j0 + k;
            keep[k] = false;
            if (j < len) {
                mj_key x = s_keys[j];
                keep[k] = kind == MJ_KEEP_UNIQUE ? (first + j == 0 || !mj_equivalent(prev, x))
                                                 : mj_select_op(x);
                prev = x;
            }
            kept += keep[k];
        }
    } else {
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k) keep[k] = false;
    }
    int slot = mj_cta_count_scan(kept, s_warps, tid);
    /* The tile's count from the warp totals, before the next barrier: warp 0's look-back
     * then overlaps the other warps' numbering. */
    int count = mj_cta_count_total(s_warps);
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) s_dest[j0 + k] = keep[k] ? slot++ : -1;
    if (tid < 32) {
        mj_u64 before = mj_count_look_back(states, tile, (mj_u64)count, tid);
        if (tid == 0) {
            s_base = (mj_i64)before;
            if (tile == tiles - 1) *out_count = before + (mj_u64)count;
        }
    }
    __syncthreads();
    mj_move_kept(s_keys, out_keys, s_base, n, s_dest, len, tid);
    if (MJ_HAS_VALUES) mj_move_kept(values + first, out_values, s_base, n, s_dest, len, tid);
}

#endif
