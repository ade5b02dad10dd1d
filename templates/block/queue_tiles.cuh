/* Where a queued merge pass's tiles lie (segmented and locality sort; see work_queue.h): each
 * tile in the result buffer or in scratch, as `where` says, read through these by both the
 * queue's partition and its work kernel. */
#ifndef MJ_QUEUE_TILES_CUH
#define MJ_QUEUE_TILES_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/work_queue.h"

/* Of the arrays p0 over the result buffer and p1 over scratch, the one holding tile t. */
template <typename T>
MJ_DEVICE T *mj_buffer(const mj_u8 *where, mj_i64 t, T *p0, T *p1) {
    return where[t] & MJ_IN_SCRATCH ? p1 : p0;
}

/* The keys of a queued pass's input, element i at base + i, each read from the buffer that
 * holds its tile: k0 (the result) or k1 (scratch). */
struct mj_located_keys {
    const mj_key *k0, *k1;
    const mj_u8 *where;
    mj_i64 base;

    MJ_DEVICE mj_key operator[](mj_i64 i) const {
        mj_i64 g = base + i;
        return mj_buffer(where, g / MJ_NV, k0, k1)[g];
    }
    MJ_DEVICE mj_located_keys operator+(mj_i64 d) const {
        mj_located_keys r = {k0, k1, where, base + d};
        return r;
    }
};

/* The head ranges of the frame's two lists (none for a missing B list). */
MJ_DEVICE void mj_list_heads(const mj_heads_range *lists, mj_frame f, mj_i64 frame,
                             mj_heads_range *a, mj_heads_range *b) {
    mj_heads_range none = {MJ_NO_FIRST, -1};
    *a = lists[2 * frame];
    *b = f.b_count > 0 ? lists[2 * frame + 1] : none;
}

#endif
