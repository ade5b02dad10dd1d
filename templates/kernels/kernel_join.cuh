/* Relational join (see shared/relational_join.h): after the sorted search's kernels
 * (kernel_search.cuh), which the module holds for its key type, these kernels are the same for
 * every key: the three of the scans of the counts (mj_join_reduce, mj_join_spine, then
 * mj_join_offsets for a's rows or mj_join_unmatched for b's), and the load-balancing search
 * over the a-driven output rows (mj_join_partition, mj_join_tiles), launched over a part of
 * the tiles at a time so that its partition entries fit the temporary storage. */
#ifndef MJ_KERNEL_JOIN_CUH
#define MJ_KERNEL_JOIN_CUH

#include "common/spec_default.cuh"
#include "shared/load_balance.h"
#include "shared/relational_join.h"
#include "thread/index_array.cuh"
#include "block/cta_count_scan.cuh"
#include "block/cta_load_balance.cuh"

#define MJ_JOIN_NV (MJ_NT * MJ_VT)

/* Element i's count in a scan. Unsorted keys (the caller's contract broken) can leave a count
 * that no tile wrote, holding whatever the temporary storage held: below zero, it counts 0, so
 * that the offsets still ascend and the lbs walk over them visits each row once (racecheck
 * found two threads writing one owner slot otherwise, when counts were an upper bound minus a
 * lower one). */
MJ_DEVICE mj_u64 mj_join_count(const mj_join_counts &c, mj_i64 i) {
    if (!c.counts) return c.matches[i] ? 0 : 1;
    mj_i64 k = (mj_i64)mj_get_index(c.counts, i, !c.narrow);
    if (k < 0) k = 0;
    return c.at_least_one && k == 0 ? 1 : (mj_u64)k;
}

/* sums[b]: the counts of block b's run. */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_join_reduce(mj_join_counts counts, mj_i64 n, mj_join_runs runs, mj_u64 *sums) {
    __shared__ mj_u64 s_warps[MJ_COUNT_SCAN_WARPS];
    int tid = threadIdx.x;
    mj_i64 first = mj_join_run_first(blockIdx.x, runs, MJ_JOIN_NV, n);
    mj_i64 end = mj_join_run_first(blockIdx.x + 1, runs, MJ_JOIN_NV, n);
    mj_u64 x = 0;
    for (mj_i64 i = first + tid; i < end; i += MJ_NT) x += mj_join_count(counts, i);
    mj_cta_count_scan(x, s_warps, tid);
    if (tid == 0) sums[blockIdx.x] = mj_cta_count_total(s_warps);
}

/* One block: sums[0, blocks) (at most MJ_JOIN_NV) scanned in place, exclusive; *total gets
 * their sum and, when out_count is not null, *out_count the sum plus *base (null: 0). */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_join_spine(mj_u64 *sums, mj_i64 blocks, mj_u64 *total, const mj_u64 *base,
              mj_u64 *out_count) {
    __shared__ mj_u64 s_warps[MJ_COUNT_SCAN_WARPS];
    int tid = threadIdx.x;
    mj_u64 x[MJ_VT], sum = 0;
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int j = tid * MJ_VT + k;
        x[k] = j < blocks ? sums[j] : 0;
        sum += x[k];
    }
    mj_u64 before = mj_cta_count_scan(sum, s_warps, tid);
    if (tid == 0) {
        mj_u64 t = mj_cta_count_total(s_warps);
        *total = t;
        if (out_count) *out_count = (base ? *base : 0) + t;
    }
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int j = tid * MJ_VT + k;
        if (j < blocks) sums[j] = before;
        before += x[k];
    }
}

/* Block blockIdx.x's run, a tile at a time: each element's count, scanned from the run's
 * start (its entry of the spine's scan), is passed as visit(i, exclusive prefix) in
 * block-strided order, so that what visit stores is coalesced. */
template <typename Visit>
MJ_DEVICE void mj_join_scan_run(const mj_join_counts &counts, mj_i64 n, mj_join_runs runs,
                                const mj_u64 *sums, mj_u64 *s_tile, mj_u64 *s_warps, int tid,
                                const Visit &visit) {
    mj_i64 first = mj_join_run_first(blockIdx.x, runs, MJ_JOIN_NV, n);
    mj_i64 end = mj_join_run_first(blockIdx.x + 1, runs, MJ_JOIN_NV, n);
    mj_u64 carry = sums[blockIdx.x];
    for (mj_i64 t0 = first; t0 < end; t0 += MJ_JOIN_NV) {
        int len = (int)mj_min<mj_i64>(end - t0, MJ_JOIN_NV);
        for (int i = tid; i < len; i += MJ_NT) s_tile[i] = mj_join_count(counts, t0 + i);
        __syncthreads();
        /* Each thread its MJ_VT consecutive elements, as in the spine. */
        mj_u64 x[MJ_VT], sum = 0;
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k) {
            int j = tid * MJ_VT + k;
            x[k] = j < len ? s_tile[j] : 0;
            sum += x[k];
        }
        mj_u64 before = carry + mj_cta_count_scan(sum, s_warps, tid);
        carry += mj_cta_count_total(s_warps);
#pragma unroll
        for (int k = 0; k < MJ_VT; ++k) {
            int j = tid * MJ_VT + k;
            if (j < len) s_tile[j] = before;
            before += x[k];
        }
        __syncthreads();
        for (int i = tid; i < len; i += MJ_NT) visit(t0 + i, s_tile[i]);
        __syncthreads(); /* s_tile and s_warps are reused by the next tile */
    }
}

struct mj_join_store_offsets {
    void *offsets;
    bool wide;
    MJ_DEVICE void operator()(mj_i64 i, mj_u64 prefix) const {
        mj_put_index(offsets, i, prefix, wide);
    }
};

/* The first output rows, as the scan writes them and the rows' kernels read them: 8 bytes each
 * unless the a-driven rows (*a_total, which the spine wrote) fit 4. */
MJ_DEVICE mj_index_array mj_join_first_rows(const void *offsets, const mj_u64 *a_total) {
    mj_index_array a = {offsets, !mj_join_first_rows_narrow(*a_total)};
    return a;
}

/* offsets[i]: a row i's first output row (its counts scanned, exclusive). */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_join_offsets(mj_join_counts counts, mj_i64 n, mj_join_runs runs, const mj_u64 *sums,
                const mj_u64 *a_total, void *offsets) {
    __shared__ mj_u64 s_tile[MJ_JOIN_NV];
    __shared__ mj_u64 s_warps[MJ_COUNT_SCAN_WARPS];
    mj_join_store_offsets store = {offsets, !mj_join_first_rows_narrow(*a_total)};
    mj_join_scan_run(counts, n, runs, sums, s_tile, s_warps, threadIdx.x, store);
}

/* The right join's rows: (NULL, j) for each b row j without a match, at row a_total + its
 * place among them, where that is below capacity. */
struct mj_join_store_unmatched {
    const unsigned char *matches;
    mj_u64 a_total, capacity;
    void *a_rows, *b_rows;
    bool wide;
    MJ_DEVICE void operator()(mj_i64 j, mj_u64 prefix) const {
        mj_u64 row = a_total + prefix;
        if (matches[j] || row >= capacity) return;
        mj_put_index(a_rows, (mj_i64)row, ~0ull, wide);
        mj_put_index(b_rows, (mj_i64)row, (mj_u64)j, wide);
    }
};

extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_join_unmatched(mj_join_counts counts, mj_i64 n, mj_join_runs runs, const mj_u64 *sums,
                  const mj_u64 *a_total, mj_u64 capacity, int wide, void *a_rows,
                  void *b_rows) {
    __shared__ mj_u64 s_tile[MJ_JOIN_NV];
    __shared__ mj_u64 s_warps[MJ_COUNT_SCAN_WARPS];
    mj_join_store_unmatched store = {counts.matches, *a_total, capacity, a_rows, b_rows,
                                     wide != 0};
    mj_join_scan_run(counts, n, runs, sums, s_tile, s_warps, threadIdx.x, store);
}

/* The load-balancing search over the a-driven rows (items: mj_join_rows of them, objects: a's
 * rows, offsets: their first rows), tiles [first, first + tiles] of it. */
extern "C" __global__ void __launch_bounds__(MJ_LBS_PARTITION_THREADS)
mj_join_partition(const void *offsets, mj_i64 objects, const mj_u64 *a_total, mj_u64 limit,
                  mj_i64 first, mj_i64 tiles, mj_i64 *partitions) {
    mj_i64 items = mj_join_rows(*a_total, limit);
    mj_lbs_partition_entry(mj_join_first_rows(offsets, a_total), objects, items, tiles,
                           partitions, first);
}

/* Per loaded a row k (object j), for 4-byte bounds: its lower bound in b, or all ones for a
 * left join's a row without a match (its one output row's b row is NULL; no matched row's
 * bound is all ones, which is at least b's end). Loaded with the offsets (mj_cta_lbs_load's
 * `with`), in flight with their loads as interval move's entries are, so that each output row
 * reads its base from shared memory instead of global memory after the owners are known.
 * 8-byte bounds (lower null here) are read by each row as before. */
struct mj_join_lowers {
    enum { own_loads = 1 }; /* mj_lbs_with_offset */
    const mj_u32 *lower;
    const unsigned char *a_matches;
    mj_u32 *s_lower;
    MJ_DEVICE void operator()(int k, mj_i64 j, mj_i64) const {
        if (lower) s_lower[k] = a_matches && !a_matches[j] ? ~0u : lower[j];
    }
};

/* Tile first + blockIdx.x: each of its rows' a row (the owner), and b row (the owner's lower
 * bound in b, 8 bytes each where lower_wide, else 4, plus the row's rank; NULL for a left
 * join's row of an a row without a match). */
extern "C" __global__ void __launch_bounds__(MJ_NT)
mj_join_tiles(const void *offsets, mj_i64 objects, const mj_u64 *a_total, mj_u64 limit,
              mj_i64 first, const mj_i64 *partitions, const void *lower, int lower_wide,
              const unsigned char *a_matches, int wide, void *a_rows, void *b_rows) {
    __shared__ mj_i64 s_off[MJ_LBS_NV + 1];
    __shared__ int s_owner[MJ_LBS_NV];
    __shared__ mj_u32 s_lower[MJ_LBS_NV + 1]; /* mj_join_lowers */
    int tid = threadIdx.x;
    bool w = wide != 0, lw = lower_wide != 0;
    mj_i64 items = mj_join_rows(*a_total, limit);
    mj_join_lowers with = {lw ? nullptr : (const mj_u32 *)lower, a_matches, s_lower};
    mj_lbs_range r = mj_cta_load_balance(mj_join_first_rows(offsets, a_total), objects, items,
                                         partitions, s_off, s_owner, tid, false, first, with);
    int nx = (int)(r.x1 - r.x0);
#pragma unroll
    for (int k = 0; k < MJ_VT; ++k) {
        int i = tid + k * MJ_NT;
        if (i >= nx) break;
        int o = s_owner[i];
        mj_i64 a = r.base + o, row = r.x0 + i;
        mj_u64 base;
        int matched;
        if (lw) {
            base = ((const mj_u64 *)lower)[a];
            matched = !a_matches || a_matches[a];
        } else {
            base = s_lower[o];
            matched = base != ~0u;
        }
        mj_put_index(a_rows, row, (mj_u64)a, w);
        mj_put_index(b_rows, row, mj_join_b_row(base, matched, row - s_off[o]), w);
    }
}

#endif
