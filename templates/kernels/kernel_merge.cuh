/* One mergesort pass: each block merges its part of a frame's two lists into one tile of output
 * (mj_cta_merge). Never in place: keys_out != keys_in. map_out: the sort's last pass stores its
 * keys back as bits (MJ_KEY_MAP, mj_cta_merge).
 * The tile's part comes from the merge path splits at its first and one-past-last output
 * diagonals: read from `partitions` (mj_partition's, the kernel before), or, with `fused`
 * set, found by the block itself, a warp a split, so that the pass is one launch. Fused, a
 * block does two searches where mj_partition's groups do one; 32 lanes a search take the
 * fewest rounds of dependent loads (mj_group_search), which bound a short sort.
 * Launched overlapped or not (the host's MERGEJIT_PDL): it waits for the kernel before it
 * before it reads anything, and lets the next one be scheduled at once, since that one waits
 * for this one's end in turn (its blocks only take the room this one's blocks leave, all of
 * which have started by then). reverse: the blocks take the tiles from the last (the host's
 * serpentine order: this pass starts on what the one before wrote last, still in L2). */
#ifndef MJ_KERNEL_MERGE_CUH
#define MJ_KERNEL_MERGE_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "thread/merge_path.cuh"
#include "block/cta_merge.cuh"

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_merge(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
         mj_value *values_out, const mj_i64 *partitions, mj_i64 n, mj_i64 coop,
         int map_out, int reverse, int fused) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    __shared__ mj_i64 s_split[2];
    mj_await_prior_kernels();
    mj_allow_next_kernel();
    mj_i64 tile = reverse ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    mj_i64 p_begin, p_end;
    if (fused) { /* alike in the whole block */
        /* Warp w finds split w; a block of one warp finds both in turn. */
        for (int w = threadIdx.x / 32; w < 2; w += MJ_NT / 32) {
            mj_i64 p = mj_group_merge_path(32, keys_in + f.a0, f.a_count, keys_in + f.b0,
                                           f.b_count, mj_tile_split_diag(f, tile, coop, MJ_NV, w));
            if ((threadIdx.x & 31) == 0) s_split[w] = p;
        }
        __syncthreads();
        p_begin = s_split[0];
        p_end = s_split[1];
    } else {
        p_begin = partitions[tile];
        p_end = mj_tile_ends_frame(tile, coop, gridDim.x) ? f.a_count : partitions[tile + 1];
    }
    mj_range r = mj_sort_range(f, tile, coop, MJ_NV, p_begin, p_end);
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
