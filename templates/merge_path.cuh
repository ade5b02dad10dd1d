/* Merge path search: how many of the first `diag` outputs of a stable merge of sorted a and b
 * come from a. Ties go to a, so the merge is stable when a precedes b in the input. I is the
 * index type: int inside a tile's shared memory, long long over global arrays. */
#ifndef MJ_MERGE_PATH_CUH
#define MJ_MERGE_PATH_CUH

#include "spec_default.cuh"

template <typename I>
MJ_DEVICE I mj_merge_path(const mj_key *a, I a_count, const mj_key *b, I b_count, I diag) {
    I lo = diag > b_count ? diag - b_count : 0;
    I hi = diag < a_count ? diag : a_count;
    while (lo < hi) {
        I mid = (lo + hi) >> 1;
        if (mj_less(b[diag - 1 - mid], a[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The same split found by a whole warp (all 32 lanes, same arguments): each round the lanes
 * test 32 evenly spaced candidates of the remaining range at once and keep the gap where the
 * answer changes, shrinking it about 32-fold. A search over millions of global keys then
 * costs a handful of dependent loads instead of twenty-odd, which is what bounds the
 * partition kernel. */
MJ_DEVICE mj_i64 mj_merge_path_warp(const mj_key *a, mj_i64 a_count, const mj_key *b,
                                    mj_i64 b_count, mj_i64 diag, int lane) {
    mj_i64 lo = diag > b_count ? diag - b_count : 0;
    mj_i64 hi = diag < a_count ? diag : a_count;
    while (lo < hi) {
        mj_i64 len = hi - lo;
        mj_i64 mid = lo + len * lane / 32;
        bool before = !mj_less(b[diag - 1 - mid], a[mid]); /* true exactly when mid < split */
        int k = __popc(__ballot_sync(0xffffffffu, before));
        mj_i64 new_lo = k == 0 ? lo : lo + len * (k - 1) / 32 + 1;
        hi = k == 32 ? hi : lo + len * k / 32;
        lo = new_lo;
    }
    return lo;
}

#endif
