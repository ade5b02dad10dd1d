/* Coarse partitioning of a queued merge pass (segmented and locality sort; see work_queue.h):
 * the merge path split of every tile, as in mergesort, then each tile's job, pushed onto the
 * merge queue, and where the tile's data will be after the pass. A block of MJ_QP_NT threads,
 * a group of `lanes` a tile (mj_search_lanes), finds the splits of MJ_QP_NT / lanes tiles and
 * queues the jobs of all but the last (a job needs its tile's split and the next), so one
 * kernel does both. Segmented sorts also combine the lists' head ranges for the next pass. */
#ifndef MJ_KERNEL_QUEUE_PARTITION_CUH
#define MJ_KERNEL_QUEUE_PARTITION_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/work_queue.h"
#include "thread/merge_path.cuh"
#include "block/tile_io.cuh"
#include "block/queue_tiles.cuh"

extern "C" __global__ void __launch_bounds__(MJ_QP_NT)
mj_queue_partition(const mj_key *keys0, const mj_key *keys1, const mj_u8 *where_in,
                   mj_u8 *where_out, mj_i64 n, mj_i64 coop, mj_i64 tiles,
                   const mj_heads_range *lists_in, mj_heads_range *lists_out,
                   mj_i64 *partitions, int *queue, int *queued, int lanes) {
    __shared__ mj_i64 s_split[MJ_QP_NT];
    int tid = threadIdx.x, slot = tid / lanes, per_block = MJ_QP_NT / lanes;
    bool lead = (tid & (lanes - 1)) == 0;
    mj_i64 tile = (mj_i64)blockIdx.x * (per_block - 1) + slot;
    bool real = tile < tiles;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    /* Groups past the end search an empty range: their lanes still take part in the ballots. */
    mj_i64 diag = real ? mj_min(mj_tile_diag(tile, coop, MJ_NV), f.a_count + f.b_count) : 0;
    mj_located_keys a = {keys0, keys1, where_in, f.a0}, b = {keys0, keys1, where_in, f.b0};
#if MJ_SEGMENTED
    mj_heads_range ha = {MJ_NO_FIRST, -1}, hb = ha;
    if (real) mj_list_heads(lists_in, f, tile / coop, &ha, &hb);
    mj_frame_lock l = mj_frame_locks(f, ha, hb);
    mj_i64 p = mj_group_seg_merge_path(lanes, a, f.a_count, b, diag, l.a_lock, l.b_lock);
    if (real && lead && (tile & (coop - 1)) == 0)
        lists_out[tile / coop] = mj_heads_combine(ha, hb);
#else
    (void)lists_in;
    (void)lists_out;
    mj_i64 p = mj_group_merge_path(lanes, a, f.a_count, b, f.b_count, diag);
#endif
    if (real && lead) {
        s_split[slot] = p;
        partitions[tile] = p;
    }
    __syncthreads();

    int job = MJ_JOB_NONE;
    if (lead && slot < per_block - 1 && real) {
        mj_i64 p_end = mj_tile_ends_frame(tile, coop, tiles) ? f.a_count : s_split[slot + 1];
        mj_range r = mj_sort_range(f, tile, coop, MJ_NV, s_split[slot], p_end);
        int where = where_in[tile];
        job = mj_tile_job(r, tile * MJ_NV, where);
        /* A merge writes its tile to the other buffer. */
        where_out[tile] = (mj_u8)(job == MJ_JOB_MERGE ? where ^ MJ_IN_SCRATCH : where);
    }
    /* One atomic per warp. */
    int lane = tid & 31;
    unsigned merges = __ballot_sync(0xffffffffu, job == MJ_JOB_MERGE);
    int at = 0;
    if (lane == 0 && merges) at = atomicAdd(queued, __popc(merges));
    at = __shfl_sync(0xffffffffu, at, 0);
    if (job == MJ_JOB_MERGE) queue[at + __popc(merges & ((1u << lane) - 1))] = (int)tile;
}

#endif
