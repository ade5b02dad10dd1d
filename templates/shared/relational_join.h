/* Relational join's arithmetic, in the common subset of C and CUDA C++ so that the kernels
 * (kernel_join.cuh) and the CPU model in test_join_model run the very same arithmetic.
 *
 * A join is a sorted search of a in b (each a row's lower bound in b, its count of equivalent
 * b rows, and which b rows have a match: 4-byte bounds and counts where both sides hold fewer
 * than 2^32 rows), then two device-wide exclusive scans into 64-bit sums: each a row's output
 * rows (its count, at least 1 for left and outer joins), whose scan is every a row's first
 * output row and whose total is the a-driven rows; and, for right and outer joins, each b
 * row's 1 when it has no match, whose scan places the unmatched b rows after the a-driven ones.
 * The first rows are stored in 4 bytes when the a-driven rows fit them (half the bytes the scan
 * writes and the rows' kernels read). A load-balancing search over the a-driven rows (the a
 * rows as its objects, their first rows as its offsets) then gives each output row its a row
 * and its rank there, and the b row is the lower bound plus the rank.
 *
 * The scans run in three kernels (reduce, then scan): blocks over runs of whole tiles sum their
 * counts, one block scans those sums, and the blocks go over their runs again, scanning each
 * tile from their run's start. A run is as many tiles as keep the blocks at most one tile's
 * worth, so that the middle block scans them in one tile. */
#ifndef MJ_RELATIONAL_JOIN_H
#define MJ_RELATIONAL_JOIN_H

#include "shared/host_device.h"

/* The kinds, as mj_join_kind: bit 0 keeps a's unmatched rows, bit 1 b's. */
#define MJ_JOIN_KEEP_A 1
#define MJ_JOIN_KEEP_B 2

/* Where a scan's counts come from (the host passes it by value, so its layout is the same in
 * C and CUDA): each a row's count of b rows (at least 1 with at_least_one; 4 bytes each where
 * narrow, as the search writes them when both sides hold fewer than 2^32 rows, else 8), or,
 * when counts is null, a b row's 1 when its match byte is 0. */
typedef struct mj_join_counts {
    const void *counts;
    const unsigned char *matches;
    int at_least_one;
    int narrow;
} mj_join_counts;

/* The blocks of a scan over `tiles` tiles of nv elements: `per_block` whole tiles each, at
 * most nv blocks (one block, for no tiles). */
typedef struct mj_join_runs {
    long long per_block, blocks;
} mj_join_runs;

MJ_HD mj_join_runs mj_join_runs_for(long long tiles, long long nv) {
    mj_join_runs r;
    r.per_block = tiles > nv ? (tiles + nv - 1) / nv : 1;
    r.blocks = tiles ? (tiles + r.per_block - 1) / r.per_block : 1;
    return r;
}

/* The elements [first, end) of block b's run, of n elements in tiles of nv. */
MJ_HD long long mj_join_run_first(long long b, mj_join_runs r, long long nv, long long n) {
    long long f = b * r.per_block * nv;
    return f < n ? f : n;
}

/* The a-driven rows a run writes: all of them, up to the room the caller gave. */
MJ_HD long long mj_join_rows(unsigned long long a_total, unsigned long long capacity) {
    unsigned long long m = a_total < capacity ? a_total : capacity;
    return (long long)m;
}

/* Every a row's first output row fits 4 bytes, as the scan then writes them and the rows'
 * kernels read them, when the a-driven rows do (the largest is at most their total). */
MJ_HD int mj_join_first_rows_narrow(unsigned long long a_total) {
    return a_total <= 0xFFFFFFFFull;
}

/* Output row k's b row, from its a row's lower bound in b, whether that a row has a match, and
 * k's rank among its a row's output rows; all ones (NULL) for a row without one. */
MJ_HD unsigned long long mj_join_b_row(unsigned long long lower, int matched, long long rank) {
    return matched ? lower + (unsigned long long)rank : ~0ull;
}

#endif
