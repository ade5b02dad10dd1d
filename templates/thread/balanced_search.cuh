/* Balanced path search (see shared/balanced_path.h): where the walk of a multiset operation
 * crosses an output diagonal, from the merge path's crossing and the runs of equivalent keys
 * around it. The runs are found by galloping from the crossing, so a search costs the merge
 * path's plus a few steps for short runs (the usual case), and only logarithmically more for
 * long ones. I is the index type: int inside a tile's shared memory, mj_i64 over global
 * arrays. */
#ifndef MJ_BALANCED_SEARCH_CUH
#define MJ_BALANCED_SEARCH_CUH

#include "common/spec_default.cuh"
#include "shared/balanced_path.h"
#include "thread/merge_path.cuh"

/* The first i in [0, end) from which keys[i, end) are all not ordered before x, for keys
 * sorted and keys[end - 1] not ordered after x: the start of x's run that ends at end. Probes
 * end - 1, end - 2, end - 4, ... then bisects the last gap. */
template <typename I>
MJ_DEVICE I mj_run_begin(const mj_key *keys, I end, const mj_key &x) {
    I lo = 0, hi = end;
    for (I step = 1; hi > 0; step <<= 1) {
        I probe = hi > step ? hi - step : 0;
        if (mj_less(keys[probe], x)) {
            lo = probe + 1;
            break;
        }
        hi = probe;
    }
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if (mj_less(keys[mid], x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first i in [begin, limit) whose key is ordered after x (limit when none), for keys
 * sorted and keys[begin, ...) not ordered before x: the end of x's run, looked for no further
 * than limit. Probes begin, begin + 1, begin + 3, ... then bisects the last gap. */
template <typename I>
MJ_DEVICE I mj_run_end(const mj_key *keys, I begin, I limit, const mj_key &x) {
    I lo = begin, hi = limit;
    for (I step = 1; lo < limit; step <<= 1) {
        I probe = limit - lo > step ? lo + step - 1 : limit - 1;
        if (mj_less(x, keys[probe])) {
            hi = probe;
            break;
        }
        lo = probe + 1;
    }
    while (lo < hi) {
        I mid = lo + ((hi - lo) >> 1);
        if (mj_less(x, keys[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

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
