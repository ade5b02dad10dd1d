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

/* Declares a kernel's shared memory for mj_cta_merge: keys, and positions when values are
 * carried (else a null pointer that is never used). */
#if MJ_HAS_VALUES
#define MJ_CTA_MERGE_SHARED(keys, pos) \
    __shared__ mj_key keys[MJ_NV];     \
    __shared__ int pos[MJ_NV]
#else
#define MJ_CTA_MERGE_SHARED(keys, pos) \
    __shared__ mj_key keys[MJ_NV];     \
    int *pos = 0
#endif

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

    mj_store_by_warps<MJ_NT>(keys, s_keys, total, out, map_out, tid);
#if MJ_HAS_VALUES
    mj_regs_to_shared(at, s_pos, tid);
    __syncwarp();
    mj_gather_values(s_pos, total, src, vout, tid);
#else
    (void)vout;
    (void)s_pos;
#endif
}

#endif
