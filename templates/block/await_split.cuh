/* Waiting for a partition entry from a tile kernel launched to overlap the partition kernel:
 * the merge's and the sorted search's tiles (kernels/kernel_merge_partition.cuh), and those of
 * load-balancing search, interval expand and bulk insert (block/cta_load_balance.cuh). */
#ifndef MJ_AWAIT_SPLIT_CUH
#define MJ_AWAIT_SPLIT_CUH

#include "common/spec_default.cuh"

/* The partition kernel's side: marks the slot this thread will fill (mine) as not found yet,
 * -1, then lets the tile kernel start once every thread of the block has (every thread of the
 * block calls it), so that no tile reads an entry left from an earlier call. */
MJ_DEVICE void mj_open_split(volatile mj_i64 *slot, bool mine) {
    if (mine) *slot = -1;
    __threadfence();
    __syncthreads();
    mj_allow_next_kernel();
}

/* The tile kernel's side: a partition entry once its partition kernel has found it. */
MJ_DEVICE mj_i64 mj_await_split(const mj_i64 *slot) {
    mj_i64 p;
    while ((p = *(const volatile mj_i64 *)slot) < 0) __nanosleep(128);
    return p;
}

#endif
