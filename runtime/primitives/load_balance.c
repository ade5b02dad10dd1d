/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of load-balancing search, interval expand and interval move
 * (kernel_lbs_partition.cuh, kernel_lbs.cuh, kernel_expand.cuh, kernel_move.cuh): temporary
 * storage, argument checks, then a partition kernel and one block per tile (lbs's and expand's
 * started while the partition kernel runs). Every check comes before the first launch. */
#include "primitives/load_balance.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"
#include "shared/load_balance.h"

mj_status mj__lbs_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    long long nv = (long long)s->nt * s->vt;
    if (n > (size_t)INT64_MAX - (size_t)nv)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements are too many", n);
    long long tiles = mj_lbs_tile_count((long long)n, 0, nv);
    mj_temp_layout l = {0, 0};
    mj__temp_part(&l, (size_t)tiles + 1, sizeof(long long));
    if (l.overflow || tiles >= 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements need more blocks than a grid has", n);
    *bytes = l.total;
    return MJ_OK;
}

typedef struct lbs_call {
    const char *fn;
    const void *offsets;
    size_t objects, items;
    void *out0;                   /* objects (lbs) or out (expand, move) */
    void *ranks;                  /* lbs: may be NULL */
    const void *values;           /* expand: values; move: in */
    const void *gather, *scatter; /* move: either may be NULL */
    size_t in_count, out_count;   /* move: elements of in and out */
} lbs_call;

/* The outputs (out0 and lbs's ranks) must not overlap what the run reads, nor each other.
 * Sizes in bytes. */
static mj_status check_overlaps(mj_sorter *s, const lbs_call *c, size_t out_bytes,
                                size_t off_bytes, size_t val_bytes) {
    int lbs = s->primitive == MJ_LOAD_BALANCE, move = s->primitive == MJ_INTERVAL_MOVE;
    enum { OFFSETS, VALUES, GATHER, SCATTER, OUT, RANKS, ARRAYS };
    mj_array a[ARRAYS] = {{c->offsets, off_bytes, "offsets"},
                          {c->values, val_bytes, move ? "in" : "values"},
                          {c->gather, off_bytes, "gather"},
                          {c->scatter, off_bytes, "scatter"},
                          {c->out0, out_bytes, lbs ? "objects" : "out"},
                          {c->ranks, out_bytes, "ranks"}};
    return mj__check_overlaps(s, c->fn, a, OUT, ARRAYS);
}

static mj_status run(mj_sorter *s, const lbs_call *c, void *temp, size_t temp_bytes,
                     void *stream) {
    mj_context *ctx = s->ctx;
    mj_primitive p = s->primitive;
    int expand = p == MJ_INTERVAL_EXPAND, move = p == MJ_INTERVAL_MOVE;
    const char *fn = c->fn, *obj = move ? "intervals" : "objects";
    if (c->items && c->objects == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: %zu items but no %s to own them (num_%s is 0)", fn, c->items, obj,
                        obj);
    /* The key is the index type: i32 holds indices and counts below 2^31. */
    size_t limit = s->key_size == 4 ? (size_t)INT32_MAX : (size_t)INT64_MAX / 2;
    if (c->objects > limit || c->items > limit)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: %zu %s and %zu items do not fit the "
                        "%zu-byte index type", fn, c->objects, obj, c->items, s->key_size);
    if (c->items && (!c->offsets || !c->out0 || ((expand || move) && !c->values)))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        !c->offsets ? "offsets"
                        : !c->out0  ? (p == MJ_LOAD_BALANCE ? "objects" : "out")
                        : move      ? "in"
                                    : "values");
    size_t n = c->objects + c->items, need = 0;
    mj_status st;
    if ((st = mj__lbs_temp(s, n, &need)) || (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    /* The output's and the read values' element counts; move's reach the kernel, whose exact
     * bounds check needs them below 2^63. */
    size_t out_count = move ? c->out_count : c->items, val_count = move ? c->in_count : c->objects;
    size_t out_size = p == MJ_LOAD_BALANCE ? s->key_size : s->value_size;
    size_t out_bytes, off_bytes, val_bytes = 0;
    if (__builtin_mul_overflow(out_count, out_size, &out_bytes) ||
        __builtin_mul_overflow(c->objects, s->key_size, &off_bytes) ||
        (p != MJ_LOAD_BALANCE && __builtin_mul_overflow(val_count, s->value_size, &val_bytes)) ||
        (move && (c->in_count > (size_t)INT64_MAX || c->out_count > (size_t)INT64_MAX)))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: the arrays do not fit in memory", fn);
    if (c->items && (st = check_overlaps(s, c, out_bytes, off_bytes, val_bytes))) return st;
    /* The arrays in the order their pointers are checked, with the bytes the launches touch:
     * out0 and lbs's ranks take an entry an item, expand reads a value an object and move one
     * an item. mj__lbs_temp bounds objects + items by a grid of tiles: no product overflows. */
    size_t items_bytes = c->items * out_size;
    size_t read_bytes = (move ? c->items : c->objects) * s->value_size;
    const mj_array a[] = {{c->offsets, off_bytes, "offsets"},
                          {c->out0, items_bytes, p == MJ_LOAD_BALANCE ? "objects" : "out"},
                          {c->ranks, c->ranks ? items_bytes : 0, "ranks"},
                          {c->values, expand || move ? read_bytes : 0, move ? "in" : "values"},
                          {c->gather, c->gather ? off_bytes : 0, "gather"},
                          {c->scatter, c->scatter ? off_bytes : 0, "scatter"}};
    const size_t align[] = {s->key_align, p == MJ_LOAD_BALANCE ? s->key_align : s->value_align,
                            s->key_align, s->value_align, s->key_align, s->key_align};
    mj_run rn;
    st = mj__run_open(s, a, align, 6, c->items ? MJ_RUN_TEMP : MJ_RUN_ENTER, need, temp, stream,
                      &rn);
    if (!st && c->items) {
        long long nv = (long long)s->nt * s->vt;
        long long objects = (long long)c->objects, items = (long long)c->items;
        long long tiles = mj_lbs_tile_count(items, objects, nv);
        unsigned long long in_n = c->in_count, out_n = c->out_count;
        CUdeviceptr off = DPTR(c->offsets), parts = rn.base, out = DPTR(c->out0);
        CUdeviceptr second = DPTR(expand || move ? c->values : c->ranks);
        CUdeviceptr gather = DPTR(c->gather), scatter = DPTR(c->scatter);
        void *pp[] = {&off, &objects, &items, &tiles, &parts};
        void *lp[] = {&off, &objects, &items, &parts, &out, &second};
        void *ep[] = {&off, &objects, &items, &parts, &second, &out};
        void *mp[] = {&off,    &objects, &items, &parts, &gather,
                      &scatter, &second, &in_n,  &out,   &out_n};
        long long grid = mj_lbs_partition_blocks(tiles);
        if (!(st = mj__launch(s, MJ_K_LBS_PARTITION, grid, MJ_LBS_PARTITION_THREADS, pp,
                              rn.stream)))
            /* lbs and expand started while the partitions are still being found: each tile
             * awaits its two entries (mj_cta_lbs_load's `overlapped`). Interval move's tiles
             * wait for the partition kernel: the awaits cost gather more than the overlap
             * gains (H200, docs/TUNING.md). */
            st = move ? mj__launch(s, MJ_K_MOVE, tiles, (unsigned)s->nt, mp, rn.stream)
                      : mj__launch_overlapped(s, expand ? MJ_K_EXPAND : MJ_K_LBS, tiles,
                                              (unsigned)s->nt, expand ? ep : lp, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}

mj_status mj_sorter_load_balance(mj_sorter *s, const void *offsets, size_t num_objects,
                                 size_t num_items, void *objects, void *ranks, void *temp,
                                 size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_LOAD_BALANCE, "mj_sorter_load_balance");
    if (st) return st;
    lbs_call c = {.fn = "mj_sorter_load_balance", .offsets = offsets, .objects = num_objects,
                  .items = num_items, .out0 = objects, .ranks = ranks};
    return run(s, &c, temp, temp_bytes, stream);
}

mj_status mj_sorter_interval_expand(mj_sorter *s, const void *offsets, size_t num_objects,
                                    size_t num_items, const void *values, void *out,
                                    void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_INTERVAL_EXPAND, "mj_sorter_interval_expand");
    if (st) return st;
    lbs_call c = {.fn = "mj_sorter_interval_expand", .offsets = offsets, .objects = num_objects,
                  .items = num_items, .out0 = out, .values = values};
    return run(s, &c, temp, temp_bytes, stream);
}

mj_status mj_sorter_interval_move(mj_sorter *s, const void *offsets, size_t num_intervals,
                                  size_t num_items, const void *gather, const void *scatter,
                                  const void *in, size_t in_count, void *out, size_t out_count,
                                  void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_INTERVAL_MOVE, "mj_sorter_interval_move");
    if (st) return st;
    lbs_call c = {.fn = "mj_sorter_interval_move", .offsets = offsets, .objects = num_intervals,
                  .items = num_items, .out0 = out, .values = in, .gather = gather,
                  .scatter = scatter, .in_count = in_count, .out_count = out_count};
    return run(s, &c, temp, temp_bytes, stream);
}
