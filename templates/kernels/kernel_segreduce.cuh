/* Segmented reduction (Modern GPU's segreduce over its load-balancing search). The elements
 * 0..n-1 merged with the segments' offsets, an offset before the element equal to it, is
 * load-balancing search's merge (cta_load_balance.cuh), cut into tiles of MJ_LBS_NV outputs:
 * a tile's work is bounded whatever the mix of segment lengths. Meeting offset g ends segment
 * g - 1 (for g > 0) and opens segment g; what comes before offset 0 or after the last offset
 * reaches no result.
 * A thread walks MJ_VT outputs combining elements in order (a tile of few offsets: folds MJ_VT
 * elements, meeting the offsets among them, without the merge's steps): a segment opened and
 * ended within its walk is written at once; what precedes its first offset (its head) and what
 * follows its last (its tail) cross threads by a segmented scan of (offset met, tail) pairs
 * over the block, and tiles by the decoupled look-back (block/cta_look_back.cuh, over the
 * scan's value states, value_states.cuh): a tile that meets an offset publishes its inclusive
 * prefix (its tail) at once, so a look-back only passes tiles that lie inside one segment;
 * such a tile only publishes its sum and leaves (but every 32nd, which looks back too), so
 * long segments cost a read of their elements and little waiting. Tiles are numbered by a
 * counter in the order blocks start, as the scan's are. */
#ifndef MJ_KERNEL_SEGREDUCE_CUH
#define MJ_KERNEL_SEGREDUCE_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "thread/index_array.cuh"
#include "warp/warp_shfl.cuh"
#include "block/cta_scan.cuh"
#include "block/cta_load_balance.cuh"
#include "block/value_states.cuh"

/* Tiles with at most this many offsets fold their slots in order, not by the walk
 * (mean segment length at least MJ_LBS_NV / MJ_SEGREDUCE_FEW, about 60 at 128 x 15). */
#define MJ_SEGREDUCE_FEW (MJ_NT / 4)

/* partitions[t] for t in [0, tiles]: lbs's coarse partition of the merge of the n elements
 * with the `count` offsets. */
extern "C" __global__ void __launch_bounds__(MJ_LBS_PARTITION_THREADS)
mj_segreduce_partition(const void *offsets, int index_size, mj_i64 count, mj_i64 n,
                       mj_i64 tiles, mj_i64 *partitions) {
    mj_lbs_partition_entry(mj_indices(offsets, index_size), count, n, tiles, partitions);
}

/* The segmented scan's element: the elements since the last offset met (all of a run's when
 * it met none), and whether it met one. */
struct mj_seg_carry {
    mj_key v;
    int met;
};

/* a, then b: b's elements alone when b met an offset. Associative, and in order. */
MJ_DEVICE mj_seg_carry mj_seg_combine(const mj_seg_carry &a, const mj_seg_carry &b) {
    mj_seg_carry c;
    c.v = b.met ? b.v : mj_op(a.v, b.v);
    c.met = a.met | b.met;
    return c;
}

/* The walk's visit, over a thread's state: acc combines the elements since the last offset;
 * head keeps what preceded the first one, first that offset's index. */
struct mj_segreduce_visit {
    const mj_key *s_in; /* the tile's elements */
    mj_key *out;
    mj_i64 y0; /* the tile's first offset */
    mj_key *acc, *head;
    mj_i64 *first;
    MJ_DEVICE void operator()(int x, int y, int, int item) const {
        if (item) {
            *acc = mj_op(*acc, s_in[x]);
            return;
        }
        mj_i64 g = y0 + y;
        if (*first < 0) {
            *head = *acc;
            *first = g;
        } else {
            out[g - 1] = *acc; /* segment g - 1 opened at an earlier offset of this walk */
        }
        *acc = mj_identity();
    }
};

/* in: n elements; offsets: `count` offsets of index_size bytes (count >= 2); out: count - 1
 * results; partitions: mj_segreduce_partition's; state, values: the scan's look-back storage
 * for this launch's tiles (all zero before it), one block a tile. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_segreduce_tiles(const mj_key *in, mj_i64 n, const void *offsets, int index_size,
                   mj_i64 count, const mj_i64 *partitions, mj_key *out, mj_u32 *state,
                   mj_key_words *values) {
    __shared__ int s_off[MJ_LBS_NV + 1]; /* relative to the tile's first element */
    __shared__ mj_key s_in[MJ_LBS_NV];
    __shared__ mj_seg_carry s_warp[MJ_SCAN_WARPS];
    __shared__ mj_key s_prefix;
    __shared__ int s_id;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    mj_i64 tiles = mj_lbs_tile_count(n, count, MJ_LBS_NV);
    mj_u32 *states = state + (MJ_PAIRED_STATE ? 4 : 2);
    mj_value_states st = {(mj_u64 *)states, states, values, values + tiles};
    if (tid == 0) s_id = (int)atomicAdd(state, 1u);
    __syncthreads();
    int tile = s_id;

    /* The tile's elements into shared memory, coalesced, the identity past them; the walk's
     * barrier (or the one of a tile with few offsets) publishes them. */
    mj_lbs_range r = mj_lbs_tile_range(tile, MJ_LBS_NV, n, count, partitions[tile],
                                       partitions[tile + 1]);
    int nx = (int)(r.x1 - r.x0), ny = (int)(r.y1 - r.y0);
    mj_key x[MJ_VT];
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k)
        if (tid + k * MJ_NT < nx) x[k] = in[r.x0 + tid + k * MJ_NT];
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k)
        s_in[tid + k * MJ_NT] = tid + k * MJ_NT < nx ? x[k] : mj_identity();

    /* The walk takes the block's tile as `first + blockIdx.x` and its partition entries at
     * blockIdx.x: shifted by the same amount, both name the counter's tile. */
    mj_i64 shift = (mj_i64)tile - (mj_i64)blockIdx.x;
    mj_key acc = mj_identity(), head = acc;
    mj_i64 first = -1;
    if (ny <= MJ_SEGREDUCE_FEW) {
        /* Few offsets (none in most tiles when segments are long): each thread folds its
         * MJ_VT slots from tid * MJ_VT, each after the offsets at it, in the walk's order but
         * not step by step of the merge: a test a slot, no bound (past the elements the slots
         * hold the identity). The threads' offsets are then unbalanced, which few keep cheap. */
        if (ny > 0)
            mj_cta_lbs_load(mj_indices(offsets, index_size), count, n, partitions + shift, s_off,
                            tid, shift, true, false);
        __syncthreads();
        int x0 = tid * MJ_VT;
        if (ny == 0) { /* inside one segment: no offset to meet */
#pragma unroll
            for (int k = 0; k < MJ_VT; ++k) acc = mj_op(acc, s_in[x0 + k]);
        } else {
            const int *tile_off = s_off + (r.y0 > 0);
            /* The first offset at or after the thread's first slot. */
            int y = mj_index_lower_bound(tile_off, ny, x0);
            int next = y < ny ? tile_off[y] : MJ_LBS_NV + 2; /* past every slot */
#pragma unroll
            for (int k = 0; k < MJ_VT; ++k) {
                while (next == x0 + k) {
                    mj_i64 g = r.y0 + y;
                    if (first < 0) {
                        head = acc;
                        first = g;
                    } else { /* g > first >= 0: offsets are met in order */
                        out[g - 1] = acc;
                    }
                    acc = mj_identity();
                    ++y;
                    next = y < ny ? tile_off[y] : MJ_LBS_NV + 2;
                }
                acc = mj_op(acc, s_in[x0 + k]);
            }
        }
    } else {
        mj_segreduce_visit visit = {s_in, out, r.y0, &acc, &head, &first};
        mj_cta_lbs_walk(mj_indices(offsets, index_size), count, n, partitions + shift, s_off,
                        tid, visit, shift, true);
    }

    /* Exclusive segmented scan of the threads' (met, tail) over the block. */
    mj_seg_carry in_warp = {acc, first >= 0};
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        mj_seg_carry y = {mj_shfl_up_key(in_warp.v, d),
                          __shfl_up_sync(0xFFFFFFFFu, in_warp.met, d)};
        if (lane >= d) in_warp = mj_seg_combine(y, in_warp);
    }
    if (lane == 31) s_warp[warp] = in_warp;
    mj_seg_carry prev_lane = {mj_shfl_up_key(in_warp.v, 1),
                              __shfl_up_sync(0xFFFFFFFFu, in_warp.met, 1)};
    __syncthreads();
    mj_seg_carry before = {mj_identity(), 0};
#pragma unroll
    for (int w = 0; w < MJ_SCAN_WARPS; ++w)
        if (w < warp) before = mj_seg_combine(before, s_warp[w]);
    if (lane) before = mj_seg_combine(before, prev_lane);

    if (warp == 0) {
        mj_seg_carry total = s_warp[0];
#pragma unroll
        for (int w = 1; w < MJ_SCAN_WARPS; ++w) total = mj_seg_combine(total, s_warp[w]);
        if (ny == 0 && (tile & 31) != 31) {
            /* A tile inside one segment writes nothing and needs nothing from the tiles
             * before it: it publishes its sum and is done. Every 32nd such tile still looks
             * back and publishes its prefix, so that the look-backs through them stay short. */
            if (lane == 0) st.publish(tile, false, total.v);
        } else {
            /* A tile that ends a segment publishes its prefix at once: nothing before it
             * reaches past its first offset. */
            mj_key prior = mj_look_back(st, tile, total.v, total.met != 0, lane,
                                        mj_key_sum());
            if (lane == 0) s_prefix = prior;
        }
    }
    __syncthreads();
    /* The segment this thread's first offset ends: what reached the thread, then its head. */
    if (first > 0) {
        mj_key carry = before.met ? before.v : mj_op(s_prefix, before.v);
        out[first - 1] = mj_op(carry, head);
    }
}

#endif
