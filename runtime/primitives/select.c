/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of select (kernel_select.cuh): argument checks, then one pass of the tiles,
 * which number what they keep with a look-back over the tiles' counts and write the total.
 * Every check comes before the first launch. */
#include "primitives/select.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"

#define FN "mj_sorter_select"

/* The look-back keeps a count in 62 bits. */
#define MJ_SELECT_MAX_COUNT (((size_t)1 << 62) - 1)

/* The tiles' look-back states, then the tile counter. */
typedef struct select_layout {
    long long tiles;
    size_t states, total;
} select_layout;

static mj_status layout(const mj_sorter *s, size_t n, select_layout *l) {
    size_t nv = (size_t)s->nt * (size_t)s->vt;
    if (n > MJ_SELECT_MAX_COUNT)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements are too many (2^62 at most)",
                        n);
    l->tiles = (long long)((n + nv - 1) / nv);
    mj_temp_layout t = {0, 0};
    l->states = mj__temp_part(&t, (size_t)l->tiles + 1, sizeof(uint64_t));
    if (t.overflow || l->tiles >= 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements need more blocks than a grid has", n);
    l->total = t.total;
    return MJ_OK;
}

mj_status mj__select_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    select_layout l = {0, 0, 0};
    mj_status st = layout(s, n, &l);
    if (!st) *bytes = l.total;
    return st;
}

mj_status mj_sorter_select(mj_sorter *s, mj_select_kind kind, const void *keys,
                           const void *values, size_t n, void *out_keys, void *out_values,
                           void *out_count, void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SELECT, FN);
    if (st) return st;
    if (kind != MJ_SELECT_IF && kind != MJ_SELECT_UNIQUE)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": unknown kind %d", (int)kind);
    if (kind == MJ_SELECT_IF && !s->has_op)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": MJ_SELECT_IF needs a sorter built with a selection operator "
                           "(mj_sort_desc.op, e.g. \"a > 0\"); this one runs MJ_SELECT_UNIQUE "
                           "only");
    if (kind == MJ_SELECT_UNIQUE && !s->has_less)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": MJ_SELECT_UNIQUE needs a comparator: this sorter of a custom key "
                           "was built without one (mj_sort_desc.less) and runs MJ_SELECT_IF "
                           "only");
    size_t vs = s->value_size;
    if ((st = mj__check_values(s, values, n))) return st;
    if (vs && n && !out_values)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": this sorter carries %zu-byte values: out_values is required", vs);
    if (!vs && out_values)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": this sorter takes keys only (value_size 0) but out_values was "
                           "given");
    if ((n && !keys) || (n && !out_keys) || !out_count)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": %s is NULL",
                        n && !keys ? "keys" : !out_count ? "out_count" : "out_keys");
    enum { KEYS, VALUES, OUT_KEYS, OUT_VALUES, OUT_COUNT, ARRAYS };
    mj_array a[ARRAYS] = {{keys, 0, "keys"},
                          {values, 0, "values"},
                          {out_keys, 0, "out_keys"},
                          {out_values, 0, "out_values"},
                          {out_count, 0, "out_count"}};
    size_t count[ARRAYS] = {n, vs ? n : 0, n, vs ? n : 0, 1};
    size_t size[ARRAYS] = {s->key_size, vs, s->key_size, vs, sizeof(uint64_t)};
    size_t align[ARRAYS] = {s->key_align, s->value_align, s->key_align, s->value_align,
                            sizeof(uint64_t)};
    select_layout l = {0, 0, 0};
    if ((st = mj__array_bytes(s, FN, a, count, size, ARRAYS)) ||
        (st = mj__check_overlaps(s, FN, a, OUT_KEYS, ARRAYS)) || (st = layout(s, n, &l)) ||
        (st = mj__run_check_temp(s, l.total, temp, temp_bytes)))
        return st;
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, n ? MJ_RUN_TEMP : MJ_RUN_CHECK, l.total, temp, stream,
                      &rn);
    CUdeviceptr oc = DPTR(out_count);
    if (!st && n == 0) { /* nothing to keep: only the count */
        st = mj__run_clear(s, oc, sizeof(uint64_t), rn.stream, "clearing out_count");
    } else if (!st) {
        long long count_n = (long long)n;
        int k = (int)kind;
        CUdeviceptr ik = DPTR(keys), iv = DPTR(values), ok = DPTR(out_keys), ov = DPTR(out_values);
        CUdeviceptr states = rn.base + l.states;
        void *params[] = {&ik, &iv, &count_n, &k, &states, &ok, &ov, &oc};
        /* The states and the tile counter start at zero, in stream order. */
        st = mj__run_clear(s, states, ((size_t)l.tiles + 1) * sizeof(uint64_t), rn.stream,
                           "clearing the tile states");
        if (!st) st = mj__launch(s, MJ_K_SELECT, l.tiles, (unsigned)s->nt, params, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
