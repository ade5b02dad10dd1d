/* Decoupled look-back (CUB's single-pass scans): where a tile learns the combination of every
 * tile before it in one pass over the input. The one look-back of every primitive whose tiles
 * need what the tiles before them summed: scan and segmented reduce (values), set operations
 * and select (counts), reduce by key (a count and a value).
 * Tiles are numbered in the order their blocks start (an atomic counter), so every tile before
 * a block's own belongs to a block that is running or done, and waiting on it ends whatever
 * order the GPU runs blocks in. A tile publishes its own summary (an aggregate) as soon as it
 * is known, then looks back over its predecessors 32 at a time (one per lane of warp 0),
 * combining aggregates back to the nearest tile that has published its inclusive prefix, then
 * publishes its own prefix.
 * What a tile's state is in memory is the caller's States (count_states.cuh, value_states.cuh,
 * tile_sum.cuh), each written and read so that a status is never seen without its summary:
 *   MJ_DEVICE void publish(mj_i64 tile, bool prefix, const S &s) const;
 *   MJ_DEVICE bool await(mj_i64 pred, const S &none, S *s) const;
 * await waits, with the whole warp, until every lane's tile `pred` has a state and returns
 * whether it is a prefix, its summary in *s; a pred below 0 (before the first tile) is a
 * prefix of `none`. C combines summaries (associative, not assumed commutative: an earlier
 * tile always comes first) and gives the identity, and says whether it commutes:
 *   MJ_DEVICE S identity() const;  MJ_DEVICE S operator()(const S &earlier, const S &later) const;
 *   static constexpr bool commutes; */
#ifndef MJ_CTA_LOOK_BACK_CUH
#define MJ_CTA_LOOK_BACK_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl_any.cuh"

/* A state of two 64-bit words (16-byte aligned) written or read by one 16-byte vector access,
 * which these GPUs do not split (as CUB's tile states of 8-byte types): a status in one word
 * is never seen without the other. Volatile, so never from the incoherent L1. */
MJ_DEVICE void mj_store_state_pair(mj_u64 *p, mj_u64 w0, mj_u64 w1) {
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w0), "l"(w1)
                 : "memory");
}
MJ_DEVICE void mj_load_state_pair(const mj_u64 *p, mj_u64 *w0, mj_u64 *w1) {
    asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(*w0), "=l"(*w1) : "l"(p)
                 : "memory");
}

/* Warp 0 of tile `tile`'s block: publishes the tile's summary `own` (as its prefix at once
 * where `closes`: nothing before the tile reaches past its own summary, as a segmented
 * reduce's tile that starts a segment, or where it is tile 0), combines the summaries of the
 * tiles before it back to the nearest prefix, publishes its own prefix, and returns the
 * combination of every tile before it (the identity for tile 0), in every lane. Index is the
 * tile number's type: int where the tiles are known to number below 2^31 (a 64-bit one costs
 * the scan 16 registers), mj_i64 otherwise. A window is
 * tiles [end - 32, end), lane l taking end - 32 + l, combined from its highest lane holding a
 * prefix up (whole when none has one), then the window before it. */
template <typename S, typename States, typename C, typename Index>
MJ_DEVICE S mj_look_back(const States &st, Index tile, const S &own, bool closes, int lane,
                         const C &combine) {
    const S none = combine.identity();
    closes = closes || tile == 0;
    if (lane == 0) st.publish(tile, closes, own);
    if (tile == 0) return none;
    S before = none; /* of the tiles from `end` to this one */
    for (Index end = tile;; end -= 32) {
        S s;
        bool prefix = st.await(end - 32 + lane, none, &s);
        unsigned prefixes = __ballot_sync(0xFFFFFFFFu, prefix);
        int stop = prefixes ? 31 - __clz(prefixes) : 0;
        if (lane < stop) s = none;
        if constexpr (C::commutes) {
            /* Any order: a butterfly leaves the window's combination in every lane. Counts
             * take it: select of u32 keys by `a % 100 < 1` compiled to 40 registers with it
             * and 62 with the ordered scan below (ptxas 13.0, sm_90), 2 blocks of 512 a
             * multiprocessor instead of 3 and a fifth slower on an H200. */
#pragma unroll
            for (int d = 16; d > 0; d /= 2) s = combine(s, mj_shfl_xor_any(s, d));
            before = combine(s, before);
        } else {
            /* The window in lane order: after the step of d, lane l holds lanes l to
             * l + 2d - 1. */
#pragma unroll
            for (int d = 1; d < 32; d *= 2) {
                S later = mj_shfl_down_any(s, d);
                if (lane + d < 32) s = combine(s, later);
            }
            before = combine(mj_shfl_any(s, 0), before);
        }
        if (prefixes) break;
    }
    if (!closes && lane == 0) st.publish(tile, true, combine(before, own));
    return before;
}

#endif
