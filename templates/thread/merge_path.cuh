/* Merge path search: how many of the first `diag` outputs of a stable merge of sorted a and b
 * come from a. Ties go to a, so the merge is stable when a precedes b in the input. I is the
 * index type: int inside a tile's shared memory, long long over global arrays. */
#ifndef MJ_MERGE_PATH_CUH
#define MJ_MERGE_PATH_CUH

#include "common/spec_default.cuh"

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

/* The same for a segmented merge (see mj_seg in serial_merge.cuh): a[0, a_lock) comes first
 * and b[b_lock, b_count) last, both as they are; only a[a_lock, a_count) and b[0, b_lock) are
 * merged by key. Diagonals outside that middle part need no search at all. */
template <typename I>
MJ_DEVICE I mj_seg_merge_path(const mj_key *a, I a_count, const mj_key *b, I diag, I a_lock,
                              I b_lock) {
    if (diag <= a_lock) return diag;
    if (diag >= a_count + b_lock) return a_count;
    return a_lock + mj_merge_path(a + a_lock, a_count - a_lock, b, b_lock, diag - a_lock);
}

/* mj_merge_path by a group of g consecutive lanes of a warp (g a power of two up to 32), over
 * the range [lo, hi) of a's share that is left: each round the group tests g points of the
 * range at once, splitting it in g + 1 equal parts, and keeps the part between the last that
 * goes to a and the first that goes to b. So it takes log2(g + 1) times fewer rounds than a
 * thread alone (g = 1 is the binary search), at g times the loads a round. A and B are key
 * pointers or anything indexed and offset like one (the queued passes' mj_located_keys; sorted
 * search's mj_key_repeat, for an upper bound). Every lane of the warp must call it with the
 * same g (the rounds take warp-wide ballots); each lane returns its group's answer. */
template <typename A, typename B>
MJ_DEVICE mj_i64 mj_group_search(int g, A a, B b, mj_i64 diag, mj_i64 lo, mj_i64 hi) {
    int lane = threadIdx.x & 31, rank = lane & (g - 1);
    double part = 1.0 / (g + 1);
    unsigned group = (g == 32 ? 0xffffffffu : (1u << g) - 1) << (lane - rank);
    while (__any_sync(0xffffffffu, lo < hi)) {
        mj_i64 span = hi - lo;
        /* Probe j of the round, in double precision (exact enough below 2^53, and without the
         * 64-bit division whose latency would add to every round); probes past hi (short
         * ranges) count as going to b. */
#define MJ_PROBE(j) (span > g ? lo + (mj_i64)((double)span * (((j) + 1) * part)) : lo + (j))
        mj_i64 m = MJ_PROBE(rank);
        bool to_b = m < hi ? mj_less(b[diag - 1 - m], a[m]) : true;
        unsigned hits = __ballot_sync(0xffffffffu, to_b) & group;
        int first = hits ? __ffs(hits) - 1 - (lane - rank) : g;
        if (lo < hi) {
            mj_i64 next_lo = first > 0 ? MJ_PROBE(first - 1) + 1 : lo;
            hi = first < g ? MJ_PROBE(first) : hi;
            lo = next_lo;
        }
#undef MJ_PROBE
    }
    return lo;
}

/* mj_merge_path and mj_seg_merge_path by a group of g lanes (see mj_group_search). */
template <typename Keys>
MJ_DEVICE mj_i64 mj_group_merge_path(int g, Keys a, mj_i64 a_count, Keys b, mj_i64 b_count,
                                     mj_i64 diag) {
    return mj_group_search(g, a, b, diag, diag > b_count ? diag - b_count : 0,
                           diag < a_count ? diag : a_count);
}

template <typename Keys>
MJ_DEVICE mj_i64 mj_group_seg_merge_path(int g, Keys a, mj_i64 a_count, Keys b, mj_i64 diag,
                                         mj_i64 a_lock, mj_i64 b_lock) {
    /* Outside the merged middle the answer needs no search, but the lanes join the rounds. */
    bool middle = diag > a_lock && diag < a_count + b_lock;
    mj_i64 d = diag - a_lock, a_left = a_count - a_lock;
    mj_i64 lo = middle && d > b_lock ? d - b_lock : 0, hi = middle ? mj_min(d, a_left) : 0;
    mj_i64 p = mj_group_search(g, a + a_lock, b, d, lo, hi);
    return diag <= a_lock ? diag : diag >= a_count + b_lock ? a_count : a_lock + p;
}

#endif
