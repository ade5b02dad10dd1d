/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of reduce by key (kernel_reduce_by_key.cuh): argument checks, then one pass of
 * the tiles, which find where their runs go with a decoupled look-back and write the count.
 * Every check comes before the first launch. */
#include "primitives/reduce_by_key.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"

#define FN "mj_sorter_reduce_by_key"

/* The look-back keeps a count in 62 bits. */
#define MJ_RBK_MAX_COUNT (((size_t)1 << 62) - 1)

/* The look-back state: 16 bytes (the tile counter's, padded to keep the tiles' 16-byte
 * words aligned) and two words a tile, cleared by every run; then, for values over 8 bytes,
 * two values a tile (written before they are read: not cleared). */
typedef struct rbk_layout {
    long long tiles;
    size_t state, state_bytes, values, total;
} rbk_layout;

static mj_status layout(const mj_sorter *s, size_t n, rbk_layout *l) {
    if (n > MJ_RBK_MAX_COUNT)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements are too many (2^62 at most)",
                        n);
    size_t nv = (size_t)s->nt * (size_t)s->vt, tiles = n / nv + (n % nv != 0);
    mj_temp_layout t = {0, 0};
    l->state_bytes = (2 * tiles + 2) * sizeof(uint64_t);
    l->state = mj__temp_part(&t, 2 * tiles + 2, sizeof(uint64_t));
    l->values = s->value_size > 8 ? mj__temp_part(&t, 2 * tiles, s->value_size) : 0;
    if (t.overflow || tiles >= 0x7fffffffull)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements need more blocks than a grid has", n);
    l->tiles = (long long)tiles;
    l->total = t.total;
    return MJ_OK;
}

mj_status mj__reduce_by_key_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    rbk_layout l = {0, 0, 0, 0, 0};
    mj_status st = layout(s, n, &l);
    if (!st) *bytes = l.total;
    return st;
}

mj_status mj_sorter_reduce_by_key(mj_sorter *s, const void *keys, const void *values,
                                  size_t n, void *out_keys, void *out_values, void *out_count,
                                  void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_REDUCE_BY_KEY, FN);
    if (st) return st;
    if ((n && (!keys || !values || !out_keys || !out_values)) || !out_count)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": %s is NULL",
                        !out_count     ? "out_count"
                        : !keys        ? "keys"
                        : !values      ? "values"
                        : !out_keys    ? "out_keys"
                                       : "out_values");
    enum { KEYS, VALUES, OUT_KEYS, OUT_VALUES, OUT_COUNT, ARRAYS };
    mj_array a[ARRAYS] = {{keys, 0, "keys"},
                          {values, 0, "values"},
                          {out_keys, 0, "out_keys"},
                          {out_values, 0, "out_values"},
                          {out_count, 0, "out_count"}};
    size_t vs = s->value_size;
    size_t count[ARRAYS] = {n, n, n, n, 1};
    size_t size[ARRAYS] = {s->key_size, vs, s->key_size, vs, sizeof(uint64_t)};
    size_t align[ARRAYS] = {s->key_align, s->value_align, s->key_align, s->value_align,
                            sizeof(uint64_t)};
    rbk_layout l = {0, 0, 0, 0, 0};
    if ((st = mj__array_bytes(s, FN, a, count, size, ARRAYS)) || (st = layout(s, n, &l)) ||
        (st = mj__check_overlaps(s, FN, a, OUT_KEYS, ARRAYS)) ||
        (st = mj__run_check_temp(s, l.total, temp, temp_bytes)))
        return st;
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, n ? MJ_RUN_TEMP : MJ_RUN_CHECK, l.total, temp, stream,
                      &rn);
    CUdeviceptr oc = DPTR(out_count);
    if (!st && n == 0) { /* no runs: only the count */
        st = mj__run_clear(s, oc, sizeof(uint64_t), rn.stream, "clearing out_count");
    } else if (!st) {
        long long count_n = (long long)n;
        CUdeviceptr k = DPTR(keys), v = DPTR(values), ok = DPTR(out_keys), ov = DPTR(out_values);
        CUdeviceptr state = rn.base + l.state, state_values = vs > 8 ? rn.base + l.values : 0;
        void *params[] = {&k, &v, &count_n, &ok, &ov, &oc, &state, &state_values};
        st = mj__run_clear(s, state, l.state_bytes, rn.stream, "clearing the tile states");
        if (!st)
            st = mj__launch(s, MJ_K_REDUCE_BY_KEY, l.tiles, (unsigned)s->nt, params, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
