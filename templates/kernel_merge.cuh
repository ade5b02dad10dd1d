/* One mergesort pass: each block merges its part of a frame's two lists, found from the
 * partitions, into one tile of output. The tile's inputs are staged in shared memory; each
 * thread finds its own split there and merges MJ_VT outputs; each warp passes its outputs
 * through its own part of shared memory so that global stores are coalesced. Never in place:
 * keys_out != keys_in. */
#ifndef MJ_KERNEL_MERGE_CUH
#define MJ_KERNEL_MERGE_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "merge_path.cuh"
#include "serial_merge.cuh"
#include "tile_io.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_merge(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
         mj_value *values_out, const mj_i64 *partitions, mj_i64 n, mj_i64 coop) {
    __shared__ mj_key s_keys[MJ_NV];
#if MJ_HAS_VALUES
    __shared__ int s_pos[MJ_NV];
#endif
    int tid = threadIdx.x;
    mj_i64 tile = blockIdx.x;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    mj_i64 p_end = mj_tile_ends_frame(tile, coop, gridDim.x) ? f.a_count : partitions[tile + 1];
    mj_range r = mj_sort_range(f, tile, coop, MJ_NV, partitions[tile], p_end);
    int a_len = (int)(r.a_end - r.a_begin);
    int total = a_len + (int)(r.b_end - r.b_begin);

    mj_load_to_shared<MJ_NT>(keys_in + r.a_begin, a_len, keys_in + r.b_begin, total, s_keys, tid);
    __syncthreads();
    int diag = min(MJ_VT * tid, total);
    int p = mj_merge_path(s_keys, a_len, s_keys + a_len, total - a_len, diag);
    mj_key keys[MJ_VT];
    int at[MJ_VT];
    mj_serial_merge(s_keys, p, a_len, a_len + diag - p, total, keys, at);
    __syncthreads(); /* the tile in s_keys is read; from here on each warp uses its own slots */

    mj_i64 out0 = tile * MJ_NV;
    mj_store_by_warps<MJ_NT>(keys, s_keys, total, keys_out + out0, tid);
#if MJ_HAS_VALUES
    mj_regs_to_shared(at, s_pos, tid);
    __syncwarp();
    mj_gather_values(s_pos, total, values_in, r.a_begin, a_len, r.b_begin, values_out + out0,
                     tid);
#else
    (void)values_in;
    (void)values_out;
#endif
}

#endif
