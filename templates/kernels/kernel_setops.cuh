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
#include "block/count_states.cuh"

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

/* A tile's keys in shared memory: a's part, then b's, each followed by the element after it
 * in its array when the tile is extended (mj_setop_extended); the tile is one more than
 * MJ_NV when its end is starred. MJ_VT slots of slack after them take the reads of steps
 * past a thread's part, which are never used. */
#define MJ_SETOP_SLOTS (MJ_NV + 3 + MJ_VT)

/* Without values, keys up to 4 bytes go from the walk to the compaction in registers and
 * are compacted over the tile (whose keys are no longer needed then): no positions, one
 * shared-memory read an output fewer. Otherwise (ptxas: 9 to 140 more registers a thread
 * for 8- to 256-byte keys, or with values) the positions are compacted and the keys read
 * from the tile. */
#define MJ_SETOP_KEY_REGS (sizeof(mj_key) <= 4 && !MJ_HAS_VALUES)

/* A thread's steps as bits: bit i set when step i emits. */
#if MJ_VT <= 32
typedef mj_u32 mj_setop_mask;
#else
typedef mj_u64 mj_setop_mask;
#endif
MJ_DEVICE int mj_popc(mj_u32 x) { return __popc(x); }
MJ_DEVICE int mj_popc(mj_u64 x) { return __popcll(x); }

/* A tile whose parts of a and b both have an element after them (every tile but those at the
 * end of a or b): its walks then compare real keys at every step, and need no range checks. */
MJ_DEVICE bool mj_setop_extended(const mj_setop_range &r, mj_i64 a_count, mj_i64 b_count) {
    return r.a1 < a_count && r.b1 < b_count;
}

/* The tile's elements to s: a[r.a0, r.a1 + ext) at s[0, b_at), b[r.b0, r.b1 + ext) from
 * s[b_at], `loaded` in all (up to MJ_NV + 3: three threads load the rest). Element j is a
 * load from a below b_at and from b above it, under complementary predicates and at a
 * constant offset from the thread's base in each array: no address chosen per element.
 * Every load before the first store: a thread has MJ_VT loads in flight. */
MJ_DEVICE void mj_setop_load(const mj_key *a, const mj_key *b, const mj_setop_range &r,
                             int b_at, int loaded, mj_key *s, int tid) {
    const mj_key *at = a + r.a0 + tid, *bt = b + (r.b0 - b_at) + tid;
    mj_key k[MJ_VT];
    if (loaded >= MJ_NV) {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i)
            k[i] = tid + MJ_NT * i < b_at ? at[MJ_NT * i] : bt[MJ_NT * i];
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) s[tid + MJ_NT * i] = k[i];
        if (MJ_NV + tid < loaded) s[MJ_NV + tid] = MJ_NV + tid < b_at ? at[MJ_NV] : bt[MJ_NV];
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < b_at)
                k[i] = at[MJ_NT * i];
            else if (j < loaded)
                k[i] = bt[MJ_NT * i];
        }
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i)
            if (tid + MJ_NT * i < loaded) s[tid + MJ_NT * i] = k[i];
    }
}

/* A thread's MJ_VT steps from s[ia] and s[ib] (positions in s), a slot of the std walk each:
 * a's element alone, b's alone, or a matched pair (emitted as a's). A step is the thread's
 * while ia + ib < end; the balanced path gives every thread at least MJ_VT - 2 elements of a
 * tile that is not the last, so in an extended tile the first (MJ_VT - 1) / 2 steps are the
 * thread's without a check. Checked: a's part ends at a_end and b's at b_end (the end of a
 * or b); otherwise the keys after the parts are real and decide as the std walk would.
 * Checked is right for any tile. keep: the operation's slots (MJ_KEEP_*). keys[i] and pos[i]
 * are step i's element and its position in s; returns the steps that emit. Each step reads at
 * most one slot further on each side. */
template <bool Checked>
MJ_DEVICE mj_setop_mask mj_setop_steps(const mj_key *s, int ia, int ib, int end, int a_end,
                                       int b_end, int keep, mj_key keys[MJ_VT],
                                       int pos[MJ_VT]) {
    mj_key ka = s[ia], kb = s[ib];
    mj_setop_mask emit = 0;
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i) {
        bool has_a = !Checked || ia < a_end, has_b = !Checked || ib < b_end;
        bool a_first = has_a && (!has_b || mj_less(ka, kb));
        bool b_first = has_b && (!has_a || mj_less(kb, ka));
        int kind = a_first ? MJ_KEEP_A : b_first ? MJ_KEEP_B : MJ_KEEP_PAIR;
        bool mine = (!Checked && i < (MJ_VT - 1) / 2) || ia + ib < end;
        if (mine && (kind & keep)) emit |= (mj_setop_mask)1 << i;
        keys[i] = b_first ? kb : ka;
        pos[i] = b_first ? ib : ia;
        if (!b_first) ka = s[++ia];
        if (!a_first) kb = s[++ib];
    }
    return emit;
}

/* Loads the tile (mj_setop_load), finds each thread's start on the tile's path (the balanced
 * path at diagonal tid * MJ_VT, in s_start as a count of the tile's elements before it, the
 * tile's total after them) and walks from there to the next thread's start (mj_setop_steps).
 * Reads stay inside s whatever the input; unsorted input only changes what is emitted,
 * never more than MJ_VT a thread. */
MJ_DEVICE mj_setop_mask mj_setop_walk(const mj_key *a, const mj_key *b, const mj_setop_range &r,
                                      bool ext, int keep, mj_key *s, int *s_start,
                                      mj_key keys[MJ_VT], int pos[MJ_VT], int tid) {
    int a_len = (int)(r.a1 - r.a0), b_len = (int)(r.b1 - r.b0), total = a_len + b_len;
    int b_at = a_len + ext;
    mj_setop_load(a, b, r, b_at, total + 2 * ext, s, tid);
    __syncthreads();

    int diag = mj_min(MJ_VT * tid, total), star;
    int pa = mj_balanced_path(s, a_len, s + b_at, b_len, diag, &star);
    s_start[tid] = diag + star;
    if (tid == 0) s_start[MJ_NT] = total;
    __syncthreads();

    int ia = pa, ib = b_at + diag + star - pa, end = b_at + s_start[tid + 1];
    int b_end = b_at + b_len;
    /* One walk serves the four operations, `keep` an argument. Compiled for each operation
     * (as it was for 4-byte keys alone, about 3 instructions a step fewer), the walks took a
     * third of the program's NVRTC work (u32 keys: 6300 -> 4223 M instructions with one) and
     * gained nothing measurable (H200, u32 keys alone: within 1% at 2^27 a side, 3% either
     * way at 2^24). */
    if (ext) return mj_setop_steps<false>(s, ia, ib, end, a_len, b_end, keep, keys, pos);
    return mj_setop_steps<true>(s, ia, ib, end, a_len, b_end, keep, keys, pos);
}

/* One block a tile, numbered in the order the blocks start (the counter after the states;
 * states and counter all zero before the launch): walks the tile's part of the path, numbers
 * what it emits (a block scan of the threads' counts), compacts it in shared memory (the keys
 * themselves or their positions in the tile: MJ_SETOP_KEY_REGS), learns how many the tiles
 * before it emit (mj_count_look_back), and stores its elements from there: keys from shared
 * memory, values from global memory, coalesced, only below cap (what the output holds)
 * whatever the input.
 * The last tile writes the total, at most cap, to *out_count. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_setop_tiles(const mj_key *a_keys, const mj_value *a_values, mj_i64 a_count,
               const mj_key *b_keys, const mj_value *b_values, mj_i64 b_count,
               const mj_i64 *partitions, int keep, mj_u64 *states, mj_key *out_keys,
               mj_value *out_values, mj_i64 cap, mj_u64 *out_count) {
    __shared__ mj_key s_keys[MJ_SETOP_SLOTS]; /* the tile, then (KEY_REGS) what it emits */
    /* Where each emitted element is in the tile, in output order (for values, or keys read
     * from the tile). */
    __shared__ int s_pos[MJ_HAS_VALUES || !MJ_SETOP_KEY_REGS ? MJ_NV : 1];
    __shared__ int s_start[MJ_NT + 1], s_warps[MJ_COUNT_SCAN_WARPS];
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
    bool ext = mj_setop_extended(r, a_count, b_count);
    mj_key keys[MJ_VT];
    int pos[MJ_VT];
    mj_setop_mask emit = mj_setop_walk(a_keys, b_keys, r, ext, keep, s_keys, s_start, keys,
                                       pos, tid);
    /* The scan's barrier ends every walk: with KEY_REGS the tile's keys in s_keys are no
     * longer needed. */
    int slot = mj_cta_count_scan(mj_popc(emit), s_warps, tid);
    /* The tile's count from the warp totals: no barrier of its own, and warp 0's look-back
     * overlaps the other warps' compaction. */
    int count = mj_cta_count_total(s_warps);
#pragma unroll
    for (int i = 0; i < MJ_VT; ++i)
        if (emit >> i & 1) {
            if (MJ_SETOP_KEY_REGS) s_keys[slot] = keys[i];
            if (MJ_HAS_VALUES || !MJ_SETOP_KEY_REGS) s_pos[slot] = pos[i];
            ++slot;
        }
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
    if (MJ_SETOP_KEY_REGS) {
        mj_copy_tile<MJ_NT>(s_keys, stored, out_keys, tid);
    } else {
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < stored) out_keys[j] = s_keys[s_pos[j]];
        }
    }
    if (MJ_HAS_VALUES) {
        /* s positions to a's and b's values: b's part starts at b_at. The last element
         * loaded bounds them: only unsorted input could point past it. */
        int a_len = (int)(r.a1 - r.a0), b_at = a_len + ext;
        int last = a_len + (int)(r.b1 - r.b0) + 2 * ext - 1;
        const mj_value *av = a_values + r.a0, *bv = b_values + (r.b0 - b_at);
        out_values += out_base;
        /* Every load before the first store: a thread has MJ_VT loads in flight. */
        mj_value v[MJ_VT];
#pragma unroll
        for (int i = 0; i < MJ_VT; ++i) {
            int j = tid + MJ_NT * i;
            if (j < stored) {
                int p = mj_min(s_pos[j], last);
                v[i] = (p < b_at ? av : bv)[p];
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
