/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the multiset operations (kernel_setops.cuh): argument checks, then the
 * balanced-path partitions and one pass of the tiles (which scan their counts as they go and
 * write the total). Every check comes before the first launch. */
#include "primitives/setops.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"
#include "shared/balanced_path.h"
#include "shared/merge_frame.h"

#define FN "mj_sorter_set_op"

/* The look-back keeps a count in 62 bits. */
#define MJ_SETOP_MAX_COUNT (((size_t)1 << 62) - 1)

size_t mj_set_op_bound(mj_set_op op, size_t a_count, size_t b_count) {
    size_t sum = a_count + b_count < a_count ? SIZE_MAX : a_count + b_count;
    switch (op) {
    case MJ_SET_INTERSECTION: return a_count < b_count ? a_count : b_count;
    case MJ_SET_DIFFERENCE: return a_count;
    case MJ_SET_UNION:
    case MJ_SET_SYMMETRIC_DIFFERENCE: return sum;
    default: return 0;
    }
}

/* Partition entries (tiles + 1), then the tiles' look-back states and the tile counter. */
typedef struct setops_layout {
    long long tiles;
    size_t partitions, states, total;
} setops_layout;

static mj_status layout(const mj_sorter *s, size_t n, setops_layout *l) {
    long long nv = (long long)s->nt * s->vt;
    if (n > MJ_SETOP_MAX_COUNT)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements are too many (2^62 at most)",
                        n);
    l->tiles = mj_setop_tile_count((long long)n, nv);
    mj_temp_layout t = {0, 0};
    l->partitions = mj__temp_part(&t, (size_t)l->tiles + 1, sizeof(long long));
    l->states = mj__temp_part(&t, (size_t)l->tiles + 1, sizeof(uint64_t));
    if (t.overflow || l->tiles >= 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements need more blocks than a grid has", n);
    l->total = t.total;
    return MJ_OK;
}

mj_status mj__setops_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    setops_layout l = {0, 0, 0, 0};
    mj_status st = layout(s, n, &l);
    if (!st) *bytes = l.total;
    return st;
}

mj_status mj_sorter_set_op(mj_sorter *s, mj_set_op op, const void *a_keys,
                           const void *a_values, size_t a_count, const void *b_keys,
                           const void *b_values, size_t b_count, void *out_keys,
                           void *out_values, void *out_count, void *temp, size_t temp_bytes,
                           void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SET_OPS, FN);
    if (st) return st;
    int keep = mj_set_op_keep((int)op);
    if (!keep) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": unknown operation %d", (int)op);
    size_t n;
    if (__builtin_add_overflow(a_count, b_count, &n) || n > MJ_SETOP_MAX_COUNT)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE,
                        FN ": a_count + b_count (%zu + %zu) is too many (2^62 at most)", a_count,
                        b_count);
    size_t bound = mj_set_op_bound(op, a_count, b_count), vs = s->value_size;
    if ((st = mj__check_values(s, a_values, a_count)) ||
        (st = mj__check_values(s, b_values, b_count)))
        return st;
    if (vs && bound && !out_values)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": this sorter carries %zu-byte values: out_values is required", vs);
    if (!vs && out_values)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": this sorter takes keys only (value_size 0) but out_values was "
                           "given");
    if ((a_count && !a_keys) || (b_count && !b_keys) || (bound && !out_keys) || !out_count)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": %s is NULL",
                        a_count && !a_keys   ? "a_keys"
                        : b_count && !b_keys ? "b_keys"
                        : !out_count         ? "out_count"
                                             : "out_keys");
    enum { A_KEYS, A_VALUES, B_KEYS, B_VALUES, OUT_KEYS, OUT_VALUES, OUT_COUNT, ARRAYS };
    mj_array a[ARRAYS] = {{a_keys, 0, "a_keys"},         {a_values, 0, "a_values"},
                          {b_keys, 0, "b_keys"},         {b_values, 0, "b_values"},
                          {out_keys, 0, "out_keys"},     {out_values, 0, "out_values"},
                          {out_count, 0, "out_count"}};
    size_t count[ARRAYS] = {a_count, vs ? a_count : 0, b_count, vs ? b_count : 0, bound,
                            vs ? bound : 0, 1};
    size_t size[ARRAYS] = {s->key_size, vs, s->key_size, vs, s->key_size, vs, sizeof(uint64_t)};
    size_t align[ARRAYS] = {s->key_align, s->value_align, s->key_align, s->value_align,
                            s->key_align, s->value_align, sizeof(uint64_t)};
    setops_layout l = {0, 0, 0, 0};
    if ((st = mj__array_bytes(s, FN, a, count, size, ARRAYS)) ||
        (st = mj__check_overlaps(s, FN, a, OUT_KEYS, ARRAYS)) || (st = layout(s, n, &l)) ||
        (st = mj__run_check_temp(s, l.total, temp, temp_bytes)))
        return st;
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, bound ? MJ_RUN_TEMP : MJ_RUN_CHECK, l.total, temp,
                      stream, &rn);
    CUdeviceptr oc = DPTR(out_count);
    if (!st && bound == 0) { /* nothing to emit: only the count */
        st = mj__run_clear(s, oc, sizeof(uint64_t), rn.stream, "clearing out_count");
    } else if (!st) {
        long long ac = (long long)a_count, bc = (long long)b_count, tiles = l.tiles;
        long long cap = (long long)bound;
        CUdeviceptr ak = DPTR(a_keys), av = DPTR(a_values), bk = DPTR(b_keys), bv = DPTR(b_values);
        CUdeviceptr ok = DPTR(out_keys), ov = DPTR(out_values);
        CUdeviceptr parts = rn.base + l.partitions, states = rn.base + l.states;
        int lanes = mj_search_lanes(tiles + 1);
        void *pp[] = {&ak, &ac, &bk, &bc, &tiles, &parts, &lanes};
        void *tp[] = {&ak, &av, &ac, &bk, &bv, &bc, &parts, &keep, &states, &ok, &ov, &cap, &oc};
        long long grid =
            ((tiles + 1) * lanes + MJ_SETOP_PARTITION_NT - 1) / MJ_SETOP_PARTITION_NT;
        /* The states and the tile counter start at zero, in stream order. */
        st = mj__run_clear(s, states, ((size_t)tiles + 1) * sizeof(uint64_t), rn.stream,
                           "clearing the tile states");
        if (!st)
            st = mj__launch(s, MJ_K_SETOP_PARTITION, grid, MJ_SETOP_PARTITION_NT, pp, rn.stream);
        if (!st) st = mj__launch(s, MJ_K_SETOP, tiles, (unsigned)s->nt, tp, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
