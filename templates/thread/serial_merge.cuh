/* One thread merges MJ_VT outputs from two sorted runs in shared memory, s[a..a_end) and
 * s[b..b_end), taking from a on ties. pos[] receives each output's position in s, which the
 * caller maps to its source (for values); when unused the compiler drops it.
 * Outputs past the end of both runs are garbage with positions past the runs; callers ignore
 * them. A run head past its end is read from s[spare] instead (0 by default), so no read
 * leaves the array; a caller whose other threads may write s[0] meanwhile (the blocksort's
 * rounds within a warp) names a slot of its own. (Read, not skipped: the loads of a thread's
 * merge under a branch made the u32 blocksort 9% slower on an H100.) PADDED callers instead
 * lay the runs out back to back (a_end is where b's run starts), hold real keys in the
 * MJ_VT - 1 slots after b_end and keep s unwritten while they merge (block barriers around
 * it): a head is then read where it is, past its run or not, which saves the clamp's compare
 * and select on every step (mj_cta_merge4). A_FREE callers, whose b run follows a's and is
 * not empty (the blocksort's rounds), read a's head where it is: a never moves past a_end (a
 * step takes a only while a < a_end), so the read is at most s[a_end], b's first key, in the
 * same pair of runs; b's head stays clamped.
 *
 * Segmented merges (MJ_SEGMENTED) lock parts of the runs in place: a positions below
 * seg.a_lock belong to earlier segments than every b, and b positions from seg.b_lock on to
 * later segments than every a, so only the one segment that spans the two runs is merged by
 * key. Unsegmented kernels ignore seg and compile to the plain merge.
 *
 * Paired merges (PAIRED, the 4-way merge's first round: mj_cta_merge4) split each run in two at
 * seg.a_lock and seg.b_lock: a = [a0 | a1], b = [b0 | b1]. a0 and b0 merge by key, then a1 and
 * b1 after them, so that one merge of two runs makes two merges side by side. */
#ifndef MJ_SERIAL_MERGE_CUH
#define MJ_SERIAL_MERGE_CUH

#include "common/spec_default.cuh"

#ifndef MJ_SEGMENTED
#define MJ_SEGMENTED 0
#endif

typedef struct mj_seg {
    int a_lock, b_lock; /* in the coordinates of the positions compared */
} mj_seg;

/* True when b's key must come before a's: the merge's only comparison. */
MJ_DEVICE bool mj_b_first(const mj_key &kb, int b, const mj_key &ka, int a, mj_seg seg) {
#if MJ_SEGMENTED
    return a >= seg.a_lock && b < seg.b_lock && mj_less(kb, ka);
#else
    (void)a;
    (void)b;
    (void)seg;
    return mj_less(kb, ka);
#endif
}

/* The paired merges' comparison: the second halves go after both first halves. Predicates
 * are combined with & and |, here and in the step below, not with ?: or short circuits, after
 * which NVVM branched around every step of the paired merge: 26 SASS instructions a step for
 * u32 keys against 18, and the 4-way merge took 72 us a pass at 2^24 against 78 (H100, ncu). */
MJ_DEVICE bool mj_b_first_paired(const mj_key &kb, int b, const mj_key &ka, int a, mj_seg seg) {
    bool a_late = a >= seg.a_lock, b_late = b >= seg.b_lock;
    return (a_late & !b_late) | ((a_late == b_late) & mj_less(kb, ka));
}

/* The slot a run head at position at (the run ends at end) is read from. */
template <bool PADDED>
MJ_DEVICE int mj_head_slot(int at, int end, int spare) {
    return PADDED || at < end ? at : spare;
}

template <bool PAIRED = false, bool PADDED = false, bool A_FREE = false>
MJ_DEVICE void mj_serial_merge(const mj_key *s, int a, int a_end, int b, int b_end, mj_seg seg,
                               mj_key keys[MJ_VT], int pos[MJ_VT], int spare = 0) {
    mj_key ka = s[mj_head_slot<PADDED || A_FREE>(a, a_end, spare)];
    mj_key kb = s[mj_head_slot<PADDED>(b, b_end, spare)];
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        bool b_first =
            PAIRED ? mj_b_first_paired(kb, b, ka, a, seg) : mj_b_first(kb, b, ka, a, seg);
        /* Past both runs' ends (garbage outputs) A_FREE takes b, whose head is clamped. */
        bool take_a = A_FREE ? (a < a_end) & ((b >= b_end) | !b_first)
                             : (b >= b_end) | ((a < a_end) & !b_first);
        keys[i] = take_a ? ka : kb;
        pos[i] = take_a ? a : b;
        /* Padded reads stop before the last step's head: within VT - 1 slots past a run. (An
         * early break here kept NVRTC from unrolling the loop, its registers in local memory;
         * clamped reads keep the dead last load: without it a 16-byte struct's merges took
         * 62 -> 80 registers.) */
        if (!PADDED || i + 1 < MJ_VT) {
            if (take_a) {
                ++a;
                ka = s[mj_head_slot<PADDED || A_FREE>(a, a_end, spare)];
            } else {
                ++b;
                kb = s[mj_head_slot<PADDED>(b, b_end, spare)];
            }
        }
    }
}

#endif
