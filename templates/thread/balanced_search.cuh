/* Balanced path search (see shared/balanced_path.h): where the walk of a multiset operation
 * crosses an output diagonal, from the merge path's crossing and the runs of equivalent keys
 * around it. A thread alone (mj_balanced_path, inside a tile's shared memory) finds the runs
 * by galloping from the crossing, so a search costs the merge path's plus a few steps for
 * short runs (the usual case), and only logarithmically more for long ones; a group of lanes
 * (mj_group_balance_split, the partition entries over global arrays) by group searches. I is
 * the index type. */
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

/* Keys for mj_group_search: an array's (p set), or a run of copies of x (p NULL), so that
 * the merge path search also finds where x's run starts or ends in an array (below). */
struct mj_key_source {
    const mj_key *p;
    mj_key x;
    MJ_DEVICE mj_key operator[](mj_i64 i) const { return p ? p[i] : x; }
    MJ_DEVICE mj_key_source operator+(mj_i64 i) const { return {p ? p + i : p, x}; }
};

/* mj_balance_split over global arrays by a group of g lanes (mj_group_search's rules: every
 * lane of the warp calls it with the same g; a group's lanes pass the same arguments, and get
 * the same answer). The runs of x are found by group searches instead of galloping: a
 * merge of a run of `end` copies of x (ties first) with keys[0, end) takes end - L copies
 * among its first end outputs, L being the keys ordered before x (where x's run starts); a
 * merge of keys[0, n) (ties first) with copies of x takes from keys those not ordered after x
 * (where it ends); a search over [lo, hi) of the merge's range gives the first split there,
 * or hi. So every lane goes through the same rounds of warp-wide ballots, and no lane loops
 * alone (a lane's own loops there made ptxas, sm_90, give the fused tile kernel
 * fewer registers, and spill). */
MJ_DEVICE mj_i64 mj_group_balance_split(int g, const mj_key *a, const mj_key *b, mj_i64 b_count,
                                        mj_i64 d, mj_i64 ai, int *star) {
    mj_i64 bi = d - ai;
    *star = 0;
    bool inside = bi < b_count;
    mj_key x = inside ? b[bi] : mj_key();
    /* A copy of x just before the crossing: the paths may part (else they cross together). */
    bool run = inside &&
               !((ai == 0 || mj_less(a[ai - 1], x)) && (bi == 0 || mj_less(b[bi - 1], x)));
    mj_key_source as = {a, x}, bs = {b, x}, xs = {nullptr, x};
    mj_i64 a_start = ai, b_start = bi, b_have = 0, m = 0;
    /* Three searches in turn, through one copy of the search's code: where x's run starts in
     * a before ai (k / 2 = 0), in b before bi (1), and where it ends in b from bi, looking no
     * further than one past b's share (2). Each looks at the MJ_RUN_WINDOW elements next to
     * the crossing first (k even: one round for 16 lanes), and only where the run covers them
     * at the rest (k odd): short runs, the usual case, cost a round each. */
#pragma unroll 1
    for (int k = 0; k < 6; ++k) {
        int side = k / 2;
        mj_i64 want = (mj_i64)mj_bp_b_want(ai - a_start, bi - b_start);
        mj_i64 limit = b_count - b_start > want + 1 ? b_start + want + 1 : b_count;
        mj_i64 n = !run ? 0 : side == 0 ? ai : side == 1 ? bi : limit - bi;
        mj_i64 window = n < MJ_RUN_WINDOW ? n : MJ_RUN_WINDOW;
        mj_i64 lo = k & 1 ? m : 0, hi = k & 1 ? (m == window ? n : m) : window;
        m = mj_group_search(g, side == 2 ? bs + bi : xs, side == 0 ? as : side == 1 ? bs : xs,
                            n, lo, hi);
        if (!(k & 1)) continue;
        if (side == 0) a_start = ai - m;
        else if (side == 1) b_start = bi - m;
        else b_have = bi + m - b_start;
    }
    mj_i64 a_run = ai - a_start, b_run = bi - b_start;
    if (!run) return ai;
    mj_bp_point p = mj_bp_balance(a_run, b_run, b_have);
    *star = p.star;
    return a_start + (mj_i64)p.a_take;
}

/* mj_balance_split at the merge path's split. */
template <typename I>
MJ_DEVICE I mj_balanced_path(const mj_key *a, I a_count, const mj_key *b, I b_count, I d,
                             int *star) {
    return mj_balance_split(a, b, b_count, d, mj_merge_path(a, a_count, b, b_count, d), star);
}

#endif
