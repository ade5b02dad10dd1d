/* Coarse partitioning for one 4-way mergesort pass: for every tile of nv outputs, the 4-way
 * split at the tile's first output diagonal within its frame (templates/shared/corank.h), four
 * offsets into the frame's lists. `lanes` threads a tile, of which the first searches
 * (mj_split4_lanes); mj_merge4 reads its tile's entry and the next. 2-way passes use
 * mj_partition (kernel_partition.cuh), whose merge path search is shorter. The tile size is an
 * argument, as mj_partition's, and the diagonal is computed once, before the search.
 * Launched overlapped or not (MERGEJIT_PDL), as mj_partition: it waits for the pass before it
 * first. */
#ifndef MJ_KERNEL_PARTITION4_CUH
#define MJ_KERNEL_PARTITION4_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/corank.h"

extern "C" __global__ void mj_partition4(const mj_key *keys, mj_i64 n, mj_i64 nv, mj_i64 coop,
                                         mj_i64 tiles, mj_i64 *partitions, int lanes) {
    mj_await_prior_kernels();
    mj_allow_next_kernel();
    mj_i64 thread = (mj_i64)blockIdx.x * blockDim.x + threadIdx.x;
    mj_i64 tile = thread / lanes;
    if (tile >= tiles || thread % lanes) return;
    mj_frame4 f = mj_sort_frame4(tile, coop, nv, n);
    mj_i64 split[4];
    mj_i64 d = mj_min(mj_tile_diag(tile, coop, nv), mj_frame4_total(f));
    const mj_key *list[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
        /* Opaque to the compiler, which would otherwise fold each load's address back into
         * keys + (begin + pos): 64-bit adds on the search's chain, not one multiply-add. Done
         * on a char pointer: NVVM's address-space test takes one (on a pointer to a custom
         * struct key NVRTC aborted with "Broken function found"). */
        const char *start = (const char *)(keys + f.begin[l]);
        asm("" : "+l"(start));
        __builtin_assume(__isGlobal(start));
        list[l] = (const mj_key *)start;
    }
    /* 32-bit positions where every frame is below 2^31 elements (corank.h); n is uniform. */
    if (n < ((mj_i64)1 << 31))
        mj_corank4<unsigned>(list, f.count, d, split);
    else
        mj_corank4<unsigned long long>(list, f.count, d, split);
#pragma unroll
    for (int l = 0; l < 4; ++l) partitions[4 * tile + l] = split[l];
}

#endif
