/* Coarse partitioning of a queued merge pass (segmented and locality sort; see work_queue.h):
 * the merge path split of every tile, as in mergesort, then each tile's job, pushed onto the
 * merge or copy queue. A block of MJ_QP_NT threads finds the splits of MJ_QP_NT tiles and
 * queues the jobs of the first MJ_QP_NT - 1 (a job needs its tile's split and the next), so
 * one kernel does both. Segmented sorts also combine the lists' head ranges for the next pass. */
#ifndef MJ_KERNEL_QUEUE_PARTITION_CUH
#define MJ_KERNEL_QUEUE_PARTITION_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "work_queue.h"
#include "merge_path.cuh"
#include "tile_io.cuh"

/* The head ranges of the frame's two lists (none for a missing B list). */
MJ_DEVICE void mj_list_heads(const mj_heads_range *lists, mj_frame f, mj_i64 frame,
                             mj_heads_range *a, mj_heads_range *b) {
    mj_heads_range none = {MJ_NO_FIRST, -1};
    *a = lists[2 * frame];
    *b = f.b_count > 0 ? lists[2 * frame + 1] : none;
}

extern "C" __global__ void __launch_bounds__(MJ_QP_NT)
mj_queue_partition(const mj_key *keys, mj_i64 n, mj_i64 coop, mj_i64 tiles,
                   const mj_heads_range *lists_in, mj_heads_range *lists_out,
                   mj_i64 *partitions, mj_u8 *states, int *merge_queue, int *copy_queue,
                   int *counters) {
    __shared__ mj_i64 s_split[MJ_QP_NT];
    int tid = threadIdx.x;
    mj_i64 tile = (mj_i64)blockIdx.x * (MJ_QP_NT - 1) + tid;
    mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
    if (tile < tiles) {
        mj_i64 diag = mj_min(mj_tile_diag(tile, coop, MJ_NV), f.a_count + f.b_count);
#if MJ_SEGMENTED
        mj_heads_range ha, hb;
        mj_list_heads(lists_in, f, tile / coop, &ha, &hb);
        mj_frame_lock l = mj_frame_locks(f, ha, hb);
        mj_i64 p = mj_seg_merge_path(keys + f.a0, f.a_count, keys + f.b0, diag, l.a_lock,
                                     l.b_lock);
        if ((tile & (coop - 1)) == 0) lists_out[tile / coop] = mj_heads_combine(ha, hb);
#else
        (void)lists_in;
        (void)lists_out;
        mj_i64 p = mj_merge_path(keys + f.a0, f.a_count, keys + f.b0, f.b_count, diag);
#endif
        s_split[tid] = p;
        partitions[tile] = p;
    }
    __syncthreads();

    int job = MJ_JOB_NONE;
    if (tid < MJ_QP_NT - 1 && tile < tiles) {
        mj_i64 p_end = mj_tile_ends_frame(tile, coop, tiles) ? f.a_count : s_split[tid + 1];
        mj_range r = mj_sort_range(f, tile, coop, MJ_NV, s_split[tid], p_end);
        int state = states[tile];
        job = mj_tile_job(r, tile * MJ_NV, state);
        if (job != MJ_JOB_NONE) states[tile] = (mj_u8)mj_tile_state_after(job, state);
    }
    /* One atomic per warp and queue. */
    int lane = tid & 31;
    unsigned below = (1u << lane) - 1;
    unsigned merges = __ballot_sync(0xffffffffu, job == MJ_JOB_MERGE);
    unsigned copies = __ballot_sync(0xffffffffu, job == MJ_JOB_COPY);
    int merge_at = 0, copy_at = 0;
    if (lane == 0 && merges) merge_at = atomicAdd(&counters[MJ_Q_MERGES], __popc(merges));
    if (lane == 0 && copies) copy_at = atomicAdd(&counters[MJ_Q_COPIES], __popc(copies));
    merge_at = __shfl_sync(0xffffffffu, merge_at, 0);
    copy_at = __shfl_sync(0xffffffffu, copy_at, 0);
    if (job == MJ_JOB_MERGE) merge_queue[merge_at + __popc(merges & below)] = (int)tile;
    if (job == MJ_JOB_COPY) copy_queue[copy_at + __popc(copies & below)] = (int)tile;
}

#endif
