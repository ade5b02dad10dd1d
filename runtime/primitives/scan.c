/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of reduce and scan (kernel_reduce.cuh, kernel_scan.cuh): temporary storage,
 * argument checks, launches. Every check comes before the first launch. */
#include "primitives/scan.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"

/* Tiles of n elements, or -1 when n or its bytes are beyond what a grid and memory hold. */
static long long tile_count(const mj_sorter *s, size_t n) {
    size_t nv = (size_t)s->nt * (size_t)s->vt, bytes;
    if (n > (size_t)INT64_MAX || __builtin_mul_overflow(n, s->key_size, &bytes)) return -1;
    size_t tiles = n / nv + (n % nv != 0);
    return tiles >= 0x7fffffffull ? -1 : (long long)tiles;
}

/* ---------------------------------------------------------------- reduce */

/* One pass of blocks over even shares of the tiles (kernel_reduce.cuh), at most one tile's
 * worth of blocks so that a second pass of one block combines their partials, and where the
 * loader knows it, exactly as many as are resident at once: every multiprocessor then holds
 * the same number of blocks with the same work for the whole pass, no last wave running
 * part-empty on a pass bound by memory (docs/TUNING.md). */
typedef struct reduce_plan {
    long long grid;
} reduce_plan;

static mj_status reduce_plan_for(const mj_sorter *s, size_t n, reduce_plan *p, size_t *bytes) {
    long long tiles = tile_count(s, n), nv = (long long)s->nt * s->vt;
    if (tiles < 0)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements need more blocks than a grid has",
                        n);
    long long most = s->mod->resident > 0 && s->mod->resident < nv ? s->mod->resident : nv;
    p->grid = tiles < most ? (tiles ? tiles : 1) : most;
    *bytes = p->grid > 1 ? (size_t)p->grid * s->key_size : 0;
    return MJ_OK;
}

mj_status mj__reduce_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    reduce_plan p;
    return reduce_plan_for(s, n, &p, bytes);
}

mj_status mj_sorter_reduce(mj_sorter *s, const void *in, size_t n, void *out, void *temp,
                           size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_REDUCE, "mj_sorter_reduce");
    if (st) return st;
    if (!out || (n && !in))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sorter_reduce: %s is NULL",
                        out ? "in" : "out");
    reduce_plan p;
    size_t need = 0;
    if ((st = reduce_plan_for(s, n, &p, &need)) ||
        (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    /* tile_count checked n's bytes; out gets the one result, even of no elements. */
    const mj_array a[] = {{in, n * s->key_size, "in"}, {out, s->key_size, "out"}};
    const size_t align[] = {s->key_align, s->key_align};
    mj_run rn;
    st = mj__run_open(s, a, align, 2, MJ_RUN_TEMP, need, temp, stream, &rn);
    if (!st) {
        CUdeviceptr src = DPTR(in), dst = DPTR(out), partials = rn.base;
        long long count = (long long)n;
        void *first[] = {&src, &count, p.grid > 1 ? &partials : &dst};
        void *second[] = {&partials, &p.grid, &dst};
        st = mj__launch(s, MJ_K_REDUCE, p.grid, (unsigned)s->nt, first, rn.stream);
        if (!st && p.grid > 1)
            st = mj__launch(s, MJ_K_REDUCE, 1, (unsigned)s->nt, second, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}

/* ---------------------------------------------------------------- scan */

/* [state: 64-bit tile counter, then per tile a 64-bit word (keys of up to 4 bytes), a 16-byte
 * pair after 8 bytes of padding (up to 8 bytes) or a 32-bit status; cleared before each run]
 * [values: aggregates and inclusive prefixes, keys padded to 4-byte words, larger keys only].
 * See kernel_scan.cuh. */
typedef struct scan_layout {
    long long tiles;
    size_t state_bytes, values, total;
} scan_layout;

size_t mj__look_back_parts(const mj_sorter *s, size_t tiles, mj_temp_layout *l,
                           size_t *state_bytes, size_t *values) {
    size_t words = (s->key_size + 3) / 4;
    int packed = s->key_size <= 8;
    size_t head = s->key_size <= 4 ? 8 : packed ? 16 : 8;
    size_t per_tile = s->key_size <= 4 ? 8 : packed ? 16 : 4;
    *state_bytes = tiles ? head + tiles * per_tile : 0;
    size_t state = mj__temp_part(l, *state_bytes, 1);
    *values = mj__temp_part(l, packed ? 0 : 2 * tiles, 4 * words);
    return state;
}

static mj_status scan_layout_for(const mj_sorter *s, size_t n, scan_layout *t) {
    *t = (scan_layout){0, 0, 0, 0};
    t->tiles = tile_count(s, n);
    if (t->tiles < 0)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements need more blocks than a grid has",
                        n);
    mj_temp_layout l = {0, 0};
    mj__look_back_parts(s, (size_t)t->tiles, &l, &t->state_bytes, &t->values);
    t->total = l.total;
    if (l.overflow)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory", n);
    return MJ_OK;
}

mj_status mj__scan_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    scan_layout t;
    mj_status st = scan_layout_for(s, n, &t);
    if (st == MJ_OK) *bytes = t.total;
    return st;
}

mj_status mj_sorter_scan(mj_sorter *s, const void *in, size_t n, void *out, mj_scan_kind kind,
                         void *total, void *temp, size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SCAN, "mj_sorter_scan");
    if (st) return st;
    if (kind != MJ_SCAN_EXCLUSIVE && kind != MJ_SCAN_INCLUSIVE)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sorter_scan: unknown kind %d",
                        (int)kind);
    if (n && (!in || !out))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sorter_scan: %s is NULL",
                        in ? "out" : "in");
    scan_layout t;
    if ((st = scan_layout_for(s, n, &t)) || (st = mj__run_check_temp(s, t.total, temp, temp_bytes)))
        return st;
    size_t bytes = n * s->key_size; /* tile_count checked the product */
    if (in != out && mj__ranges_overlap(in, bytes, out, bytes))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "mj_sorter_scan: out overlaps in without being in (in place)");
    if (total && (mj__ranges_overlap(total, s->key_size, in, bytes) ||
                  mj__ranges_overlap(total, s->key_size, out, bytes)))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sorter_scan: total overlaps in or out");
    const mj_array a[] = {{in, bytes, "in"}, {out, bytes, "out"},
                          {total, total ? s->key_size : 0, "total"}};
    const size_t align[] = {s->key_align, s->key_align, s->key_align};
    /* No elements: nothing to launch unless total is to get the identity. */
    mj_run rn;
    st = mj__run_open(s, a, align, 3, MJ_RUN_TEMP, t.total, temp, stream, &rn);
    if (!st && (n || total)) {
        CUdeviceptr src = DPTR(in), dst = DPTR(out), sum = DPTR(total);
        CUdeviceptr state = rn.base, values = rn.base + t.values;
        long long count = (long long)n;
        int inclusive = kind == MJ_SCAN_INCLUSIVE;
        void *params[] = {&src, &dst, &count, &inclusive, &sum, &state, &values};
        /* A run over a reused buffer must not find the last run's tile states. */
        st = t.state_bytes ? mj__run_clear(s, state, t.state_bytes, rn.stream,
                                           "clearing the scan's tile states")
                           : MJ_OK;
        if (!st)
            st = mj__launch(s, MJ_K_SCAN, t.tiles ? t.tiles : 1, (unsigned)s->nt, params,
                            rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
