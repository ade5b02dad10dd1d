/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the segmented reduction (kernel_segreduce.cuh): argument checks, then lbs's
 * coarse partition of the elements merged with the offsets and one pass of the tiles, which
 * carry open segments across tiles by the scan's look-back. Every check comes before the first
 * launch. */
#include "primitives/segreduce.h"

#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/run.h"
#include "primitives/scan.h"
#include "shared/load_balance.h"

#define FN "mj_sorter_segmented_reduce"

/* Partition entries (tiles + 1), then the look-back's counter, states and values. */
typedef struct segreduce_layout {
    long long tiles;
    size_t partitions, state, state_bytes, values, total;
} segreduce_layout;

static mj_status layout(const mj_sorter *s, size_t merged, segreduce_layout *l) {
    long long nv = (long long)s->nt * s->vt;
    *l = (segreduce_layout){0, 0, 0, 0, 0, 0};
    if (merged > (size_t)INT64_MAX - (size_t)nv)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements and offsets are too many",
                        merged);
    l->tiles = mj_lbs_tile_count((long long)merged, 0, nv);
    if (l->tiles >= 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE,
                        "%zu elements and offsets need more blocks than a grid has", merged);
    mj_temp_layout t = {0, 0};
    l->partitions = mj__temp_part(&t, (size_t)l->tiles + 1, sizeof(long long));
    l->state = mj__look_back_parts(s, (size_t)l->tiles, &t, &l->state_bytes, &l->values);
    if (t.overflow)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements and offsets do not fit in memory",
                        merged);
    l->total = t.total;
    return MJ_OK;
}

mj_status mj__segreduce_temp(const mj_sorter *s, size_t merged, size_t *bytes) {
    segreduce_layout l;
    mj_status st = layout(s, merged, &l);
    if (!st) *bytes = l.total;
    return st;
}

mj_status mj_sorter_segmented_reduce(mj_sorter *s, const void *in, size_t n,
                                     const mj_segments *segments, void *out, void *temp,
                                     size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_context *ctx = s->ctx;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SEGMENTED_REDUCE, FN);
    if (st) return st;
    if (!segments) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": segments is NULL");
    if (segments->kind != MJ_SEGMENTS_OFFSETS)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": segments of kind %d: only MJ_SEGMENTS_OFFSETS (CSR offsets) are "
                           "taken",
                        (int)segments->kind);
    size_t isz = segments->index_size, count = segments->count;
    if (isz != 4 && isz != 8)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        FN ": index_size %zu (offsets are 4 or 8 bytes)", isz);
    size_t segs = count ? count - 1 : 0, merged;
    if ((n && !in) || (count && !segments->data) || (segs && !out))
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": %s is NULL",
                        n && !in                      ? "in"
                        : count && !segments->data ? "segments->data"
                                                      : "out");
    if (__builtin_add_overflow(n, count, &merged))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, FN ": n + count (%zu + %zu) is too many", n,
                        count);
    enum { IN, OFFSETS, OUT, ARRAYS };
    mj_array a[ARRAYS] = {{in, 0, "in"}, {segments->data, 0, "offsets"}, {out, 0, "out"}};
    size_t cnt[ARRAYS] = {n, count, segs};
    size_t size[ARRAYS] = {s->key_size, isz, s->key_size};
    size_t align[ARRAYS] = {s->key_align, isz, s->key_align};
    segreduce_layout l;
    if ((st = mj__array_bytes(s, FN, a, cnt, size, ARRAYS)) ||
        (st = mj__check_overlaps(s, FN, a, OUT, ARRAYS)) || (st = layout(s, merged, &l)) ||
        (st = mj__run_check_temp(s, l.total, temp, temp_bytes)))
        return st;
    /* No segments: no results to write (the arrays are checked all the same). */
    mj_run rn;
    st = mj__run_open(s, a, align, ARRAYS, segs ? MJ_RUN_TEMP : MJ_RUN_CHECK, l.total, temp,
                      stream, &rn);
    if (!st && segs) {
        long long nn = (long long)n, cc = (long long)count, tiles = l.tiles;
        int index_size = (int)isz;
        CUdeviceptr src = DPTR(in), offs = DPTR(segments->data), dst = DPTR(out);
        CUdeviceptr parts = rn.base + l.partitions, state = rn.base + l.state;
        CUdeviceptr values = rn.base + l.values;
        void *pp[] = {&offs, &index_size, &cc, &nn, &tiles, &parts};
        void *tp[] = {&src, &nn, &offs, &index_size, &cc, &parts, &dst, &state, &values};
        /* The tile counter and states start at zero, in stream order. */
        st = mj__run_clear(s, state, l.state_bytes, rn.stream, "clearing the tile states");
        if (!st)
            st = mj__launch(s, MJ_K_SEGREDUCE_PARTITION, mj_lbs_partition_blocks(tiles),
                            MJ_LBS_PARTITION_THREADS, pp, rn.stream);
        if (!st) st = mj__launch(s, MJ_K_SEGREDUCE, tiles, (unsigned)s->nt, tp, rn.stream);
    }
    return mj__run_close(s, &rn, st);
}
