/* Bulk remove's tile arithmetic: tile t holds the source elements [t * nv, t * nv + nv), and
 * the partition entry p[t] is how many removal indices lie below t * nv, so the tile's kept
 * elements go from t * nv - p[t] on. Written in the common subset of C and CUDA C++ so that
 * the kernels and the CPU model in test_bulk_model run the very same arithmetic. */
#ifndef MJ_BULK_REMOVE_H
#define MJ_BULK_REMOVE_H

#include "shared/host_device.h"

/* Threads of a partition block: one partition entry each. */
#define MJ_REMOVE_PARTITION_NT 128

/* Tile t's source elements [base, base + len), its removal indices [first, first + count)
 * (at most len of them are read), and where its first kept element goes. */
typedef struct mj_remove_range {
    long long base, len, first, count, out_base;
} mj_remove_range;

MJ_HD long long mj_remove_tile_count(long long n, long long nv) { return (n + nv - 1) / nv; }

/* The boundary partition entry t searches for: the first index at or past it. */
MJ_HD long long mj_remove_boundary(long long t, long long nv, long long n) {
    return t * nv < n ? t * nv : n;
}

/* Tile `tile` from its partition entries p0 and p1. Indices that keep the contract (ascending,
 * distinct, below n) give p0 <= p1 <= p0 + len; others (duplicates, unsorted, out of range) can
 * give any p in [0, num_indices], so count is clamped to [0, len]; the kernel also drops
 * indices outside the tile and stores only inside the output (block/cta_move_kept.cuh). */
MJ_HD mj_remove_range mj_remove_tile_range(long long tile, long long nv, long long n,
                                           long long p0, long long p1) {
    mj_remove_range r;
    r.base = tile * nv;
    r.len = n - r.base < nv ? n - r.base : nv;
    r.first = p0;
    r.count = p1 - p0 < 0 ? 0 : p1 - p0 > r.len ? r.len : p1 - p0;
    r.out_base = r.base - p0;
    return r;
}

#endif
