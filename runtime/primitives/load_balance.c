/* The host side of load-balancing search and interval expand (kernel_lbs_partition.cuh,
 * kernel_lbs.cuh, kernel_expand.cuh): temporary storage, argument checks, then a partition
 * kernel and one block per tile. Every check comes before the first launch. */
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
    void *out0;       /* objects (lbs) or out (expand) */
    void *ranks;      /* lbs: may be NULL */
    const void *values; /* expand */
} lbs_call;

static mj_status run(mj_sorter *s, const lbs_call *c, void *temp, size_t temp_bytes,
                     void *stream) {
    mj_context *ctx = s->ctx;
    int expand = s->primitive == MJ_INTERVAL_EXPAND;
    const char *fn = c->fn;
    if (c->items && c->objects == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: %zu items but no objects to own them (num_objects is 0)", fn,
                        c->items);
    /* The key is the index type: i32 holds indices and counts below 2^31. */
    size_t limit = s->key_size == 4 ? (size_t)INT32_MAX : (size_t)INT64_MAX / 2;
    if (c->objects > limit || c->items > limit)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: %zu objects and %zu items do not fit the "
                        "%zu-byte index type", fn, c->objects, c->items, s->key_size);
    if (c->items && (!c->offsets || !c->out0 || (expand && !c->values)))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        !c->offsets ? "offsets"
                        : !c->out0  ? (expand ? "out" : "objects")
                                    : "values");
    size_t n = c->objects + c->items, need = 0;
    mj_status st;
    if ((st = mj__lbs_temp(s, n, &need)) || (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    size_t out_size = expand ? s->value_size : s->key_size;
    size_t out_bytes, off_bytes = c->objects * s->key_size, val_bytes = 0;
    if (__builtin_mul_overflow(c->items, out_size, &out_bytes) ||
        (expand && __builtin_mul_overflow(c->objects, s->value_size, &val_bytes)))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: the arrays do not fit in memory", fn);
    if (c->items) {
        const char *clash = NULL;
        if (mj__ranges_overlap(c->out0, out_bytes, c->offsets, off_bytes))
            clash = expand ? "out overlaps offsets" : "objects overlaps offsets";
        else if (expand && mj__ranges_overlap(c->out0, out_bytes, c->values, val_bytes))
            clash = "out overlaps values";
        else if (c->ranks && mj__ranges_overlap(c->ranks, out_bytes, c->offsets, off_bytes))
            clash = "ranks overlaps offsets";
        else if (c->ranks && mj__ranges_overlap(c->ranks, out_bytes, c->out0, out_bytes))
            clash = "ranks overlaps objects";
        if (clash) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s", fn, clash);
    }
    if ((st = mj__ctx_enter(ctx))) return st;
    if (c->items == 0) {
        mj__ctx_leave(ctx);
        return MJ_OK;
    }
    mj_run rn;
    if ((st = mj__check_pointer(s, c->offsets, s->key_align, "offsets")) ||
        (st = mj__check_pointer(s, c->out0, expand ? s->value_align : s->key_align,
                                expand ? "out" : "objects")) ||
        (c->ranks && (st = mj__check_pointer(s, c->ranks, s->key_align, "ranks"))) ||
        (expand && (st = mj__check_pointer(s, c->values, s->value_align, "values"))) ||
        (st = mj__run_begin(s, need, temp, stream, &rn))) {
        mj__ctx_leave(ctx);
        return st;
    }
    long long nv = (long long)s->nt * s->vt;
    long long objects = (long long)c->objects, items = (long long)c->items;
    long long tiles = mj_lbs_tile_count(items, objects, nv);
    CUdeviceptr off = DPTR(c->offsets), parts = rn.base, out = DPTR(c->out0);
    CUdeviceptr second = DPTR(expand ? c->values : c->ranks);
    void *pp[] = {&off, &objects, &items, &tiles, &parts};
    void *tp[] = {&off, &objects, &items, &parts, expand ? &second : &out,
                  expand ? &out : &second};
    long long grid = mj_lbs_partition_blocks(tiles);
    if (!(st = mj__launch(s, MJ_K_LBS_PARTITION, grid, MJ_LBS_PARTITION_THREADS, pp,
                          rn.stream)))
        st = mj__launch(s, expand ? MJ_K_EXPAND : MJ_K_LBS, tiles, (unsigned)s->nt, tp,
                        rn.stream);
    mj__run_end(s, &rn);
    mj__ctx_leave(ctx);
    return st;
}

mj_status mj_sorter_load_balance(mj_sorter *s, const void *offsets, size_t num_objects,
                                 size_t num_items, void *objects, void *ranks, void *temp,
                                 size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_LOAD_BALANCE, "mj_sorter_load_balance");
    if (st) return st;
    lbs_call c = {"mj_sorter_load_balance", offsets, num_objects, num_items, objects, ranks,
                  NULL};
    return run(s, &c, temp, temp_bytes, stream);
}

mj_status mj_sorter_interval_expand(mj_sorter *s, const void *offsets, size_t num_objects,
                                    size_t num_items, const void *values, void *out,
                                    void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_INTERVAL_EXPAND, "mj_sorter_interval_expand");
    if (st) return st;
    lbs_call c = {"mj_sorter_interval_expand", offsets, num_objects, num_items, out, NULL,
                  values};
    return run(s, &c, temp, temp_bytes, stream);
}
