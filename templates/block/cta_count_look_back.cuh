/* Where a tile's output starts, when tiles emit a number of elements known only as they run
 * (set operations, select): a decoupled look-back over the tiles' counts, one pass over the
 * input as the scan primitive's look-back over values (kernel_scan.cuh). The tiles are
 * numbered in the order their blocks start (an atomic counter), so every tile before a
 * block's own belongs to a block that is running or done, and waiting on it ends. */
#ifndef MJ_CTA_COUNT_LOOK_BACK_CUH
#define MJ_CTA_COUNT_LOOK_BACK_CUH

#include "common/spec_default.cuh"

/* A tile's state for the look-back: its count (AGGREGATE) or the count of every tile up to
 * and including it (PREFIX) in the low 62 bits, the status in the top two; a 64-bit word is
 * written and read whole, so a status is never seen without its count. */
#define MJ_COUNT_AGGREGATE (1ull << 62)
#define MJ_COUNT_PREFIX (2ull << 62)
#define MJ_COUNT_BITS (MJ_COUNT_AGGREGATE - 1)

/* Warp 0 of tile `tile`'s block (tiles numbered in the order their blocks started, so every
 * earlier tile's block is running or done): publishes the tile's count, sums the counts of
 * the tiles before it, 32 tiles a round, back to the nearest one whose prefix is known,
 * publishes its own prefix and returns the sum (in every lane). */
MJ_DEVICE mj_u64 mj_count_look_back(mj_u64 *states, mj_i64 tile, mj_u64 count, int lane) {
    volatile mj_u64 *st = states;
    if (lane == 0) st[tile] = (tile == 0 ? MJ_COUNT_PREFIX : MJ_COUNT_AGGREGATE) | count;
    if (tile == 0) return 0;
    mj_u64 before = 0;
    for (mj_i64 end = tile;; end -= 32) {
        mj_i64 pred = end - 32 + lane;
        mj_u64 w;
        do {
            w = pred >= 0 ? st[pred] : MJ_COUNT_PREFIX; /* before the first tile: nothing */
        } while (__any_sync(0xFFFFFFFFu, (w >> 62) == 0));
        unsigned prefixes = __ballot_sync(0xFFFFFFFFu, (w & MJ_COUNT_PREFIX) != 0);
        int stop = prefixes ? 31 - __clz(prefixes) : 0;
        mj_u64 v = lane >= stop ? w & MJ_COUNT_BITS : 0;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, d);
        before += v;
        if (prefixes) break;
    }
    if (lane == 0) st[tile] = MJ_COUNT_PREFIX | (before + count);
    return before;
}

#endif
