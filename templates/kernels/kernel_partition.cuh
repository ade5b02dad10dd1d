/* Coarse partitioning for one mergesort pass: for every tile of nv outputs, the merge path split
 * at the tile's first output diagonal within its frame (an offset into list A). A group of
 * `lanes` threads a tile (mj_search_lanes); the merge kernel reads its own entry and the next.
 * The tile size is an argument, not the spec's MJ_NV, so that one program serves every tile
 * shape of a key type and order (gen/kernel_program.c).
 * Launched overlapped or not (the host's MERGEJIT_PDL): it waits for the pass before it, whose
 * output it reads and whose partitions it overwrites, before it reads or writes anything. */
#ifndef MJ_KERNEL_PARTITION_CUH
#define MJ_KERNEL_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "thread/merge_path.cuh"

extern "C" __global__ void mj_partition(const mj_key *keys, mj_i64 n, mj_i64 nv, mj_i64 coop,
                                        mj_i64 tiles, mj_i64 *partitions, int lanes) {
    mj_await_prior_kernels();
    mj_allow_next_kernel();
    mj_i64 tile = ((mj_i64)blockIdx.x * blockDim.x + threadIdx.x) / lanes;
    mj_frame f = mj_sort_frame(tile, coop, nv, n);
    /* Groups past the end search an empty range: their lanes still take part in the ballots. */
    mj_i64 diag = tile < tiles ? mj_tile_split_diag(f, tile, coop, nv, 0) : 0;
    mj_i64 p = mj_group_merge_path(lanes, keys + f.a0, f.a_count, keys + f.b0, f.b_count, diag);
    if (tile < tiles && (threadIdx.x & (lanes - 1)) == 0) partitions[tile] = p;
}

#endif
