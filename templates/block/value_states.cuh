/* Tile states of values (the spec's mj_key, combined with mj_op) for the look-back
 * (cta_look_back.cuh): scan and segmented reduce. In `state` after a 64-bit counter (all zero
 * before the launch; the host clears it in stream order):
 *   keys of at most 4 bytes: one 64-bit word a tile, status << 32 | the value's bits, written
 *     and read whole (single-copy atomic), so a status is never seen without its value;
 *   keys of 5 to 8 bytes: a 16-byte pair {status, the value's bits}, written and read by one
 *     16-byte access (mj_store_state_pair), so again no fence is needed;
 *   larger keys: a 32-bit status, and the values in `values` (aggregates [0, tiles),
 *     inclusive prefixes [tiles, 2 * tiles), separate so that publishing the prefix never
 *     rewrites a value a reader of the aggregate may be loading). The writer stores the value,
 *     fences (__threadfence), then stores the status; a reader loads the status, fences, then
 *     loads the value, all through volatile accesses that bypass the incoherent L1. */
#ifndef MJ_VALUE_STATES_CUH
#define MJ_VALUE_STATES_CUH

#include "common/spec_default.cuh"
#include "warp/warp_shfl.cuh"
#include "block/cta_look_back.cuh"

#define MJ_TILE_AGGREGATE 1u
#define MJ_TILE_PREFIX 2u
#define MJ_PACKED_STATE (sizeof(mj_key) <= 4)
#define MJ_PAIRED_STATE (!MJ_PACKED_STATE && sizeof(mj_key) <= 8)

struct mj_value_states {
    mj_u64 *words;                       /* packed: one word a tile; paired: two */
    mj_u32 *flags;                       /* otherwise: a status a tile ... */
    mj_key_words *aggregate, *inclusive; /* ... and its values */

    MJ_DEVICE void publish(mj_i64 tile, bool prefix, const mj_key &v) const {
        mj_u32 status = prefix ? MJ_TILE_PREFIX : MJ_TILE_AGGREGATE;
        mj_key_words u = mj_to_words(v);
        if constexpr (MJ_PACKED_STATE) {
            *(volatile mj_u64 *)&words[tile] = (mj_u64)status << 32 | u.w[0];
        } else if constexpr (MJ_PAIRED_STATE) {
            /* Two words at most here; the index keeps the dead branches of other sizes in
             * range. */
            const int hi = MJ_KEY_WORDS > 1 ? 1 : 0;
            mj_u64 bits = (hi ? (mj_u64)u.w[hi] << 32 : 0) | u.w[0];
            mj_store_state_pair(words + 2 * tile, status, bits);
        } else {
            mj_key_words *slot = (prefix ? inclusive : aggregate) + tile;
#pragma unroll
            for (int i = 0; i < MJ_KEY_WORDS; ++i) ((volatile mj_u32 *)slot->w)[i] = u.w[i];
            __threadfence(); /* the value before the status that announces it */
            *(volatile mj_u32 *)&flags[tile] = status;
        }
    }

    MJ_DEVICE bool await(mj_i64 pred, const mj_key &none, mj_key *v) const {
        mj_u32 status;
        if constexpr (MJ_PACKED_STATE) {
            mj_u64 word;
            do {
                word = pred >= 0 ? *(volatile mj_u64 *)&words[pred] : (mj_u64)MJ_TILE_PREFIX << 32;
            } while (__any_sync(0xFFFFFFFFu, (mj_u32)(word >> 32) == 0));
            status = (mj_u32)(word >> 32);
            mj_key_words u;
            u.w[0] = (mj_u32)word;
            *v = pred >= 0 ? mj_from_words(u) : none;
        } else if constexpr (MJ_PAIRED_STATE) {
            mj_u64 word = MJ_TILE_PREFIX, bits = 0;
            do {
                if (pred >= 0) mj_load_state_pair(words + 2 * pred, &word, &bits);
            } while (__any_sync(0xFFFFFFFFu, (mj_u32)word == 0));
            status = (mj_u32)word;
            mj_key_words u;
            const int hi = MJ_KEY_WORDS > 1 ? 1 : 0;
            u.w[hi] = (mj_u32)(bits >> 32);
            u.w[0] = (mj_u32)bits;
            *v = pred >= 0 ? mj_from_words(u) : none;
        } else {
            do {
                status = pred >= 0 ? *(volatile mj_u32 *)&flags[pred] : MJ_TILE_PREFIX;
            } while (__any_sync(0xFFFFFFFFu, status == 0));
            __threadfence(); /* the status before the value it announces */
            if (pred >= 0) {
                const mj_key_words *slot = (status == MJ_TILE_PREFIX ? inclusive : aggregate) + pred;
                mj_key_words u;
#pragma unroll
                for (int i = 0; i < MJ_KEY_WORDS; ++i)
                    u.w[i] = ((const volatile mj_u32 *)slot->w)[i];
                *v = mj_from_words(u);
            } else {
                *v = none;
            }
        }
        return status == MJ_TILE_PREFIX;
    }
};

/* The spec's operator, as the look-back's combination. */
struct mj_key_sum {
    static constexpr bool commutes = false; /* the caller's operator need not */
    MJ_DEVICE mj_key identity() const { return mj_identity(); }
    MJ_DEVICE mj_key operator()(const mj_key &earlier, const mj_key &later) const {
        return mj_op(earlier, later);
    }
};

#endif
