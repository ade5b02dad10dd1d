/* One mergesort pass: each block merges its part of a frame's two lists, found from the
 * partitions, into one tile of output (mj_cta_merge). Never in place: keys_out != keys_in.
 * map_out: the sort's last pass stores its keys back as bits (MJ_KEY_MAP, mj_cta_merge). */
#ifndef MJ_KERNEL_MERGE_CUH
#define MJ_KERNEL_MERGE_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "block/cta_merge.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_merge(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
         mj_value *values_out, const mj_i64 *partitions, mj_i64 n, mj_i64 coop,
         int map_out) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    mj_i64 tile = blockIdx.x;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    mj_i64 p_end = mj_tile_ends_frame(tile, coop, gridDim.x) ? f.a_count : partitions[tile + 1];
    mj_range r = mj_sort_range(f, tile, coop, MJ_NV, partitions[tile], p_end);
    int a_len = (int)(r.a_end - r.a_begin);
    int total = a_len + (int)(r.b_end - r.b_begin);
    mj_i64 out0 = tile * MJ_NV;
    mj_seg unsegmented = {0, total};
    mj_merge_src src = mj_two_runs(keys_in, values_in, r.a_begin, a_len, keys_in, values_in,
                                   r.b_begin, total);
    mj_cta_merge(src, total, unsegmented, map_out != 0, keys_out + out0, values_out + out0,
                 s_keys, s_pos, threadIdx.x);
}

#endif
