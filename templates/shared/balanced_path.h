/* Multiset operations' path arithmetic (kernel_setops.cuh), in the common subset of C and CUDA
 * C++ so that the kernels and the CPU model in test_setops_model run the very same arithmetic.
 *
 * The four operations walk a and b the way std::set_union and its siblings do: a key-rank slot
 * at a time, where a slot is a matched pair (the i-th copy of a key in a with the i-th copy in
 * b) or an element without a match. The balanced path is that walk drawn over the merge grid;
 * it is the merge path except inside runs of equivalent keys, where it takes a's and b's copies
 * in turn (a's first) instead of all of a's first. Tiles and threads split it at output
 * diagonals, so that a pair is never split, the diagonal is "starred" where it would fall
 * between a copy of a and its match: the part before it then takes the match too (one element
 * more than the diagonal says) and the part after it one less. */
#ifndef MJ_BALANCED_PATH_H
#define MJ_BALANCED_PATH_H

#include "shared/host_device.h"

/* Threads of a partition block: one partition entry each. */
#define MJ_SETOP_PARTITION_NT 128

/* The slots an operation emits: a's elements without a match, b's without one, and matched
 * pairs (emitted once, as a's element, as std does). */
#define MJ_KEEP_A 1
#define MJ_KEEP_B 2
#define MJ_KEEP_PAIR 4

/* The kinds of slot an mj_set_op (0 intersection, 1 union, 2 a - b, 3 symmetric difference)
 * keeps; 0 for an unknown one. */
MJ_HD int mj_set_op_keep(int op) {
    return op == 0   ? MJ_KEEP_PAIR
           : op == 1 ? MJ_KEEP_A | MJ_KEEP_B | MJ_KEEP_PAIR
           : op == 2 ? MJ_KEEP_A
           : op == 3 ? MJ_KEEP_A | MJ_KEEP_B
                     : 0;
}

/* Where the merge path crosses diagonal d at (ai, bi) with b[bi] = x, a[a_start, ai) and
 * b[b_start, bi) are the a_run and b_run copies of x before the diagonal (the merge path takes
 * all of a's copies before any of b's). The balanced path takes the same a_run + b_run
 * elements, but a's and b's copies in turn: b gets half of them (rounded down), or more where
 * a has too few copies to take the rest. mj_bp_b_want is that share of b, assuming b has the
 * copies; the caller counts how many copies b has from b_start (b_have), looking at most
 * b_want + 1 far (one more tells whether the match of a's last copy exists). */
MJ_HD long long mj_bp_b_want(long long a_run, long long b_run) {
    long long half = (a_run + b_run) / 2;
    return half > b_run ? half : b_run;
}

/* The balanced path's crossing of the diagonal: a_take of a's copies (and the rest of the
 * a_run + b_run of b's) from (a_start, b_start); star when a took one copy more than b and
 * b holds that copy's match, which then goes with the part before the diagonal. */
typedef struct mj_bp_point {
    long long a_take;
    int star;
} mj_bp_point;

MJ_HD mj_bp_point mj_bp_balance(long long a_run, long long b_run, long long b_have) {
    long long want = mj_bp_b_want(a_run, b_run);
    long long b_take = want < b_have ? want : b_have;
    mj_bp_point p;
    p.a_take = a_run + b_run - b_take;
    p.star = p.a_take == b_take + 1 && b_take < b_have;
    return p;
}

/* A partition entry: the a index of the path's crossing, twice, plus the star. */
MJ_HD long long mj_bp_entry(long long a_index, int star) { return 2 * a_index + star; }

/* A tile's share of a and b: a[a0, a1) and b[b0, b1). */
typedef struct mj_setop_range {
    long long a0, a1, b0, b1;
} mj_setop_range;

MJ_HD long long mj_bp_clamp(long long v, long long lo, long long hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

MJ_HD long long mj_setop_tile_count(long long n, long long nv) { return (n + nv - 1) / nv; }

/* Tile `tile` (diagonals [tile * nv, tile * nv + nv) of the a_count + b_count) from its
 * partition entries e0 and e1. Its share of b starts after the match a starred diagonal gives
 * the tile before, so a tile has nv - 1 to nv + 1 elements. Sorted input gives ordered
 * entries; the clamps only matter for unsorted input (the caller's contract broken), whose
 * tiles must still stay inside both arrays and nv + 1 elements. */
MJ_HD mj_setop_range mj_setop_tile_range(long long tile, long long nv, long long a_count,
                                         long long b_count, long long e0, long long e1) {
    long long n = a_count + b_count;
    long long d0 = tile * nv < n ? tile * nv : n;
    long long d1 = d0 + nv < n ? d0 + nv : n;
    mj_setop_range r;
    r.a0 = mj_bp_clamp(e0 >> 1, 0, a_count);
    r.b0 = mj_bp_clamp(d0 - r.a0 + (e0 & 1), 0, b_count);
    r.a1 = mj_bp_clamp(e1 >> 1, r.a0, a_count < r.a0 + nv + 1 ? a_count : r.a0 + nv + 1);
    long long b_most = r.b0 + nv + 1 - (r.a1 - r.a0);
    r.b1 = mj_bp_clamp(d1 - r.a1 + (e1 & 1), r.b0, b_count < b_most ? b_count : b_most);
    return r;
}

#endif
