/* Decoupled look-back over the tiles' values (the spec's mj_key, combined with mj_op): where a
 * tile learns the combination of every element before it in one pass over the input (scan,
 * segmented reduce). Tiles are numbered by an atomic counter in the order their blocks start,
 * so every tile before a block's own belongs to a block that is already running, and waiting
 * on them ends whatever order the GPU runs blocks in.
 * A tile publishes its aggregate (A) as soon as it is known, then looks back over its
 * predecessors 32 at a time (one per lane of warp 0), combining aggregates back to the
 * nearest tile that has published its inclusive prefix (P), then publishes its own P.
 * State of tile t, in `state` after a 64-bit counter (all zero before the launch; the host
 * clears it in stream order):
 *   keys of at most 4 bytes: one 64-bit word, status << 32 | the value's bits, written and
 *     read whole (single-copy atomic), so a status is never seen without its value;
 *   keys of 5 to 8 bytes: a 16-byte pair {status, the value's bits}, written and read by one
 *     16-byte vector access (as CUB's tile states of 8-byte types are: aligned 16-byte
 *     accesses are not split on these GPUs), so again no fence is needed;
 *   larger keys: a 32-bit status, and the values in `values` (aggregates [0, tiles),
 *     inclusive prefixes [tiles, 2 * tiles), separate so that publishing P never rewrites a
 *     value a reader of A may be loading). The writer stores the value, fences
 *     (__threadfence), then stores the status; a reader loads the status, fences, then loads
 *     the value, all through volatile accesses that bypass the incoherent L1.
 * Counts have a look-back of their own (cta_count_look_back.cuh): 62 bits and a status in one
 * word, summed, where this one takes any key type and operator. */
#ifndef MJ_CTA_LOOK_BACK_CUH
#define MJ_CTA_LOOK_BACK_CUH

#include "common/spec_default.cuh"
#include "block/cta_scan.cuh"

#define MJ_TILE_INVALID 0u
#define MJ_TILE_AGGREGATE 1u
#define MJ_TILE_PREFIX 2u
#define MJ_PACKED_STATE (sizeof(mj_key) <= 4)
#define MJ_PAIRED_STATE (!MJ_PACKED_STATE && sizeof(mj_key) <= 8)

struct mj_tile_states {
    mj_u64 *words;               /* packed: one word per tile; paired: two */
    mj_u32 *flags;               /* otherwise: a status per tile ... */
    mj_key_words *aggregate, *inclusive; /* ... and its values */
};

MJ_DEVICE void mj_publish(const mj_tile_states &st, int tile, mj_u32 status, const mj_key &v) {
    mj_key_words u = mj_to_words(v);
    if constexpr (MJ_PACKED_STATE) {
        *(volatile mj_u64 *)&st.words[tile] = (mj_u64)status << 32 | u.w[0];
    } else if constexpr (MJ_PAIRED_STATE) {
        /* Two words at most here; the index keeps the dead branches of other sizes in range. */
        const int hi = MJ_KEY_WORDS > 1 ? 1 : 0;
        mj_u64 bits = (hi ? (mj_u64)u.w[hi] << 32 : 0) | u.w[0];
        asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(st.words + 2 * tile),
                     "l"((mj_u64)status), "l"(bits)
                     : "memory");
    } else {
        mj_key_words *slot = (status == MJ_TILE_PREFIX ? st.inclusive : st.aggregate) + tile;
#pragma unroll
        for (int i = 0; i < MJ_KEY_WORDS; ++i) ((volatile mj_u32 *)slot->w)[i] = u.w[i];
        __threadfence(); /* the value before the status that announces it */
        *(volatile mj_u32 *)&st.flags[tile] = status;
    }
}

/* Lane's predecessor `pred` (< 0: before the first tile, a prefix of nothing): waits, with
 * the whole warp, until every lane's tile has a status; returns it and the value it names. */
MJ_DEVICE mj_u32 mj_await_state(const mj_tile_states &st, int pred, mj_key *v) {
    mj_u32 status;
    if constexpr (MJ_PACKED_STATE) {
        mj_u64 word;
        do {
            word = pred >= 0 ? *(volatile mj_u64 *)&st.words[pred] : (mj_u64)MJ_TILE_PREFIX << 32;
        } while (__any_sync(0xFFFFFFFFu, (mj_u32)(word >> 32) == MJ_TILE_INVALID));
        status = (mj_u32)(word >> 32);
        mj_key_words u;
        u.w[0] = (mj_u32)word;
        *v = pred >= 0 ? mj_from_words(u) : mj_identity();
    } else if constexpr (MJ_PAIRED_STATE) {
        mj_u64 word = MJ_TILE_PREFIX, bits = 0;
        do {
            if (pred >= 0)
                asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];"
                             : "=l"(word), "=l"(bits)
                             : "l"(st.words + 2 * pred)
                             : "memory");
        } while (__any_sync(0xFFFFFFFFu, (mj_u32)word == MJ_TILE_INVALID));
        status = (mj_u32)word;
        mj_key_words u;
        const int hi = MJ_KEY_WORDS > 1 ? 1 : 0;
        u.w[hi] = (mj_u32)(bits >> 32);
        u.w[0] = (mj_u32)bits;
        *v = pred >= 0 ? mj_from_words(u) : mj_identity();
    } else {
        do {
            status = pred >= 0 ? *(volatile mj_u32 *)&st.flags[pred] : MJ_TILE_PREFIX;
        } while (__any_sync(0xFFFFFFFFu, status == MJ_TILE_INVALID));
        __threadfence(); /* the status before the value it announces */
        if (pred >= 0) {
            const mj_key_words *slot =
                (status == MJ_TILE_PREFIX ? st.inclusive : st.aggregate) + pred;
            mj_key_words u;
#pragma unroll
            for (int i = 0; i < MJ_KEY_WORDS; ++i) u.w[i] = ((const volatile mj_u32 *)slot->w)[i];
            *v = mj_from_words(u);
        } else {
            *v = mj_identity();
        }
    }
    return status;
}

/* Warp 0 of tile > 0: the combination of every element before the tile (in all lanes). A
 * window is tiles [end - 32, end), lane l taking end - 32 + l; it is combined from its
 * highest lane holding a P up, or whole when none has one, and then the window before it. */
MJ_DEVICE mj_key mj_look_back(const mj_tile_states &st, int tile, int lane) {
    mj_key prefix = mj_identity(); /* of the tiles from `end` to the tile */
    for (int end = tile;; end -= 32) {
        mj_key v;
        mj_u32 status = mj_await_state(st, end - 32 + lane, &v);
        unsigned ps = __ballot_sync(0xFFFFFFFFu, status == MJ_TILE_PREFIX);
        int stop = ps ? 31 - __clz(ps) : 0;
        if (lane < stop) v = mj_identity();
        mj_key window = mj_shfl_key(mj_warp_reduce(v, lane), 0);
        prefix = mj_op(window, prefix);
        if (ps) return prefix;
    }
}

#endif
