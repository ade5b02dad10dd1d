/* Merge path search: how many of the first `diag` outputs of a stable merge of sorted a and b
 * come from a. Ties go to a, so the merge is stable when a precedes b in the input. I is the
 * index type: int inside a tile's shared memory, long long over global arrays. Keys is a key
 * pointer, or anything indexed and offset like one (the queued passes' mj_located_keys). */
#ifndef MJ_MERGE_PATH_CUH
#define MJ_MERGE_PATH_CUH

#include "spec_default.cuh"

template <typename I, typename Keys>
MJ_DEVICE I mj_merge_path(Keys a, I a_count, Keys b, I b_count, I diag) {
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
template <typename I, typename Keys>
MJ_DEVICE I mj_seg_merge_path(Keys a, I a_count, Keys b, I diag, I a_lock, I b_lock) {
    if (diag <= a_lock) return diag;
    if (diag >= a_count + b_lock) return a_count;
    return a_lock + mj_merge_path(a + a_lock, a_count - a_lock, b, b_lock, diag - a_lock);
}

#endif
