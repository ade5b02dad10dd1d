/* The work of a queued merge pass (see work_queue.h): a persistent grid takes jobs from the
 * merge queue until it is empty, then a second one does the same with the copy queue. A merge
 * is mergesort's tile merge (segmented sorts lock the settled segments in place); a copy moves
 * a tile unchanged. The copies have a kernel of their own: beside the merge, which needs nearly
 * every register its occupancy bound allows, a copy with all of its loads in flight made ptxas
 * spill, and one load in flight at a time copies at a fraction of the bandwidth. */
#ifndef MJ_KERNEL_QUEUE_WORK_CUH
#define MJ_KERNEL_QUEUE_WORK_CUH

#include "spec_default.cuh"
#include "merge_frame.h"
#include "work_queue.h"
#include "cta_merge.cuh"
#include "kernel_queue_partition.cuh"

/* The next job of a queue for the whole block, or -1 when it is empty. */
MJ_DEVICE int mj_next_job(const int *queue, const int *counters, int queued, int taken,
                          int *s_job) {
    __syncthreads(); /* every thread is done with the previous job and with *s_job */
    if (threadIdx.x == 0) {
        /* The queue's length is fixed before the kernel starts. Most blocks of a late pass find
         * the queue empty: a plain read of the taken count first spares them the atomic on a
         * counter that every block of the grid hits. */
        int end = counters[queued];
        int i = ((const volatile int *)counters)[taken] < end
                    ? atomicAdd((int *)&counters[taken], 1)
                    : end;
        *s_job = i < end ? queue[i] : -1;
    }
    __syncthreads();
    return *s_job;
}

/* Inside the job loop ptxas keeps far more registers live than the same merge needs once (over
 * 128 for 4-byte keys at NT 256, with spills on sm_75); asking for 768 resident threads keeps it
 * near the one-shot merge kernels and leaves the SM room for several blocks. */
#define MJ_QW_MIN_BLOCKS (MJ_NT >= 768 ? 1 : 768 / MJ_NT)

extern "C" __global__ void __launch_bounds__(MJ_NT, MJ_QW_MIN_BLOCKS)
mj_queue_work(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
              mj_value *values_out, const mj_i64 *partitions, const mj_heads_range *lists,
              mj_i64 n, mj_i64 coop, mj_i64 tiles, const int *merge_queue, int *counters) {
    MJ_CTA_MERGE_SHARED(s_keys, s_pos);
    __shared__ int s_job;
    int tid = threadIdx.x;
    for (;;) {
        mj_i64 tile = mj_next_job(merge_queue, counters, MJ_Q_MERGES, MJ_Q_MERGES_TAKEN, &s_job);
        if (tile < 0) break;
        mj_frame f = mj_sort_frame(tile, coop, MJ_NV, n);
        mj_i64 p_end = mj_tile_ends_frame(tile, coop, tiles) ? f.a_count : partitions[tile + 1];
        mj_range r = mj_sort_range(f, tile, coop, MJ_NV, partitions[tile], p_end);
        int a_len = (int)(r.a_end - r.a_begin);
        int total = a_len + (int)(r.b_end - r.b_begin);
        mj_seg seg = {0, total};
#if MJ_SEGMENTED
        mj_heads_range ha, hb;
        mj_list_heads(lists, f, tile / coop, &ha, &hb);
        mj_tile_locks(f, r, mj_frame_locks(f, ha, hb), &seg.a_lock, &seg.b_lock);
#else
        (void)lists;
#endif
        mj_i64 out0 = tile * MJ_NV;
        mj_cta_merge(keys_in, values_in, r.a_begin, a_len, keys_in, values_in, r.b_begin,
                     total, seg, keys_out + out0, values_out + out0, s_keys, s_pos, tid);
    }
}

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_queue_copy(const mj_key *keys_in, const mj_value *values_in, mj_key *keys_out,
              mj_value *values_out, mj_i64 n, const int *copy_queue, int *counters) {
    __shared__ int s_job;
    int tid = threadIdx.x;
    for (;;) {
        mj_i64 tile = mj_next_job(copy_queue, counters, MJ_Q_COPIES, MJ_Q_COPIES_TAKEN, &s_job);
        if (tile < 0) break;
        mj_i64 out0 = tile * MJ_NV;
        int count = (int)mj_min((mj_i64)MJ_NV, n - out0);
        mj_copy_tile<MJ_NT>(keys_in + out0, count, keys_out + out0, tid);
#if MJ_HAS_VALUES
        mj_copy_tile<MJ_NT>(values_in + out0, count, values_out + out0, tid);
#else
        (void)values_in;
        (void)values_out;
#endif
    }
}

#endif
