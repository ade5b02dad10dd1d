/* Sorts one tile of up to NT * MJ_VT keys held in registers in thread order (thread tid holds
 * elements tid * MJ_VT + i). Each thread sorts its own keys with the network, then log2(NT)
 * rounds merge pairs of sorted runs through shared memory, doubling the run length each round.
 * On return the registers hold the sorted tile in thread order, and pos[] (when values are
 * carried) each output's original position in the tile.
 *
 * A partial tile (count < MJ_NV) is handled by counts, not sentinels: a comparator has no
 * "largest key" in general. The one thread that straddles `count` fills its empty slots with
 * copies of its largest valid key; they sort after the valid keys (stability keeps equal keys
 * behind), and every merge round clips its runs at `count`, so the copies are never read.
 *
 * Segmented sorts (MJ_SEGMENTED) pass each thread's head flags (bit i: key i starts a
 * segment). Every run keeps the range of heads it contains, packed as first | (last + 1) << 16
 * in tile positions (first NT * MJ_VT and last -1 when there are none); a round merges only the
 * segment that spans its two runs (see mj_seg), and the ranges combine like the runs. A round
 * skips the pairs of runs whose merge would leave them as they are. */
#ifndef MJ_CTA_BLOCKSORT_CUH
#define MJ_CTA_BLOCKSORT_CUH

#include "common/spec_default.cuh"
#include "thread/sort_network.cuh"
#include "thread/merge_path.cuh"
#include "thread/serial_merge.cuh"
#include "block/tile_io.cuh"

MJ_DEVICE unsigned mj_pack_heads(int first, int last) {
    return (unsigned)first | (unsigned)(last + 1) << 16;
}
MJ_DEVICE int mj_heads_first(unsigned r) { return (int)(r & 0xffff); }
MJ_DEVICE int mj_heads_last(unsigned r) { return (int)(r >> 16) - 1; }
MJ_DEVICE unsigned mj_heads_union(unsigned x, unsigned y) {
    return min(x & 0xffff, y & 0xffff) | max(x >> 16, y >> 16) << 16;
}

/* The barrier of a round whose runs span `coop` threads. Up to a warp's width, a round reads
 * only slots its own warp wrote (the tile's slots are in thread order), so the warp's barrier
 * is enough and each warp goes on through the first rounds at its own pace. Segmented rounds
 * also share s_heads across warps: block barriers throughout. */
MJ_DEVICE void mj_round_sync(int coop) {
    if (!MJ_SEGMENTED && coop <= 32)
        __syncwarp();
    else
        __syncthreads();
}

/* s_keys and s_pos have NT * MJ_VT slots, s_heads NT (segmented sorts only). Returns the packed
 * head range of the whole tile to thread 0 (segmented sorts; 0 otherwise). */
template <int NT>
MJ_DEVICE unsigned mj_cta_sort(mj_key keys[MJ_VT], int pos[MJ_VT], int count, unsigned heads,
                               mj_key *s_keys, int *s_pos, unsigned *s_heads, int tid) {
    int mine = count - MJ_VT * tid;
    if (mine > 0 && mine < MJ_VT) {
        mj_key top = keys[0];
#pragma unroll
        for (int i = 1; i < MJ_VT; ++i)
            if (i < mine && mj_less(top, keys[i])) top = keys[i];
#pragma unroll
        for (int i = 1; i < MJ_VT; ++i)
            if (i >= mine) keys[i] = top;
    }
    unsigned range = 0;
#if MJ_SEGMENTED
    /* The thread's own head range (valid keys only), then its filler slots become heads so
     * that the network leaves them where they are. */
    unsigned valid = mine >= MJ_VT ? ~0u : mine > 0 ? (1u << mine) - 1 : 0u;
    unsigned real = heads & valid;
    heads = real | ~valid;
    range = real ? mj_pack_heads(MJ_VT * tid + __ffs(real) - 1, MJ_VT * tid + 31 - __clz(real))
                 : mj_pack_heads(NT * MJ_VT, -1);
    s_heads[tid] = range;
#else
    (void)s_heads;
#endif
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) pos[i] = MJ_VT * tid + i;
    mj_sort_network(keys, pos, heads);

#pragma unroll 1
    for (int coop = 2; coop <= NT; coop *= 2) {
        mj_regs_to_shared(keys, s_keys, tid);
#if MJ_HAS_VALUES
        mj_regs_to_shared(pos, s_pos, tid);
#endif
        mj_round_sync(coop);
        int first = tid & ~(coop - 1);
        int start = MJ_VT * first;
        int a_begin = min(count, start);
        int a_end = min(count, start + MJ_VT * (coop >> 1));
        int b_end = min(count, start + MJ_VT * coop);
        int a_len = a_end - a_begin;
        int b_len = b_end - a_end;
        int diag = min(MJ_VT * (tid - first), a_len + b_len);
#if MJ_SEGMENTED
        unsigned ra = s_heads[2 * (tid / coop)], rb = s_heads[2 * (tid / coop) + 1];
        int a_lock = mj_heads_last(ra) >= a_begin ? mj_heads_last(ra) : a_begin;
        int b_lock = min(mj_heads_first(rb), b_end);
#else
        int b_lock = b_end;
#endif
        /* The merge changes nothing when b's first key cannot go before a's last: a segment
         * starts at b (short segments), or the two runs are already in order (nearly sorted
         * input). Then the thread's registers already hold its outputs. */
        if (b_len > 0 && b_lock > a_end && mj_less(s_keys[a_end], s_keys[a_end - 1])) {
#if MJ_SEGMENTED
            mj_seg seg = {a_lock, b_lock};
            int p = mj_seg_merge_path(s_keys + a_begin, a_len, s_keys + a_end, diag,
                                      a_lock - a_begin, b_lock - a_end);
#else
            mj_seg seg = {0, b_end};
            int p = mj_merge_path(s_keys + a_begin, a_len, s_keys + a_end, b_len, diag);
#endif
            int at[MJ_VT];
            /* b's run follows a's and is not empty: a's head is read unclamped (A_FREE). When b
             * ends, its head is read from the warp's first slot, where s[0] may be in another
             * warp's round (mj_round_sync); a thread's own slot took 6 more registers for
             * 8-byte keys (f64: two blocks a multiprocessor instead of three). */
            mj_serial_merge<false, false, true>(s_keys, a_begin + p, a_end, a_end + diag - p,
                                                b_end, seg, keys, at,
                                                MJ_SEGMENTED ? 0 : MJ_VT * (tid & ~31));
#if MJ_HAS_VALUES
#pragma unroll
            for (int i = 0; i < MJ_VT; ++i)
                if (MJ_VT * tid + i < count) pos[i] = s_pos[at[i]];
#endif
        }
        mj_round_sync(coop);
#if MJ_SEGMENTED
        /* Every read of this round's ranges is done; the next round reads after its barrier. */
        range = mj_heads_union(ra, rb);
        if (tid == first) s_heads[tid / coop] = range;
#endif
    }
    return range;
}

#endif
