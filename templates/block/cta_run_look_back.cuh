/* Summaries of spans of a tile-partitioned input, their scan across a block, and a decoupled
 * look-back over them across tiles: one pass over the input, as CUB's single-pass scans.
 * A summary is a count (below 2^62) and a value of any trivially copyable type T, combined
 * by the caller's functor C (associative, not assumed commutative: an earlier span always
 * comes first), which also gives the identity:
 *   struct C {
 *       MJ_DEVICE mj_tile_sum<T> identity() const;
 *       MJ_DEVICE mj_tile_sum<T> operator()(const mj_tile_sum<T> &earlier,
 *                                           const mj_tile_sum<T> &later) const;
 *   };
 * Reduce by key sums run heads and carries the open run's value; the scan's look-back
 * (cta_look_back.cuh: a value, no count) and the set operations' (cta_count_look_back.cuh: a
 * count, no value) are the two degenerate cases, kept apart only so that their generated
 * source stays as it was.
 * Tiles are numbered in the order their blocks start (an atomic counter), so every tile
 * before a block's own belongs to a block that is running or done, and waiting on it ends
 * whatever order the GPU runs blocks in.
 * State of tile t, two 64-bit words at words[2t] (16-byte aligned, zero before the launch:
 * the host clears them in stream order):
 *   word 0: the status in the top two bits (AGGREGATE: the tile's own summary, PREFIX: that
 *     of every tile up to and including it) and the count in the other 62;
 *   T of at most 8 bytes: word 1 holds the value's bits, and both words are written and read
 *     by one 16-byte vector access (as the scan's paired states: aligned 16-byte accesses are
 *     not split on these GPUs), so a status is never seen without its value;
 *   larger T: the value goes to values[2t] (aggregate) or values[2t + 1] (prefix), separate
 *     so that publishing the prefix never rewrites a value a reader of the aggregate may be
 *     loading; the writer stores the value, fences (__threadfence), then word 0; a reader
 *     loads word 0, fences, then the value, all through volatile accesses that bypass the
 *     incoherent L1. */
#ifndef MJ_CTA_RUN_LOOK_BACK_CUH
#define MJ_CTA_RUN_LOOK_BACK_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl_any.cuh"

template <typename T> struct mj_tile_sum {
    mj_u64 count;
    T value;
};

#define MJ_LB_AGGREGATE (1ull << 62)
#define MJ_LB_PREFIX (2ull << 62)
#define MJ_LB_COUNT (MJ_LB_AGGREGATE - 1)

template <typename T> struct mj_lb_states {
    mj_u64 *words; /* two per tile */
    T *values;     /* two per tile, for T over 8 bytes only */
};

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

template <typename T>
MJ_DEVICE void mj_lb_publish(const mj_lb_states<T> &st, mj_i64 tile, mj_u64 status,
                             const mj_tile_sum<T> &s) {
    mj_u64 word = status | s.count;
    if constexpr (sizeof(T) <= 8) {
        mj_u64 bits = 0;
        memcpy(&bits, &s.value, sizeof(T));
        asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(st.words + 2 * tile),
                     "l"(word), "l"(bits)
                     : "memory");
    } else {
        mj_store_volatile(st.values + 2 * tile + (status == MJ_LB_PREFIX), s.value);
        __threadfence(); /* the value before the status that announces it */
        *(volatile mj_u64 *)&st.words[2 * tile] = word;
    }
}

/* Lane's predecessor `pred` (< 0: before the first tile, a prefix of nothing: count 0, value
 * `none`): waits, with the whole warp, until every lane's tile has a status; returns it, and
 * the summary it names in *s. */
template <typename T>
MJ_DEVICE mj_u64 mj_lb_await(const mj_lb_states<T> &st, mj_i64 pred, const T &none,
                             mj_tile_sum<T> *s) {
    mj_u64 word = MJ_LB_PREFIX, bits = 0;
    if constexpr (sizeof(T) <= 8) {
        do {
            if (pred >= 0)
                asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                             : "=l"(word), "=l"(bits)
                             : "l"(st.words + 2 * pred)
                             : "memory");
        } while (__any_sync(0xFFFFFFFFu, (word & ~MJ_LB_COUNT) == 0));
        T v;
        memcpy(&v, &bits, sizeof(T));
        s->value = pred >= 0 ? v : none;
    } else {
        do {
            if (pred >= 0) word = *(volatile mj_u64 *)&st.words[2 * pred];
        } while (__any_sync(0xFFFFFFFFu, (word & ~MJ_LB_COUNT) == 0));
        __threadfence(); /* the status before the value it announces */
        s->value = pred >= 0 ? mj_load_volatile(st.values + 2 * pred + (word >= MJ_LB_PREFIX))
                             : none;
    }
    s->count = word & MJ_LB_COUNT;
    return word & ~MJ_LB_COUNT;
}

/* Warp 0 of tile `tile`'s block: publishes the tile's summary `own`, combines the summaries of
 * the tiles before it, 32 a round (lane l taking tile end - 32 + l), back to the nearest one
 * whose prefix is known, publishes its own prefix and returns the combination of every tile
 * before it (the identity for tile 0), in every lane. */
template <typename T, typename C>
MJ_DEVICE mj_tile_sum<T> mj_look_back(const mj_lb_states<T> &st, mj_i64 tile,
                                      const mj_tile_sum<T> &own, int lane, C combine) {
    const mj_tile_sum<T> none = combine.identity();
    if (tile == 0) {
        if (lane == 0) mj_lb_publish(st, 0, MJ_LB_PREFIX, own);
        return none;
    }
    if (lane == 0) mj_lb_publish(st, tile, MJ_LB_AGGREGATE, own);
    mj_tile_sum<T> before = none; /* of the tiles from `end` to this one */
    for (mj_i64 end = tile;; end -= 32) {
        mj_tile_sum<T> s;
        mj_u64 status = mj_lb_await(st, end - 32 + lane, none.value, &s);
        unsigned prefixes = __ballot_sync(0xFFFFFFFFu, status == MJ_LB_PREFIX);
        int stop = prefixes ? 31 - __clz(prefixes) : 0;
        if (lane < stop) s = none;
        /* The window in lane order: after the step of d, lane l holds lanes l to l + 2d - 1. */
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            mj_tile_sum<T> later = mj_shfl_down_any(s, d);
            if (lane + d < 32) s = combine(s, later);
        }
        before = combine(mj_shfl_any(s, 0), before);
        if (prefixes) break;
    }
    if (lane == 0) mj_lb_publish(st, tile, MJ_LB_PREFIX, combine(before, own));
    return before;
}

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
