/* The work of a queued merge pass (see work_queue.h): block i merges the tile of job i of the
 * queue. The host launches a block for every tile, as it does not know the queue's length
 * without waiting for the partition kernel; the blocks past the end leave at once. (A
 * persistent grid that loops over the queue needs no such blocks, but inside the loop ptxas
 * keeps about twice the registers live that one merge needs: 159 against 72 for 8-byte keys
 * with values at NT 128, or spills under an occupancy bound.) A merge is mergesort's tile
 * merge (segmented sorts lock the settled segments in place), reading each input from the
 * buffer that holds its tile and writing to the other one. After the last pass,
 * mj_queue_finish brings the tiles left in scratch back to the result buffer. */
#ifndef MJ_KERNEL_QUEUE_WORK_CUH
#define MJ_KERNEL_QUEUE_WORK_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/work_queue.h"
#include "block/cta_merge.cuh"
#include "block/queue_tiles.cuh"

/* A tile's runs r of a queued pass, each read from the buffers that hold its (at most two)
 * tiles. */
MJ_DEVICE mj_merge_src mj_located_runs(const mj_key *k0, const mj_value *v0, const mj_key *k1,
                                       const mj_value *v1, const mj_u8 *where, mj_range r) {
    mj_merge_src s;
    int a_len = (int)(r.a_end - r.a_begin), b_len = (int)(r.b_end - r.b_begin);
    mj_i64 ta = r.a_begin / MJ_NV, tb = r.b_begin / MJ_NV;
    s.a_begin = r.a_begin;
    s.b_begin = r.b_begin;
    s.a_len = a_len;
    s.a_split = mj_run_split(r.a_begin, a_len, MJ_NV);
    s.b_split = a_len + mj_run_split(r.b_begin, b_len, MJ_NV);
    /* An empty run's begin may be n, past the last tile: its arrays are never read. */
    s.ka0 = a_len ? mj_buffer(where, ta, k0, k1) : k0;
    s.va0 = a_len ? mj_buffer(where, ta, v0, v1) : v0;
    s.ka1 = s.a_split < a_len ? mj_buffer(where, ta + 1, k0, k1) : s.ka0;
    s.va1 = s.a_split < a_len ? mj_buffer(where, ta + 1, v0, v1) : s.va0;
    s.kb0 = b_len ? mj_buffer(where, tb, k0, k1) : k0;
    s.vb0 = b_len ? mj_buffer(where, tb, v0, v1) : v0;
    s.kb1 = s.b_split < a_len + b_len ? mj_buffer(where, tb + 1, k0, k1) : s.kb0;
    s.vb1 = s.b_split < a_len + b_len ? mj_buffer(where, tb + 1, v0, v1) : s.vb0;
    return s;
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_queue_work(mj_key *keys0, mj_value *values0, mj_key *keys1, mj_value *values1,
              const mj_u8 *where, const mj_i64 *partitions, const mj_heads_range *lists,
              mj_i64 n, mj_i64 coop, mj_i64 tiles, const int *queue, const int *queued) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    if ((int)blockIdx.x >= *queued) return;
    mj_i64 tile = queue[blockIdx.x];
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    mj_i64 p_end = mj_tile_ends_frame(tile, coop, tiles) ? f.a_count : partitions[tile + 1];
    mj_range r = mj_sort_range(f, tile, coop, MJ_NV, partitions[tile], p_end);
    int total = (int)(r.a_end - r.a_begin + r.b_end - r.b_begin);
    mj_seg seg = {0, total};
#if MJ_SEGMENTED
    mj_heads_range ha, hb;
    mj_list_heads(lists, f, tile / coop, &ha, &hb);
    mj_tile_locks(f, r, mj_frame_locks(f, ha, hb), &seg.a_lock, &seg.b_lock);
#else
    (void)lists;
#endif
    mj_merge_src src = mj_located_runs(keys0, values0, keys1, values1, where, r);
    mj_i64 out0 = tile * MJ_NV;
    /* The other buffer than the tile's own. */
    mj_key *kout = mj_buffer(where, tile, keys1, keys0) + out0;
    mj_value *vout = mj_buffer(where, tile, values1, values0) + out0;
    mj_cta_merge(src, total, seg, false, kout, vout, s_keys, s_pos, threadIdx.x);
}

/* After the last pass: tile blockIdx.x back from scratch to the result, if it is there. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_queue_finish(mj_key *keys0, mj_value *values0, const mj_key *keys1,
                const mj_value *values1, const mj_u8 *where, mj_i64 n) {
    mj_i64 out0 = (mj_i64)blockIdx.x * MJ_NV;
    if (!(where[blockIdx.x] & MJ_IN_SCRATCH)) return;
    int count = (int)mj_min((mj_i64)MJ_NV, n - out0);
    mj_copy_tile<MJ_NT>(keys1 + out0, count, keys0 + out0, threadIdx.x);
#if MJ_HAS_VALUES
    mj_copy_tile<MJ_NT>(values1 + out0, count, values0 + out0, threadIdx.x);
#else
    (void)values0;
    (void)values1;
#endif
}

#endif
