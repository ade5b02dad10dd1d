/* Moving a tile between global memory, shared memory and registers. NT is the block's thread
 * count: the merge kernel's MJ_NT, or the blocksort's MJ_BS_NT. Register arrays hold a
 * thread's MJ_VT consecutive elements (tid * MJ_VT + i), the layout the sort network and the
 * serial merge work on. Global accesses are coalesced in one of two ways: across the block
 * (element tid + NT * i; the tile goes through all of shared memory, between block barriers),
 * or within a warp (the warp's 32 * MJ_VT consecutive elements, lane + 32 * i; each warp uses
 * only its own slots of shared memory, so __syncwarp suffices). An odd MJ_VT keeps the
 * register-order shared-memory accesses free of bank conflicts for 4-byte keys. */
#ifndef MJ_TILE_IO_CUH
#define MJ_TILE_IO_CUH

#include "common/spec_default.cuh"

#define MJ_NV (MJ_NT * MJ_VT)
#define MJ_BS_NV (MJ_BS_NT * MJ_VT)

/* Where a tile's merge inputs are, in tile coordinates j in [0, total): j < a_len is run A's
 * element a_begin + j, the rest run B's element b_begin + (j - a_len). Each run is read from
 * two arrays, the first up to its split: the queued passes (work_queue.h) keep each tile's
 * data in one of two buffers, and a run no longer than a tile crosses at most one tile edge.
 * Every other caller gives the same array twice (mj_two_runs), and the compiler folds the
 * choice away. Value arrays may be null when no values are carried. */
typedef struct mj_merge_src {
    const mj_key *ka0, *ka1, *kb0, *kb1;
    const mj_value *va0, *va1, *vb0, *vb1;
    mj_i64 a_begin, b_begin;
    int a_len, a_split, b_split; /* a_split <= a_len <= b_split */
} mj_merge_src;

MJ_DEVICE mj_merge_src mj_two_runs(const mj_key *ka, const mj_value *va, mj_i64 a_begin,
                                   int a_len, const mj_key *kb, const mj_value *vb,
                                   mj_i64 b_begin, int total) {
    mj_merge_src s = {ka, ka, kb, kb, va, va, vb, vb, a_begin, b_begin, a_len, a_len, total};
    return s;
}

/* s[0, total) = the tile's inputs. In a full tile every global load is issued before the first
 * shared-memory store, so a thread has MJ_VT loads in flight at once. PAD: s has MJ_VT more
 * slots, and s[total, total + MJ_VT) get copies of the last input, written by the thread that
 * loaded it, so that a merge may read run heads past the tile (serial_merge.cuh's PADDED) and
 * compare only keys the caller gave. */
template <int NT, bool PAD = false>
MJ_DEVICE void mj_load_to_shared(const mj_merge_src &src, int total, mj_key *s, int tid) {
    mj_key k[MJ_VT];
    /* Offset so that element j of the tile is p[j] for its array p. */
    const mj_key *a0 = src.ka0 + src.a_begin, *a1 = src.ka1 + src.a_begin;
    const mj_key *b0 = src.kb0 + (src.b_begin - src.a_len);
    const mj_key *b1 = src.kb1 + (src.b_begin - src.a_len);
    int a_split = src.a_split, a_len = src.a_len, b_split = src.b_split;
    if (total == NT * MJ_VT) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + NT * i;
            k[i] = (j < a_split ? a0 : j < a_len ? a1 : j < b_split ? b0 : b1)[j];
        }
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) s[tid + NT * i] = k[i];
        if (PAD && tid == NT - 1)
#pragma unroll
            for (int i = 0; i < MJ_VT; ++i) s[total + i] = k[MJ_VT - 1];
    } else {
        /* A launch's last tile at most: a loop, since unrolled it only costs compile time. */
        mj_key last;
#pragma unroll 1
        for (int j = tid; j < total; j += NT) {
            last = (j < a_split ? a0 : j < a_len ? a1 : j < b_split ? b0 : b1)[j];
            s[j] = last;
        }
        if (PAD && total > 0 && tid == (total - 1) % NT)
#pragma unroll 1
            for (int i = 0; i < MJ_VT; ++i) s[total + i] = last;
    }
}

template <typename T>
MJ_DEVICE void mj_regs_to_shared(const T regs[MJ_VT], T *s, int tid) {
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) s[MJ_VT * tid + i] = regs[i];
}

template <typename T>
MJ_DEVICE void mj_shared_to_regs(const T *s, T regs[MJ_VT], int tid) {
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) regs[i] = s[MJ_VT * tid + i];
}

/* A mergesort of floats in a built-in order (the generator's MJ_KEY_MAP) holds each key as
 * its ordinal (an unsigned integer, shared/float_order.h) from its first load to its last
 * store, so that its comparisons are plain unsigned ones: a key read from the caller's array
 * passes through mj_key_loaded (the spec's mj_key_in), one written back through mj_key_stored
 * (mj_key_out), each with `map` set. Both are the identity otherwise. Mapping at the global
 * access, not in the registers a thread sorts or merges in, keeps the maps' temporaries out
 * of those loops (mapping the merge's registers took an f64 merge from 64 to 114 registers). */
MJ_DEVICE mj_key mj_key_loaded(mj_key k, bool map) {
#if MJ_KEY_MAP
    return map ? mj_key_in(k) : k;
#else
    (void)map;
    return k;
#endif
}
MJ_DEVICE mj_key mj_key_stored(mj_key k, bool map) {
#if MJ_KEY_MAP
    return map ? mj_key_out(k) : k;
#else
    (void)map;
    return k;
#endif
}

/* The first of the 32 * MJ_VT consecutive tile slots whose outputs this thread's warp holds in
 * registers (thread order). */
MJ_DEVICE int mj_warp_slots(int tid) { return (tid & ~31) * MJ_VT; }

/* Registers in thread order to out[0, total), through the warp's own slots of s: a transpose
 * within each warp, so it needs no block barrier. The caller makes sure that no thread still
 * reads those slots. map: the keys leave a sort that holds ordinals (mj_key_stored). */
template <int NT>
MJ_DEVICE void mj_store_by_warps(const mj_key keys[MJ_VT], mj_key *s, int total, mj_key *out,
                                 bool map, int tid) {
    mj_regs_to_shared(keys, s, tid);
    __syncwarp();
    int j0 = mj_warp_slots(tid) + (tid & 31);
    if (total == NT * MJ_VT) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) out[j0 + 32 * i] = mj_key_stored(s[j0 + 32 * i], map);
    } else {
#pragma unroll 1
        for (int j = j0; j < min(total, j0 + 32 * MJ_VT); j += 32)
            out[j] = mj_key_stored(s[j], map);
    }
}

/* in[0, count) to registers in thread order through the warp's own slots of s: the inverse of
 * mj_store_by_warps. Registers of slots past count hold garbage. map: the keys enter a sort
 * that holds ordinals (mj_key_loaded). */
template <int NT>
MJ_DEVICE void mj_load_by_warps(const mj_key *in, int count, mj_key *s, mj_key keys[MJ_VT],
                                bool map, int tid) {
    int j0 = mj_warp_slots(tid) + (tid & 31);
    if (count == NT * MJ_VT) {
        mj_key k[MJ_VT];
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) k[i] = in[j0 + 32 * i];
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) s[j0 + 32 * i] = mj_key_loaded(k[i], map);
    } else {
        /* A launch's last tile at most: a loop, since unrolled it only costs compile time. */
#pragma unroll 1
        for (int j = j0; j < min(count, j0 + 32 * MJ_VT); j += 32)
            s[j] = mj_key_loaded(in[j], map);
    }
    __syncwarp();
    mj_shared_to_regs(s, keys, tid);
}

/* out[0, count) = in[0, count) with count <= NT * MJ_VT, coalesced across the block. Every load
 * is issued before the first store (the compiler may not move loads over stores that could
 * alias them), so a thread has MJ_VT loads in flight. */
template <int NT, typename T>
MJ_DEVICE void mj_copy_tile(const T *in, int count, T *out, int tid) {
    T x[MJ_VT];
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i)
        if (tid + NT * i < count) x[i] = in[tid + NT * i];
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i)
        if (tid + NT * i < count) out[tid + NT * i] = x[i];
}

/* dst[j] = the value of output j's source, for j < total, over the warp's slots (the caller
 * has written and __syncwarp'ed them). s_pos[j] is that source's position p in the tile's
 * input (tile coordinates of src). With src.va0 null the value is the source's global index
 * itself (index sorts). Every load is done before the barrier and every store after it, so
 * dst may be one of the inputs. total >= 1: every caller's tile has an element.
 * Values of 8 bytes or more are loaded for every slot, those past total the tile's first value
 * again (position 0), so that no load is predicated: ptxas (sm_90) then keeps the f64 + 8-byte
 * blocksort in 90 registers, not 124, and its 2-way merge in 64, not 98, and u64 + 8 pairs
 * sort 10-14% faster at 2^24 and 2^27 on an H200 (docs/TUNING.md). Smaller values stay
 * predicated: loaded for every slot, they made ptxas spill (the 4-way merge of descending
 * 4-byte keys under its register cap on sm_90, the blocksort of u8 keys on sm_80). */
#define MJ_GATHER_EVERY_SLOT (sizeof(mj_value) >= 8)
MJ_DEVICE void mj_gather_values(const int *s_pos, int total, const mj_merge_src &src,
                                mj_value *dst, int tid) {
    mj_value v[MJ_VT];
    int j0 = mj_warp_slots(tid) + (tid & 31);
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = j0 + 32 * i;
        if (MJ_GATHER_EVERY_SLOT || j < total) {
            int p = j < total ? s_pos[j] : 0;
            /* Index arithmetic, not a choice between two offset pointers: measured faster. */
            mj_i64 g = p < src.a_len ? src.a_begin + p : src.b_begin + (p - src.a_len);
            const mj_value *from = p < src.a_split ? src.va0
                                   : p < src.a_len ? src.va1
                                   : p < src.b_split ? src.vb0 : src.vb1;
#if MJ_VALUE_IS_INDEX
            v[i] = src.va0 ? from[g] : (mj_value)g;
#else
            v[i] = from[g];
#endif
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = j0 + 32 * i;
        if (j < total) dst[j] = v[i];
    }
}

#endif
