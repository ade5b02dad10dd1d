/* Tile states of counts for the look-back (cta_look_back.cuh): where a tile's output starts
 * when tiles emit a number of elements known only as they run (set operations, select). */
#ifndef MJ_COUNT_STATES_CUH
#define MJ_COUNT_STATES_CUH

#include "common/spec_default.cuh"
#include "block/cta_look_back.cuh"

/* A tile's state: its count (AGGREGATE) or the count of every tile up to and including it
 * (PREFIX) in the low 62 bits, the status in the top two; a 64-bit word is written and read
 * whole, so a status is never seen without its count. */
#define MJ_COUNT_AGGREGATE (1ull << 62)
#define MJ_COUNT_PREFIX (2ull << 62)
#define MJ_COUNT_BITS (MJ_COUNT_AGGREGATE - 1)

struct mj_count_states {
    mj_u64 *words; /* one a tile */

    MJ_DEVICE void publish(mj_i64 tile, bool prefix, mj_u64 count) const {
        ((volatile mj_u64 *)words)[tile] = (prefix ? MJ_COUNT_PREFIX : MJ_COUNT_AGGREGATE) | count;
    }
    MJ_DEVICE bool await(mj_i64 pred, mj_u64 none, mj_u64 *count) const {
        mj_u64 w;
        do {
            w = pred >= 0 ? ((volatile mj_u64 *)words)[pred] : MJ_COUNT_PREFIX | none;
        } while (__any_sync(0xFFFFFFFFu, (w >> 62) == 0));
        *count = w & MJ_COUNT_BITS;
        return (w & MJ_COUNT_PREFIX) != 0;
    }
};

struct mj_count_sum {
    static constexpr bool commutes = true;
    MJ_DEVICE mj_u64 identity() const { return 0; }
    MJ_DEVICE mj_u64 operator()(mj_u64 earlier, mj_u64 later) const { return earlier + later; }
};

/* Warp 0 of tile `tile`'s block: the count of every tile before it (in every lane), its own
 * published. states: a word a tile, zero before the launch. */
MJ_DEVICE mj_u64 mj_count_look_back(mj_u64 *states, mj_i64 tile, mj_u64 count, int lane) {
    mj_count_states st = {states};
    return mj_look_back(st, tile, count, false, lane, mj_count_sum());
}

#endif
