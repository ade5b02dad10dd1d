/* Multiset operations (std::set_intersection, set_union, set_difference and
 * set_symmetric_difference over sorted a and b; see shared/balanced_path.h), in two kernels:
 *   mj_setop_partition: the balanced path's crossing of every tile's first diagonal;
 *   mj_setop_tiles: each tile walks its part of the path, finds where its output starts with
 *     a decoupled look-back over the tiles' counts (one pass over the input, as the scan
 *     primitive's), stores what it emits and, the last, the total.
 * The operation is the `keep` argument (MJ_KEEP_*), so one module serves all four. */
#ifndef MJ_KERNEL_SETOPS_CUH
#define MJ_KERNEL_SETOPS_CUH

#include "common/spec_default.cuh"
#include "shared/merge_frame.h"
#include "shared/balanced_path.h"
#include "thread/merge_path.cuh"
#include "thread/balanced_search.cuh"
#include "block/tile_io.cuh"
#include "block/cta_count_scan.cuh"

/* partitions[t] for t in [0, tiles]: the balanced path's crossing of diagonal t * MJ_NV
 * (mj_bp_entry). A group of `lanes` threads an entry finds the merge path's split
 * (mj_search_lanes, as mergesort's partitions), its first lane the runs around it. */
extern "C" __global__ void __launch_bounds__(MJ_SETOP_PARTITION_NT)
mj_setop_partition(const mj_key *a, mj_i64 a_count, const mj_key *b, mj_i64 b_count,
                   mj_i64 tiles, mj_i64 *partitions, int lanes) {
    mj_i64 t = ((mj_i64)blockIdx.x * MJ_SETOP_PARTITION_NT + threadIdx.x) / lanes;
    /* Groups past the end search an empty range: their lanes still take part in the ballots. */
    mj_i64 diag = t <= tiles ? mj_min(t * MJ_NV, a_count + b_count) : 0;
    mj_i64 ai = mj_group_merge_path(lanes, a, a_count, b, b_count, diag);
    if (t <= tiles && (threadIdx.x & (lanes - 1)) == 0) {
        int star;
        ai = mj_balance_split(a, b, b_count, diag, ai, &star);
        partitions[t] = mj_bp_entry(ai, star);
    }
}

/* A tile's shared memory: its elements (a's part, then b's; one more than a tile when its
 * end is starred), each thread's start on the path (and the tile's end after them), and the
 * count scan's warp totals. */
#define MJ_SETOP_SHARED(name)                                                                   \
    __shared__ mj_key name##_keys[MJ_NV + 1];                                                   \
    __shared__ int name##_a[MJ_NT + 1], name##_b[MJ_NT + 1];                                    \
    __shared__ int name##_warps[MJ_COUNT_SCAN_WARPS]

/* Loads the tile's elements (a[r.a0, r.a1), then b[r.b0, r.b1)) into s, finds each thread's
 * part of the tile's path (the balanced path at its first diagonal, tid * MJ_VT, up to the
 * next thread's) and walks it, a slot a step: bit i of the result is set when step i emits,
 * pos[i] then holds the emitted element's tile position. A thread's part has at most MJ_VT
 * slots (MJ_VT + 1 elements only when it ends with a pair). Reads stay inside the tile
 * whatever the input; unsorted input only changes what is emitted, never more than MJ_VT a
 * thread. */
MJ_DEVICE mj_u64 mj_setop_walk(const mj_key *a, const mj_key *b, const mj_setop_range &r,
                               int keep, mj_key *s, int *s_a, int *s_b, int pos[MJ_VT],
                               int tid) {
    int a_len = (int)(r.a1 - r.a0), total = a_len + (int)(r.b1 - r.b0);
    mj_merge_src src = mj_two_runs(a, 0, r.a0, a_len, b, 0, r.b0, total);
    mj_load_to_shared<MJ_NT>(src, mj_min(total, MJ_NV), s, tid);
    if (tid == 0 && total > MJ_NV)
        s[MJ_NV] = MJ_NV < a_len ? a[r.a0 + MJ_NV] : b[r.b0 + (MJ_NV - a_len)];
    __syncthreads();

    int diag = mj_min(MJ_VT * tid, total), star;
    int pa = mj_balanced_path(s, a_len, s + a_len, total - a_len, diag, &star);
    s_a[tid] = pa;
    s_b[tid] = diag - pa + star;
    if (tid == 0) {
        s_a[MJ_NT] = a_len;
        s_b[MJ_NT] = total - a_len;
    }
    __syncthreads();

    int i_a = s_a[tid], a_end = s_a[tid + 1];
    int i_b = s_b[tid], b_end = s_b[tid + 1];
    /* A run's head past its end is read from s[0]: in the tile, and never used. */
    mj_key ka = s[i_a < a_end ? i_a : 0], kb = s[i_b < b_end ? a_len + i_b : 0];
    mj_u64 emit = 0;
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        bool has_a = i_a < a_end, has_b = i_b < b_end, both = has_a && has_b;
        bool a_before = both && mj_less(ka, kb), b_before = both && mj_less(kb, ka);
        bool a_only = has_a && (!has_b || a_before);
        bool b_only = has_b && (!has_a || b_before);
        bool pair = both && !a_before && !b_before;
        int kind = a_only ? MJ_KEEP_A : b_only ? MJ_KEEP_B : pair ? MJ_KEEP_PAIR : 0;
        if (kind & keep) emit |= 1ull << i;
        pos[i] = b_only ? a_len + i_b : i_a;
        if (a_only || pair) {
            ++i_a;
            ka = s[i_a < a_end ? i_a : 0];
        }
        if (b_only || pair) {
            ++i_b;
            kb = s[i_b < b_end ? a_len + i_b : 0];
        }
    }
    return emit;
}

/* A tile's state for the look-back: its count (AGGREGATE) or the count of every tile up to
 * and including it (PREFIX) in the low 62 bits, the status in the top two; a 64-bit word is
 * written and read whole, so a status is never seen without its count. */
#define MJ_COUNT_AGGREGATE (1ull << 62)
#define MJ_COUNT_PREFIX (2ull << 62)
#define MJ_COUNT_BITS (MJ_COUNT_AGGREGATE - 1)

/* Warp 0 of tile `tile`'s block (tiles numbered in the order their blocks started, so every
 * earlier tile's block is running or done): publishes the tile's count, sums the counts of
 * the tiles before it, 32 tiles a round, back to the nearest one whose prefix is known,
 * publishes its own prefix and returns the sum (in every lane). */
MJ_DEVICE mj_u64 mj_count_look_back(mj_u64 *states, mj_i64 tile, mj_u64 count, int lane) {
    volatile mj_u64 *st = states;
    if (lane == 0) st[tile] = (tile == 0 ? MJ_COUNT_PREFIX : MJ_COUNT_AGGREGATE) | count;
    if (tile == 0) return 0;
    mj_u64 before = 0;
    for (mj_i64 end = tile;; end -= 32) {
        mj_i64 pred = end - 32 + lane;
        mj_u64 w;
        do {
            w = pred >= 0 ? st[pred] : MJ_COUNT_PREFIX; /* before the first tile: nothing */
        } while (__any_sync(0xFFFFFFFFu, (w >> 62) == 0));
        unsigned prefixes = __ballot_sync(0xFFFFFFFFu, (w & MJ_COUNT_PREFIX) != 0);
        int stop = prefixes ? 31 - __clz(prefixes) : 0;
        mj_u64 v = lane >= stop ? w & MJ_COUNT_BITS : 0;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, d);
        before += v;
        if (prefixes) break;
    }
    if (lane == 0) st[tile] = MJ_COUNT_PREFIX | (before + count);
    return before;
}

/* One block a tile, numbered in the order the blocks start (the counter after the states;
 * states and counter all zero before the launch): walks the tile's part of the path, numbers
 * what it emits (a block scan of the threads' counts), learns how many the tiles before it
 * emit (mj_count_look_back), and stores its elements from there: keys from shared memory,
 * values from global memory, coalesced, only below cap (what the output holds) whatever the
 * input. The last tile writes the total, at most cap, to *out_count. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_setop_tiles(const mj_key *a_keys, const mj_value *a_values, mj_i64 a_count,
               const mj_key *b_keys, const mj_value *b_values, mj_i64 b_count,
               const mj_i64 *partitions, int keep, mj_u64 *states, mj_key *out_keys,
               mj_value *out_values, mj_i64 cap, mj_u64 *out_count) {
    MJ_SETOP_SHARED(s);
    __shared__ int s_pos[MJ_NV]; /* the emitted elements' tile positions, in output order */
    __shared__ mj_setop_range s_range;
    __shared__ mj_i64 s_tile, s_base;
    int tid = threadIdx.x;
    mj_i64 tiles = gridDim.x;
    /* One thread numbers the tile and works out its range (64-bit arithmetic the other
     * threads need not repeat); the barrier waits for the counter anyway. */
    if (tid == 0) {
        mj_i64 t = (mj_i64)atomicAdd(states + tiles, 1ull);
        s_tile = t;
        s_range = mj_setop_tile_range(t, MJ_NV, a_count, b_count, partitions[t],
                                      partitions[t + 1]);
    }
    __syncthreads();
    mj_i64 tile = s_tile;
    mj_setop_range r = s_range;
    int pos[MJ_VT];
    mj_u64 emit = mj_setop_walk(a_keys, b_keys, r, keep, s_keys, s_a, s_b, pos, tid);
    int slot = mj_cta_count_scan(__popcll(emit), s_warps, tid);
    /* The tile's count from the warp totals: no barrier of its own, and warp 0's look-back
     * overlaps the other warps' compaction. */
    int count = mj_cta_count_total(s_warps);
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i)
        if (emit >> i & 1) s_pos[slot++] = pos[i];
    if (tid < 32) {
        mj_u64 before = mj_count_look_back(states, tile, (mj_u64)count, tid);
        if (tid == 0) {
            s_base = (mj_i64)before;
            if (tile == tiles - 1) *out_count = (mj_u64)mj_min((mj_i64)before + count, cap);
        }
    }
    __syncthreads();

    /* What fits below cap, so that the stores index in 32 bits. */
    mj_i64 out_base = s_base, room = mj_max(cap - out_base, (mj_i64)0);
    int stored = room < count ? (int)room : count;
    out_keys += out_base;
    int a_len = (int)(r.a1 - r.a0);
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        int j = tid + MJ_NT * i;
        if (j < stored) out_keys[j] = s_keys[s_pos[j]];
    }
    if (MJ_HAS_VALUES) {
        /* Every load before the first store: a thread has MJ_VT loads in flight. */
        const mj_value *av = a_values + r.a0, *bv = b_values + (r.b0 - a_len);
        out_values += out_base;
        mj_value v[MJ_VT];
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < stored) {
                int p = s_pos[j];
                v[i] = (p < a_len ? av : bv)[p];
            }
        }
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < stored) out_values[j] = v[i];
        }
    }
}

#endif
