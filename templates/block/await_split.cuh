/* Waiting for a partition entry from a tile kernel launched to overlap the partition kernel:
 * the merge's and the sorted search's tiles (kernels/kernel_merge_partition.cuh), and those of
 * load-balancing search, interval expand and bulk insert (block/cta_load_balance.cuh). */
#ifndef MJ_AWAIT_SPLIT_CUH
#define MJ_AWAIT_SPLIT_CUH

#include "common/spec_default.cuh"

/* A partition entry once its partition kernel has found it (-1 before). */
MJ_DEVICE mj_i64 mj_await_split(const mj_i64 *slot) {
    mj_i64 p;
    while ((p = *(const volatile mj_i64 *)slot) < 0) __nanosleep(128);
    return p;
}

#endif
