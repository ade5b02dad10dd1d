/* Pass 0 of mergesort: every block sorts one tile of MJ_NV keys (and their values) on its own.
 * Keys may be sorted in place (keys_out == keys_in): the tile is read into shared memory
 * before anything is written. values_in NULL means "the values are the keys' indices" (index
 * sorts), which needs an integer value type. */
#ifndef MJ_KERNEL_BLOCKSORT_CUH
#define MJ_KERNEL_BLOCKSORT_CUH

#include "spec_default.cuh"
#include "tile_io.cuh"
#include "cta_blocksort.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_blocksort(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
             mj_value *values_out, mj_i64 n) {
    __shared__ mj_key s_keys[MJ_NV];
    __shared__ int s_pos[MJ_HAS_VALUES ? MJ_NV : 1];
    int tid = threadIdx.x;
    mj_i64 tile0 = (mj_i64)blockIdx.x * MJ_NV;
    int count = (int)mj_min((mj_i64)MJ_NV, n - tile0);

    mj_load_to_shared(keys_in + tile0, count, keys_in + tile0, count, s_keys, tid);
    __syncthreads();
    mj_key keys[MJ_VT];
    int pos[MJ_VT];
    mj_shared_to_regs(s_keys, keys, tid);
    __syncthreads();

    mj_cta_sort(keys, pos, count, s_keys, s_pos, tid);

    mj_regs_to_shared(keys, s_keys, tid);
#if MJ_HAS_VALUES
    mj_regs_to_shared(pos, s_pos, tid);
#endif
    __syncthreads();
    mj_store_from_shared(s_keys, count, keys_out + tile0, tid);
#if MJ_HAS_VALUES
    mj_gather_values(s_pos, count, values_in, tile0, count, 0, values_out + tile0, tid);
#else
    (void)values_in;
    (void)values_out;
#endif
}

#endif
