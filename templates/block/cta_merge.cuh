/* The fine-grained half of every merge: one block merges one tile of output from two sorted
 * runs in global memory (src, see mj_merge_src: A's a_len elements, then B's up to total <=
 * MJ_NV), stably (A first on ties), into out[0, total), and their values into vout when values
 * are carried. The coarse half, which finds each tile's runs with merge path partitions, is
 * the caller's.
 * The runs are staged in shared memory; each thread finds its own split there and merges MJ_VT
 * outputs; each warp passes its outputs through its own slots of shared memory so that global
 * stores are coalesced. out must not overlap the inputs. seg (tile coordinates: a positions
 * from 0, b positions from a_len) locks segments in place; see serial_merge.cuh. map_out: the
 * merge is the last pass of a sort that holds keys as ordinals (MJ_KEY_MAP; see
 * mj_key_loaded), whose outputs go back to their bits; ignored otherwise. */
#ifndef MJ_CTA_MERGE_CUH
#define MJ_CTA_MERGE_CUH

#include "common/spec_default.cuh"
#include "thread/merge_path.cuh"
#include "thread/serial_merge.cuh"
#include "block/tile_io.cuh"

/* Declares a kernel's shared memory for mj_cta_merge and mj_cta_merge4: keys with MJ_VT slots
 * of padding (for mj_cta_merge4's unclamped heads, below), and positions when values are
 * carried (else a null pointer that is never used). */
#if MJ_HAS_VALUES
#define MJ_CTA_MERGE_SHARED(keys, pos)     \
    __shared__ mj_key keys[MJ_NV + MJ_VT]; \
    __shared__ int pos[MJ_NV]
#else
#define MJ_CTA_MERGE_SHARED(keys, pos)     \
    __shared__ mj_key keys[MJ_NV + MJ_VT]; \
    int *pos = 0
#endif

/* The tile's outputs, in registers in thread order (keys, and at: each one's tile position in
 * src), to out[0, total) and their values to vout. The caller has made sure (a barrier) that no
 * thread still reads s_keys or s_pos. */
MJ_DEVICE void mj_cta_store_merged(const mj_key keys[MJ_VT], const int at[MJ_VT],
                                   const mj_merge_src &src, int total, bool map_out,
                                   mj_key *out, mj_value *vout, mj_key *s_keys, int *s_pos,
                                   int tid) {
    mj_store_by_warps<MJ_NT>(keys, s_keys, total, out, map_out, tid);
#if MJ_HAS_VALUES
    mj_regs_to_shared(at, s_pos, tid);
    __syncwarp();
    mj_gather_values(s_pos, total, src, vout, tid);
#else
    (void)at;
    (void)src;
    (void)vout;
    (void)s_pos;
#endif
}

/* s_keys and s_pos have MJ_NV slots (s_pos is unused without values). */
MJ_DEVICE void mj_cta_merge(const mj_merge_src &src, int total, mj_seg seg, bool map_out,
                            mj_key *out, mj_value *vout, mj_key *s_keys, int *s_pos, int tid) {
    int a_len = src.a_len;
    mj_load_to_shared<MJ_NT>(src, total, s_keys, tid);
    __syncthreads();
    int diag = min(MJ_VT * tid, total);
#if MJ_SEGMENTED
    int p = mj_seg_merge_path(s_keys, a_len, s_keys + a_len, diag, seg.a_lock,
                              seg.b_lock - a_len);
#else
    int p = mj_merge_path(s_keys, a_len, s_keys + a_len, total - a_len, diag);
#endif
    mj_key keys[MJ_VT];
    int at[MJ_VT];
    mj_serial_merge(s_keys, p, a_len, a_len + diag - p, total, seg, keys, at);
    __syncthreads(); /* the tile in s_keys is read; from here on each warp uses its own slots */
    mj_cta_store_merged(keys, at, src, total, map_out, out, vout, s_keys, s_pos, tid);
}

/* A mergesort tile's source: list l's part keys[begin[l], end[l]) (values alike), as the runs
 * A = [L0 | L2] and B = [L1 | L3] that mj_cta_merge4 merges. Each run's second array is the
 * same one shifted so that its part follows the first's in tile positions. */
MJ_DEVICE mj_merge_src mj_four_runs(const mj_key *keys, const mj_value *values,
                                    const mj_i64 begin[4], const mj_i64 end[4]) {
    int len0 = (int)(end[0] - begin[0]), len1 = (int)(end[1] - begin[1]);
    int a_len = len0 + (int)(end[2] - begin[2]);
    mj_merge_src s = mj_two_runs(keys, values, begin[0], a_len, keys, values, begin[1],
                                 a_len + len1 + (int)(end[3] - begin[3]));
    s.a_split = len0;
    s.b_split = a_len + len1;
    /* element j >= a_split of A is ka1[a_begin + j] = keys[begin[2] + j - len0]; B alike */
    s.ka1 = keys + (begin[2] - end[0]);
    s.kb1 = keys + (begin[3] - end[1]);
    s.va1 = values ? values + (begin[2] - end[0]) : values;
    s.vb1 = values ? values + (begin[3] - end[1]) : values;
    return s;
}

/* Whether mj_cta_merge4 reads run heads without clamping them: its tile is loaded with copies
 * of its last key after it (mj_load_to_shared's PAD, serial_merge.cuh's PADDED). H100,
 * bench_sort, 4-way passes at 2^24: u32 keys 1744 -> 1826 GB/s, u64 2073 -> 2099, u32 pairs
 * 1924 -> 1966. A 16-byte struct's kernel went from 62 to 80 registers (three blocks a
 * multiprocessor, not four) and its passes from 1917 to 1827 GB/s: keys over 8 bytes clamp.
 * (mj_cta_merge gained nothing measurable in 2-way passes, and the merge primitive's kernel
 * spilled with it for f64 keys on sm_80.) */
#define MJ_MERGE4_PADDED (sizeof(mj_key) <= 8)

/* One tile of a 4-way mergesort pass (kernel_merge4.cuh) from src = mj_four_runs(...), total <=
 * MJ_NV outputs of up to four lists, stably (the lower list first on ties), into out and vout.
 * Two rounds through shared memory, as the blocksort's: the first merges L0 with L1 and L2 with
 * L3 side by side (one paired merge of A and B, serial_merge.cuh), the second the two results,
 * unless one of them is empty (a tile inside one pair of lists, or the frame's last lists
 * clamped to nothing); each output
 * keeps its position in src for the values. s_keys and s_pos as for mj_cta_merge. */
MJ_DEVICE void mj_cta_merge4(const mj_merge_src &src, int total, bool map_out, mj_key *out,
                             mj_value *vout, mj_key *s_keys, int *s_pos, int tid) {
    int a_len = src.a_len, len0 = src.a_split, len1 = src.b_split - a_len;
    int half = len0 + len1; /* L0 and L1 merged: the first round's first half */
    mj_load_to_shared<MJ_NT, MJ_MERGE4_PADDED>(src, total, s_keys, tid);
    __syncthreads();
    int diag = min(MJ_VT * tid, total);
    /* The paired merge's split is one of its two merges' own. */
    int p = diag <= half ? mj_merge_path(s_keys, len0, s_keys + a_len, len1, diag)
                         : len0 + mj_merge_path(s_keys + len0, a_len - len0,
                                                s_keys + a_len + len1, total - a_len - len1,
                                                diag - half);
    mj_key keys[MJ_VT];
    int at[MJ_VT];
    mj_seg pairs = {len0, a_len + len1};
    mj_serial_merge<true, MJ_MERGE4_PADDED>(s_keys, p, a_len, a_len + diag - p, total, pairs,
                                            keys, at);
    __syncthreads();
    if (half > 0 && half < total) { /* else the first round made the tile (alike in a block) */
        mj_regs_to_shared(keys, s_keys, tid);
#if MJ_HAS_VALUES
        mj_regs_to_shared(at, s_pos, tid);
#endif
        __syncthreads();
        p = mj_merge_path(s_keys, half, s_keys + half, total - half, diag);
        mj_seg whole = {0, total};
        int round2[MJ_VT];
        /* Past total the slots hold the first round's outputs there, copies of real keys. */
        mj_serial_merge<false, MJ_MERGE4_PADDED>(s_keys, p, half, half + diag - p, total, whole,
                                                 keys, round2);
#if MJ_HAS_VALUES
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i)
            at[i] = MJ_VT * tid + i < total ? s_pos[round2[i]] : 0; /* the first round's die */
#endif
        __syncthreads();
    }
    mj_cta_store_merged(keys, at, src, total, map_out, out, vout, s_keys, s_pos, tid);
}

#endif
