/* Summaries of spans of a tile-partitioned input (reduce by key): a count (below 2^62) and a
 * value of any trivially copyable type T, combined by the caller's functor C (associative,
 * not assumed commutative: an earlier span always comes first), which also gives the
 * identity:
 *   struct C {
 *       static constexpr bool commutes; (for the look-back: cta_look_back.cuh)
 *       MJ_DEVICE mj_tile_sum<T> identity() const;
 *       MJ_DEVICE mj_tile_sum<T> operator()(const mj_tile_sum<T> &earlier,
 *                                           const mj_tile_sum<T> &later) const;
 *   };
 * Their scan across a block (mj_cta_sum_scan), and their tile states for the look-back
 * (cta_look_back.cuh), two 64-bit words a tile at words[2t] (16-byte aligned, zero before the
 * launch: the host clears them in stream order):
 *   word 0: the status in the top two bits (AGGREGATE: the tile's own summary, PREFIX: that
 *     of every tile up to and including it) and the count in the other 62;
 *   T of at most 8 bytes: word 1 holds the value's bits, and both words are written and read
 *     by one 16-byte access (mj_store_state_pair), so a status is never seen without its value;
 *   larger T: the value goes to values[2t] (aggregate) or values[2t + 1] (prefix), separate
 *     so that publishing the prefix never rewrites a value a reader of the aggregate may be
 *     loading; the writer stores the value, fences (__threadfence), then word 0; a reader
 *     loads word 0, fences, then the value, all through volatile accesses that bypass the
 *     incoherent L1. */
#ifndef MJ_TILE_SUM_CUH
#define MJ_TILE_SUM_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl_any.cuh"
#include "block/cta_look_back.cuh"

template <typename T> struct mj_tile_sum {
    mj_u64 count;
    T value;
};

#define MJ_LB_AGGREGATE (1ull << 62)
#define MJ_LB_PREFIX (2ull << 62)
#define MJ_LB_COUNT (MJ_LB_AGGREGATE - 1)

/* Whole 4-byte words where the type allows, else bytes; volatile, so never from L1. */
template <typename T> MJ_DEVICE void mj_store_volatile(T *p, const T &x) {
    mj_words_of<T> u = mj_words(x);
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
#pragma unroll
        for (int i = 0; i < (int)sizeof(T) / 4; ++i) ((volatile mj_u32 *)p)[i] = u.w[i];
    } else {
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); ++i)
            ((volatile mj_u8 *)p)[i] = ((const mj_u8 *)u.w)[i];
    }
}
template <typename T> MJ_DEVICE T mj_load_volatile(const T *p) {
    mj_words_of<T> u;
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
#pragma unroll
        for (int i = 0; i < (int)sizeof(T) / 4; ++i) u.w[i] = ((const volatile mj_u32 *)p)[i];
    } else {
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); ++i)
            ((mj_u8 *)u.w)[i] = ((const volatile mj_u8 *)p)[i];
    }
    return mj_unwords<T>(u);
}

template <typename T> struct mj_sum_states {
    mj_u64 *words; /* two a tile */
    T *values;     /* two a tile, for T over 8 bytes only */

    MJ_DEVICE void publish(mj_i64 tile, bool prefix, const mj_tile_sum<T> &s) const {
        mj_u64 word = (prefix ? MJ_LB_PREFIX : MJ_LB_AGGREGATE) | s.count;
        if constexpr (sizeof(T) <= 8) {
            mj_u64 bits = 0;
            memcpy(&bits, &s.value, sizeof(T));
            mj_store_state_pair(words + 2 * tile, word, bits);
        } else {
            mj_store_volatile(values + 2 * tile + prefix, s.value);
            __threadfence(); /* the value before the status that announces it */
            *(volatile mj_u64 *)&words[2 * tile] = word;
        }
    }

    MJ_DEVICE bool await(mj_i64 pred, const mj_tile_sum<T> &none, mj_tile_sum<T> *s) const {
        mj_u64 word = MJ_LB_PREFIX | none.count, bits = 0;
        if constexpr (sizeof(T) <= 8) {
            do {
                if (pred >= 0) mj_load_state_pair(words + 2 * pred, &word, &bits);
            } while (__any_sync(0xFFFFFFFFu, (word & ~MJ_LB_COUNT) == 0));
            T v;
            memcpy(&v, &bits, sizeof(T));
            s->value = pred >= 0 ? v : none.value;
        } else {
            do {
                if (pred >= 0) word = *(volatile mj_u64 *)&words[2 * pred];
            } while (__any_sync(0xFFFFFFFFu, (word & ~MJ_LB_COUNT) == 0));
            __threadfence(); /* the status before the value it announces */
            s->value = pred >= 0 ? mj_load_volatile(values + 2 * pred + (word >= MJ_LB_PREFIX))
                                 : none.value;
        }
        s->count = word & MJ_LB_COUNT;
        return word >= MJ_LB_PREFIX;
    }
};

/* Exclusive scan of one summary per thread across a block of MJ_NT threads: returns the
 * combination of the threads before this one (the identity for thread 0) and the block's
 * in *total (every thread). s_warp: MJ_NT / 32 summaries of shared memory. Ends after a
 * block barrier and reads s_warp after it: a caller reusing s_warp passes another first. */
template <typename T, typename C>
MJ_DEVICE mj_tile_sum<T> mj_cta_sum_scan(const mj_tile_sum<T> &x, mj_tile_sum<T> *s_warp,
                                         int tid, C combine, mj_tile_sum<T> *total) {
    int lane = tid & 31, warp = tid >> 5;
    mj_tile_sum<T> in_warp = x; /* inclusive, within the warp */
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        mj_tile_sum<T> earlier = mj_shfl_up_any(in_warp, d);
        if (lane >= d) in_warp = combine(earlier, in_warp);
    }
    if (lane == 31) s_warp[warp] = in_warp;
    mj_tile_sum<T> before_in_warp = mj_shfl_up_any(in_warp, 1);
    __syncthreads();
    mj_tile_sum<T> before = combine.identity(), all = combine.identity();
#pragma unroll
    for (int w = 0; w < MJ_NT / 32; ++w) {
        if (w < warp) before = combine(before, s_warp[w]);
        all = combine(all, s_warp[w]);
    }
    *total = all;
    return lane ? combine(before, before_in_warp) : before;
}

#endif
