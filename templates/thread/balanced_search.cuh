/* Balanced path search (see shared/balanced_path.h): where the walk of a multiset operation
 * crosses an output diagonal, from the merge path's crossing and the runs of equivalent keys
 * around it. The runs are found by galloping from the crossing (thread/key_runs.cuh), so a
 * search costs the merge path's plus a few steps for short runs (the usual case), and only
 * logarithmically more for long ones. I is the index type: int inside a tile's shared
 * memory, mj_i64 over global arrays. */
#ifndef MJ_BALANCED_SEARCH_CUH
#define MJ_BALANCED_SEARCH_CUH

#include "common/spec_default.cuh"
#include "shared/balanced_path.h"
#include "thread/merge_path.cuh"
#include "thread/key_runs.cuh"

/* How many of a the balanced path takes before output diagonal d of sorted a and b, given
 * ai, how many the merge path takes there, and in *star whether the diagonal is starred (b
 * then gives one element more, d - result + 1, to the part before it). Whatever the input,
 * for ai in [d - b_count, d] the result is in [0, ai] and d - result + *star in [0, b_count]. */
template <typename I>
MJ_DEVICE I mj_balance_split(const mj_key *a, const mj_key *b, I b_count, I d, I ai,
                             int *star) {
    I bi = d - ai;
    *star = 0;
    if (bi >= b_count) return ai;
    mj_key x = b[bi];
    /* No copy of x just before the crossing (the usual case): the paths cross together. */
    if ((ai == 0 || mj_less(a[ai - 1], x)) && (bi == 0 || mj_less(b[bi - 1], x))) return ai;
    I a_start = mj_run_begin(a, ai, x), b_start = mj_run_begin(b, bi, x);
    I a_run = ai - a_start, b_run = bi - b_start;
    I want = (I)mj_bp_b_want(a_run, b_run);
    I limit = b_count - b_start > want + 1 ? b_start + want + 1 : b_count;
    I b_have = mj_run_end(b, bi, limit, x) - b_start;
    mj_bp_point p = mj_bp_balance(a_run, b_run, b_have);
    *star = p.star;
    return a_start + (I)p.a_take;
}

/* mj_balance_split at the merge path's split. */
template <typename I>
MJ_DEVICE I mj_balanced_path(const mj_key *a, I a_count, const mj_key *b, I b_count, I d,
                             int *star) {
    return mj_balance_split(a, b, b_count, d, mj_merge_path(a, a_count, b, b_count, d), star);
}

#endif
