/* One 4-way mergesort pass: each block merges its parts of a frame's four lists, found from the
 * partitions (mj_partition4 or mj_partition4_one), into one tile of output (mj_cta_merge4).
 * Never in place: keys_out != keys_in. map_out: the sort's last pass stores its keys back as
 * bits (MJ_KEY_MAP). 2-way passes use mj_merge (kernel_merge.cuh). Launched overlapped or not
 * (MERGEJIT_PDL), as mj_merge: it waits for the kernel before it ahead of its first load;
 * reverse as for mj_merge.
 * MJ_MERGE4_MIN_BLOCKS: the generator's register cap for small elements (gen.c
 * merge4_min_blocks). */
#ifndef MJ_KERNEL_MERGE4_CUH
#define MJ_KERNEL_MERGE4_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "block/cta_merge.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT, MJ_MERGE4_MIN_BLOCKS)
mj_merge4(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
          mj_value *values_out, const mj_i64 *partitions, mj_i64 n, mj_i64 coop, int map_out,
          int reverse) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    mj_allow_next_kernel();
    mj_i64 tile = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    mj_frame4 f = mj_sort_frame4(tile, coop, MJ_NV, n);
    bool ends = mj_tile_ends_frame(tile, coop, gridDim.x);
    /* The frame above needs no memory: under an overlapped launch it is worked out while the
     * partition ends. */
    mj_await_prior_kernels();
    /* The splits at the tile's ends, copied so that f stays in registers. */
    mj_i64 p_begin[4], p_end[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        p_begin[l] = partitions[4 * tile + l];
        p_end[l] = ends ? f.count[l] : partitions[4 * (tile + 1) + l];
    }
    mj_range4 r = mj_sort_range4(f, tile, MJ_NV, n, p_begin, p_end);
    mj_merge_src src = mj_four_runs(keys_in, values_in, r.begin, r.end);
    int total = src.b_split + (int)(r.end[3] - r.begin[3]); /* the tile's outputs */
    mj_i64 out0 = tile * MJ_NV;
    mj_cta_merge4(src, total, map_out != 0, keys_out + out0, values_out + out0, s_keys, s_pos,
                  threadIdx.x);
}

#endif
