/* Single-pass scan with decoupled look-back: each input element is read once. One block per
 * tile; tiles are numbered by an atomic counter in the order blocks start, so every tile
 * before a block's own belongs to a block that is already running, and waiting on them ends
 * whatever order the GPU runs blocks in.
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
 * Each tile loads all its input into registers before storing any output and reads no other
 * tile's input, so out == in scans in place. */
#ifndef MJ_KERNEL_SCAN_CUH
#define MJ_KERNEL_SCAN_CUH

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

/* in, out: n elements (out == in allowed); inclusive: 1 for inclusive, 0 for exclusive;
 * total: NULL, or where the combination of all n goes. state, values: see above; the grid
 * has exactly one block per tile (one block when n == 0). */
extern "C" __global__ void __launch_bounds__(MJ_NT)
    mj_scan_tiles(const mj_key *in, mj_key *out, mj_i64 n, int inclusive, mj_key *total,
                  mj_u32 *state, mj_key_words *values) {
    __shared__ mj_key s_tile[MJ_SCAN_NV];
    __shared__ mj_key s_warp[MJ_SCAN_WARPS];
    __shared__ mj_key s_prefix;
    __shared__ int s_id;
    int tid = threadIdx.x, lane = tid & 31;
    if (n == 0) {
        if (tid == 0 && total) *total = mj_identity();
        return;
    }
    mj_i64 tiles = (n + MJ_SCAN_NV - 1) / MJ_SCAN_NV;
    /* After the counter: 8 bytes on for words, 16 (aligned) for pairs. */
    mj_u32 *states = state + (MJ_PAIRED_STATE ? 4 : 2);
    mj_tile_states st = {(mj_u64 *)states, states, values, values + tiles};
    if (tid == 0) s_id = (int)atomicAdd(state, 1u);
    __syncthreads();
    int tile = s_id;
    mj_i64 first = (mj_i64)tile * MJ_SCAN_NV;
    int count = (int)mj_min<mj_i64>(n - first, MJ_SCAN_NV);

    mj_key x[MJ_VT];
    mj_scan_load(in + first, count, x, s_tile, tid);
    mj_key aggregate;
    mj_key p = mj_cta_scan(mj_thread_reduce(x), s_warp, tid, &aggregate);
    if (tid < 32) {
        mj_key before = mj_identity();
        if (tile == 0) {
            if (lane == 0) mj_publish(st, 0, MJ_TILE_PREFIX, aggregate);
        } else {
            if (lane == 0) mj_publish(st, tile, MJ_TILE_AGGREGATE, aggregate);
            before = mj_look_back(st, tile, lane);
            if (lane == 0) mj_publish(st, tile, MJ_TILE_PREFIX, mj_op(before, aggregate));
        }
        if (lane == 0) {
            s_prefix = before;
            if (total && tile == tiles - 1) *total = mj_op(before, aggregate);
        }
    }
    __syncthreads();
    p = mj_op(s_prefix, p);
    if (inclusive) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) x[i] = p = mj_op(p, x[i]);
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            mj_key y = x[i];
            x[i] = p;
            p = mj_op(p, y);
        }
    }
    mj_scan_store(out + first, count, x, s_tile, tid);
}

#endif
