/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the relational join (kernel_join.cuh, after the sorted search's kernels):
 * argument checks, the temporary storage, then the search, the scans of the counts and the
 * load-balancing search over the rows, all in stream order with no host synchronisation (the
 * row count stays on the device; grids are sized by what the host knows: the counts of a and
 * b, and the caller's capacity). Every check comes before the first launch. */
#include "primitives/join.h"

#include <stdint.h>
#include <string.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/merge.h"
#include "primitives/run.h"
#include "primitives/search.h"
#include "shared/load_balance.h"
#include "shared/merge_frame.h"
#include "shared/relational_join.h"

/* Partition entries for the lbs's tiles: a part of its tiles at a time, at least this many. */
#define MIN_CHUNK_TILES (1ll << 16)
#define MAX_CHUNK_TILES (1ll << 30)

/* The temporary storage of a join of a_count and b_count keys, n == a_count + b_count (the
 * size query lays out a_count == b_count == n, which covers every split). */
typedef struct join_layout {
    size_t parts;     /* the search's merge partitions, then the lbs's partition entries */
    size_t lower;     /* a_count uint64: each a row's lower bound in b; narrow (join_narrow):
                         a_count uint32 bounds, then their counts as a_count uint32 */
    size_t counts;    /* a_count uint64: its count of b rows (unless narrow), then its first
                         output row (4 bytes where the a-driven rows fit them:
                         mj_join_first_rows_narrow) */
    size_t a_matches; /* a_count bytes */
    size_t b_matches; /* b_count bytes */
    size_t sums_a, sums_b; /* a scan's block sums: at most a tile of them */
    size_t totals;    /* uint64: the a-driven rows, the unmatched b rows */
    long long chunk;  /* lbs tiles a launch */
    size_t total;
} join_layout;

static long long nv_of(const mj_sorter *s) { return (long long)s->nt * s->vt; }

static mj_status layout_for(const mj_sorter *s, size_t a_count, size_t b_count, size_t n,
                            join_layout *l) {
    size_t merge_bytes;
    mj_status st = mj__merge_temp(s, n, &merge_bytes); /* checks n's tiles fit a grid */
    if (st) return st;
    long long nv = nv_of(s), tiles = mj_tile_count((long long)n, nv);
    long long chunk = 4 * tiles;
    l->chunk = chunk < MIN_CHUNK_TILES ? MIN_CHUNK_TILES
               : chunk > MAX_CHUNK_TILES ? MAX_CHUNK_TILES
                                         : chunk;
    size_t chunk_bytes = ((size_t)l->chunk + 1) * sizeof(long long);
    mj_temp_layout t = {0, 0};
    l->parts = mj__temp_part(&t, merge_bytes > chunk_bytes ? merge_bytes : chunk_bytes, 1);
    l->lower = mj__temp_part(&t, a_count, sizeof(uint64_t));
    l->counts = mj__temp_part(&t, a_count, sizeof(uint64_t));
    l->a_matches = mj__temp_part(&t, a_count, 1);
    l->b_matches = mj__temp_part(&t, b_count, 1);
    l->sums_a = mj__temp_part(&t, (size_t)nv, sizeof(uint64_t));
    l->sums_b = mj__temp_part(&t, (size_t)nv, sizeof(uint64_t));
    l->totals = mj__temp_part(&t, 2, sizeof(uint64_t));
    l->total = t.total;
    if (t.overflow)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "a join of %zu keys does not fit in memory", n);
    return MJ_OK;
}

mj_status mj__join_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    join_layout l;
    mj_status st = layout_for(s, n, n, n, &l);
    if (st == MJ_OK) *bytes = l.total;
    return st;
}

/* What a call does: search the keys and count the rows (all but mj_sorter_join_rows), keep
 * what the rows are written from (mj_sorter_join_plan, and mj_sorter_join with room for rows),
 * write rows (mj_sorter_join and mj_sorter_join_rows). */
typedef struct join_call {
    const char *fn;
    mj_join_kind kind;
    const void *a, *b; /* searching calls only, like out_count */
    size_t a_count, b_count;
    int search, keep, rows;
    size_t index_size; /* rows only, like the three below */
    void *a_rows, *b_rows;
    size_t capacity;
    void *out_count;
    const void *plan_temp; /* mj_sorter_join_rows: the plan's storage, which the rows must not */
    size_t plan_bytes;     /* overlap */
} join_call;

/* The search writes 4-byte bounds and counts, which the scans and the rows read (half the bytes
 * of 8-byte ones), when both sides hold fewer than 2^32 rows. */
static int join_narrow(const join_call *c) {
    return c->a_count <= UINT32_MAX && c->b_count <= UINT32_MAX;
}

/* The call writes b's unmatched rows (mj_join_unmatched): a right or full join with rows and
 * room for them, and b not empty. */
static int writes_unmatched(const join_call *c) {
    return (c->kind & MJ_JOIN_KEEP_B) && c->b_count && c->rows && c->capacity;
}

/* The arrays of a call, inputs first (mj_sorter_join_rows: the plan's storage as A). */
enum { A, B, A_ROWS, B_ROWS, OUT_COUNT, ARRAYS };

/* Everything that does not need the device; *bound gets the most a-driven rows the inputs
 * can give, arrays the call's arrays with their bytes (rows: none without capacity). */
static mj_status check_call(mj_sorter *s, const join_call *c, unsigned long long *bound,
                            mj_array *arrays) {
    mj_context *ctx = s->ctx;
    const char *fn = c->fn;
    if ((unsigned)c->kind > MJ_JOIN_OUTER)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: unknown kind %d (MJ_JOIN_INNER, LEFT, RIGHT or OUTER)", fn,
                        (int)c->kind);
    if (c->rows && c->index_size != 4 && c->index_size != 8)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: index_size must be 4 (uint32_t) or 8 (uint64_t), not %zu", fn,
                        c->index_size);
    size_t a = c->a_count, b = c->b_count, product, n;
    /* Every count below the largest possible join is exact in 64 bits (signed, for lbs). */
    if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(a, b, &n) ||
        __builtin_add_overflow(product, n, &product) || product > (size_t)INT64_MAX)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE,
                        "%s: a join of %zu and %zu keys could have 2^63 rows or more", fn, a, b);
    if (c->rows && c->index_size == 4 && (a > UINT32_MAX || b > UINT32_MAX))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE,
                        "%s: %zu and %zu rows do not fit 4-byte row indices below the all-ones "
                        "NULL (index_size 8 does)", fn, a, b);
    *bound = (unsigned long long)a * (c->kind & MJ_JOIN_KEEP_A && b == 0 ? 1 : b);
    size_t row_bytes = 0;
    if (c->rows && __builtin_mul_overflow(c->capacity, c->index_size, &row_bytes))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: %zu rows do not fit in memory", fn,
                        c->capacity);
    int search = c->search;
    if ((search && a && !c->a) || (search && b && !c->b) || (search && !c->out_count) ||
        (row_bytes && (!c->a_rows || !c->b_rows)))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        search && a && !c->a      ? "a"
                        : search && b && !c->b    ? "b"
                        : search && !c->out_count ? "out_count"
                        : !c->a_rows              ? "a_rows"
                                                  : "b_rows");
    size_t a_bytes = 0, b_bytes = 0;
    if (search && (__builtin_mul_overflow(a, s->key_size, &a_bytes) ||
                   __builtin_mul_overflow(b, s->key_size, &b_bytes)))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: the keys do not fit in memory", fn);
    if (search) {
        arrays[A] = (mj_array){c->a, a_bytes, "a"};
        arrays[B] = (mj_array){c->b, b_bytes, "b"};
    } else { /* the keys are not read; the plan's storage must not be written */
        arrays[A] = (mj_array){c->plan_temp, c->plan_bytes, "temp"};
        arrays[B] = (mj_array){NULL, 0, "b"};
    }
    arrays[A_ROWS] = (mj_array){c->a_rows, row_bytes, "a_rows"};
    arrays[B_ROWS] = (mj_array){c->b_rows, row_bytes, "b_rows"};
    arrays[OUT_COUNT] = (mj_array){c->out_count, c->out_count ? sizeof(uint64_t) : 0,
                                   "out_count"};
    return mj__check_overlaps(s, fn, arrays, A_ROWS, ARRAYS);
}

/* One scan of counts (shared/relational_join.h): the block sums, then the spine, which writes
 * *total and, when out_count is not 0, *out_count = *base (when not 0) + the total. */
static mj_status scan_counts(mj_sorter *s, mj_join_counts counts, long long n,
                             CUdeviceptr sums, CUdeviceptr total, CUdeviceptr base,
                             CUdeviceptr out_count, CUstream stream) {
    mj_join_runs runs = mj_join_runs_for(mj_tile_count(n, nv_of(s)), nv_of(s));
    void *rp[] = {&counts, &n, &runs, &sums};
    void *sp[] = {&sums, &runs.blocks, &total, &base, &out_count};
    mj_status st = mj__launch(s, MJ_K_JOIN_REDUCE, runs.blocks, (unsigned)s->nt, rp, stream);
    return st ? st : mj__launch(s, MJ_K_JOIN_SPINE, 1, (unsigned)s->nt, sp, stream);
}

/* The rows, from what the search kept: the load-balancing search over the a-driven rows up to
 * `limit`, a part of its tiles a launch, then b's unmatched rows. Reads the kept storage and
 * writes only the rows and the partition entries, so it may run again on the same plan. */
static mj_status write_rows(mj_sorter *s, const join_call *c, const join_layout *l,
                            unsigned long long limit, CUdeviceptr base, CUstream stream) {
    long long nv = nv_of(s), a = (long long)c->a_count, b = (long long)c->b_count;
    CUdeviceptr first_rows = base + l->counts, a_total = base + l->totals;
    CUdeviceptr a_rows = DPTR(c->a_rows), b_rows = DPTR(c->b_rows);
    int wide = c->index_size == 8;
    mj_status st = MJ_OK;
    if (a && limit) {
        CUdeviceptr lower = base + l->lower, parts = base + l->parts;
        int lower_wide = !join_narrow(c);
        CUdeviceptr a_matches = c->kind & MJ_JOIN_KEEP_A ? base + l->a_matches : 0;
        long long tiles = mj_lbs_tile_count((long long)limit, a, nv);
        for (long long first = 0; !st && first < tiles; first += l->chunk) {
            long long part = tiles - first < l->chunk ? tiles - first : l->chunk;
            void *pp[] = {&first_rows, &a, &a_total, &limit, &first, &part, &parts};
            void *tp[] = {&first_rows, &a,          &a_total,   &limit, &first,  &parts,
                          &lower,      &lower_wide, &a_matches, &wide,  &a_rows, &b_rows};
            st = mj__launch(s, MJ_K_JOIN_PARTITION, mj_lbs_partition_blocks(part),
                            MJ_LBS_PARTITION_THREADS, pp, stream);
            if (!st) st = mj__launch(s, MJ_K_JOIN_TILES, part, (unsigned)s->nt, tp, stream);
        }
    }
    if (!st && writes_unmatched(c)) {
        mj_join_counts src = {NULL, (const unsigned char *)(uintptr_t)(base + l->b_matches), 0,
                              0};
        mj_join_runs runs = mj_join_runs_for(mj_tile_count(b, nv), nv);
        CUdeviceptr sums = base + l->sums_b;
        unsigned long long capacity = c->capacity;
        void *up[] = {&src, &b, &runs, &sums, &a_total, &capacity, &wide, &a_rows, &b_rows};
        st = mj__launch(s, MJ_K_JOIN_UNMATCHED, runs.blocks, (unsigned)s->nt, up, stream);
    }
    return st;
}

/* The search and the count (n > 0), on the run's temporary storage. */
static mj_status search_and_count(mj_sorter *s, const join_call *c, const join_layout *l,
                                  const mj_run *rn) {
    CUdeviceptr base = rn->base, out_count = DPTR(c->out_count);
    int keep_a = c->kind & MJ_JOIN_KEEP_A, keep_b = c->kind & MJ_JOIN_KEEP_B;
    /* Each a row's count of equivalent b rows (one pass of the search) and b's match bytes for
     * a right join; kept for rows, also each a row's lower bound in b and a's match bytes for
     * a left join, which only the rows' kernels read. A count alone of an inner or left join
     * then writes a's counts alone (the search's loop for one array). */
    int keep = c->keep, narrow = join_narrow(c);
    CUdeviceptr counts = narrow ? base + l->lower + 4 * c->a_count : base + l->counts;
    mj_search_outputs so = {0};
    so.bound = MJ_BOUND_LOWER;
    so.index_size = narrow ? 4 : 8;
    so.a_indices = keep ? (void *)(uintptr_t)(base + l->lower) : NULL;
    so.a_counts = (void *)(uintptr_t)counts;
    so.a_matches = keep && keep_a ? (void *)(uintptr_t)(base + l->a_matches) : NULL;
    so.b_matches = keep_b ? (void *)(uintptr_t)(base + l->b_matches) : NULL;
    mj_status st = mj__search_passes(s, c->a, c->a_count, c->b, c->b_count, &so,
                                     base + l->parts, rn->stream);
    CUdeviceptr a_total = base + l->totals, b_total = a_total + sizeof(uint64_t);
    mj_join_counts a_counts = {so.a_counts, NULL, keep_a, narrow};
    if (!st)
        st = scan_counts(s, a_counts, (long long)c->a_count, base + l->sums_a, a_total, 0,
                         keep_b ? 0 : out_count, rn->stream);
    if (!st && keep_b) {
        mj_join_counts unmatched = {NULL, so.b_matches, 0, 0};
        st = scan_counts(s, unmatched, (long long)c->b_count, base + l->sums_b, b_total, a_total,
                         out_count, rn->stream);
    }
    if (!st && keep && c->a_count) { /* a's first output rows: its counts scanned */
        long long nv = nv_of(s), a = (long long)c->a_count;
        CUdeviceptr offsets = base + l->counts, sums = base + l->sums_a;
        mj_join_runs runs = mj_join_runs_for(mj_tile_count(a, nv), nv);
        void *op[] = {&a_counts, &a, &runs, &sums, &a_total, &offsets};
        st = mj__launch(s, MJ_K_JOIN_OFFSETS, runs.blocks, (unsigned)s->nt, op, rn->stream);
    }
    return st;
}

static mj_status run(mj_sorter *s, const join_call *c, void *temp, size_t temp_bytes,
                     void *stream) {
    unsigned long long bound = 0;
    join_layout l;
    size_t n = c->a_count + c->b_count; /* check_call checked the sum */
    mj_status st;
    mj_array arrays[ARRAYS];
    if ((st = check_call(s, c, &bound, arrays)) ||
        (st = layout_for(s, c->a_count, c->b_count, n, &l)) ||
        (st = mj__run_check_temp(s, l.total, temp, temp_bytes)))
        return st;
    const size_t align[ARRAYS] = {s->key_align, s->key_align, c->index_size, c->index_size,
                                  sizeof(uint64_t)};
    /* No keys (n == 0): no launch, so no temporary storage; a search clears the count. */
    mj_run rn;
    st = mj__run_open(s, arrays, align, ARRAYS, n ? MJ_RUN_TEMP : MJ_RUN_CHECK, l.total, temp,
                      stream, &rn);
    if (!st && !n && c->search)
        st = mj__run_clear(s, DPTR(c->out_count), sizeof(uint64_t), rn.stream,
                           "clearing out_count");
    if (!st && n && c->search) st = search_and_count(s, c, &l, &rn);
    if (!st && n && c->rows && c->capacity) {
        unsigned long long limit = c->capacity < bound ? c->capacity : bound;
        st = write_rows(s, c, &l, limit, rn.base, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}

mj_status mj_sorter_join_count(mj_sorter *s, mj_join_kind kind, const void *a, size_t a_count,
                               const void *b, size_t b_count, void *out_count, void *temp,
                               size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_join_count";
    mj_status st = mj__sorter_expect(s, 1u << MJ_JOIN, fn);
    if (st) return st;
    join_call c = {.fn = fn, .kind = kind, .a = a, .b = b, .a_count = a_count,
                   .b_count = b_count, .search = 1, .out_count = out_count};
    return run(s, &c, temp, temp_bytes, stream);
}

mj_status mj_sorter_join_plan(mj_sorter *s, mj_join_kind kind, const void *a, size_t a_count,
                              const void *b, size_t b_count, void *out_count, void *temp,
                              size_t temp_bytes, void *stream, mj_join_plan *plan) {
    if (plan) memset(plan, 0, sizeof *plan);
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_join_plan";
    mj_status st = mj__sorter_expect(s, 1u << MJ_JOIN, fn);
    if (st) return st;
    if (!plan || !temp)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: %s is NULL (the plan lives in the caller's temporary storage)", fn,
                        plan ? "temp" : "plan");
    join_call c = {.fn = fn, .kind = kind, .a = a, .b = b, .a_count = a_count,
                   .b_count = b_count, .search = 1, .keep = 1, .out_count = out_count};
    st = run(s, &c, temp, temp_bytes, stream);
    if (st == MJ_OK)
        *plan = (mj_join_plan){s, kind, a_count, b_count, temp, temp_bytes, MJ_JOIN_PLAN_STAMP};
    return st;
}

mj_status mj_sorter_join(mj_sorter *s, mj_join_kind kind, const void *a, size_t a_count,
                         const void *b, size_t b_count, size_t index_size, void *a_rows,
                         void *b_rows, size_t capacity, void *out_count, void *temp,
                         size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_join";
    mj_status st = mj__sorter_expect(s, 1u << MJ_JOIN, fn);
    if (st) return st;
    join_call c = {.fn = fn, .kind = kind, .a = a, .b = b, .a_count = a_count,
                   .b_count = b_count, .search = 1, .keep = capacity != 0, .rows = 1,
                   .index_size = index_size, .a_rows = a_rows, .b_rows = b_rows,
                   .capacity = capacity, .out_count = out_count};
    return run(s, &c, temp, temp_bytes, stream);
}

mj_status mj_sorter_join_rows(mj_sorter *s, const mj_join_plan *plan, size_t index_size,
                              void *a_rows, void *b_rows, size_t capacity, void *temp,
                              size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    const char *fn = "mj_sorter_join_rows";
    mj_status st = mj__sorter_expect(s, 1u << MJ_JOIN, fn);
    if (st) return st;
    const char *wrong = !plan                             ? "plan is NULL"
                        : plan->stamp != MJ_JOIN_PLAN_STAMP ? "plan was not filled by "
                                                              "mj_sorter_join_plan"
                        : plan->sorter != s               ? "plan is another sorter's"
                                                          : NULL;
    if (wrong) return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s", fn, wrong);
    if (temp != plan->temp || temp_bytes != plan->temp_bytes)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: temp (%p, %zu bytes) is not the plan's (%p, %zu bytes)", fn, temp,
                        temp_bytes, plan->temp, plan->temp_bytes);
    join_call c = {.fn = fn, .kind = plan->kind, .a_count = plan->a_count,
                   .b_count = plan->b_count, .rows = 1, .index_size = index_size,
                   .a_rows = a_rows, .b_rows = b_rows, .capacity = capacity,
                   .plan_temp = temp, .plan_bytes = temp_bytes};
    return run(s, &c, temp, temp_bytes, stream);
}
