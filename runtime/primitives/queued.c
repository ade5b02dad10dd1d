/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of the queued sorts, segmented sort and locality sort: the blocksort in place,
 * then mergesort's passes, each a partition kernel that queues merge jobs and a merge kernel
 * that works them off, between the caller's buffer and scratch; then the tiles left in
 * scratch come back (templates/shared/work_queue.h). */
#include "core/context.h"

#include "gen.h"
#include "primitives/queued.h"
#include "primitives/run.h"
#include "shared/merge_frame.h"
#include "shared/work_queue.h"

#define MJ_HEADS_THREADS 256

/* [key scratch][value scratch][partitions][merge queue][queue lengths, one per pass]
 * [tile locations, two sets][head ranges, two levels][head bits]; the last two for segmented
 * sorts only. The lengths and locations are cleared together: zero bytes put every tile in
 * the caller's buffer, not final. */
typedef struct queued_layout {
    size_t keys, values, partitions, queue, lengths, where, lists, heads, total;
    long long tiles, leaves, head_words;
    int passes;
} queued_layout;

static mj_status layout(const mj_sorter *s, size_t n, queued_layout *q) {
    long long nv = (long long)s->nt * s->vt, runs = s->bs_nt / s->nt;
    int seg = s->primitive == MJ_SEGMENTED_SORT;
    mj_temp_layout l = {0, 0};
    q->tiles = mj_tile_count((long long)n, nv);
    q->leaves = mj_tile_count((long long)n, nv * runs);
    q->head_words = ((long long)n + 31) / 32;
    q->passes = mj_sort_passes((long long)n, nv, runs);
    q->keys = mj__temp_part(&l, n, s->key_size);
    q->values = mj__temp_part(&l, n, s->value_size);
    q->partitions = mj__temp_part(&l, (size_t)q->tiles, sizeof(long long));
    q->queue = mj__temp_part(&l, (size_t)q->tiles, sizeof(int));
    q->lengths = mj__temp_part(&l, (size_t)q->passes + 1, sizeof(int));
    q->where = mj__temp_part(&l, 2 * (size_t)q->tiles, 1);
    q->lists = mj__temp_part(&l, seg ? 2 * (size_t)q->leaves : 0, sizeof(mj_heads_range));
    q->heads = mj__temp_part(&l, seg ? (size_t)q->head_words : 0, sizeof(unsigned));
    q->total = l.total;
    if (l.overflow || q->tiles > 0x7fffffffll)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu elements do not fit in memory or a grid",
                        n);
    return MJ_OK;
}

mj_status mj__queued_temp(const mj_sorter *s, size_t n, size_t *bytes) {
    queued_layout q;
    mj_status st = layout(s, n, &q);
    if (st == MJ_OK) *bytes = q.total;
    return st;
}

static mj_status check_segments(mj_sorter *s, const mj_segments *g, size_t n) {
    if (!g) return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "segments is NULL");
    switch (g->kind) {
    case MJ_SEGMENTS_FLAGS:
    case MJ_SEGMENTS_FLAG_BITS:
        return !g->data && n ? mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "segments->data is NULL")
                             : MJ_OK;
    case MJ_SEGMENTS_HEADS:
    case MJ_SEGMENTS_OFFSETS:
        if (g->index_size != 4 && g->index_size != 8)
            return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                            "segment indices are 4 or 8 bytes wide, not %zu", g->index_size);
        if (g->count > 0x7fffffffffffffffull / 8)
            return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%zu segment indices", g->count);
        return !g->data && g->count
                   ? mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "segments->data is NULL")
                   : MJ_OK;
    default:
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "unknown segments kind %d",
                        (int)g->kind);
    }
}

/* Head flag bits from the caller's segments: their own words for FLAG_BITS, else built in
 * temporary storage. */
static mj_status make_heads(mj_sorter *s, const mj_segments *g, long long n, queued_layout *q,
                            CUdeviceptr base, CUstream stream, CUdeviceptr *heads) {
    CUdeviceptr data = DPTR(g->data);
    long long words = q->head_words;
    if (g->kind == MJ_SEGMENTS_FLAG_BITS) {
        *heads = data;
        return MJ_OK;
    }
    *heads = base + q->heads;
    if (g->kind == MJ_SEGMENTS_FLAGS) {
        void *p[] = {&data, &n, heads, &words};
        return mj__launch(s, MJ_K_HEADS_FLAGS,
                          (words * 32 + MJ_HEADS_THREADS - 1) / MJ_HEADS_THREADS, MJ_HEADS_THREADS,
                          p, stream);
    }
    mj_status st = mj__run_clear(s, *heads, (size_t)words * 4, stream, "clearing the head flags");
    if (st || !g->count) return st;
    int index_size = (int)g->index_size;
    long long count = (long long)g->count;
    void *p[] = {&data, &index_size, &count, &n, heads};
    return mj__launch(s, MJ_K_HEADS_INDICES, (count + MJ_HEADS_THREADS - 1) / MJ_HEADS_THREADS,
                      MJ_HEADS_THREADS, p, stream);
}

static mj_status schedule(mj_sorter *s, CUdeviceptr keys, CUdeviceptr values,
                          const mj_segments *g, long long n, queued_layout *q, CUdeviceptr base,
                          CUstream stream) {
    mj_status st;
    int seg = s->primitive == MJ_SEGMENTED_SORT;
    long long runs = s->bs_nt / s->nt, tiles = q->tiles;
    CUdeviceptr k1 = base + q->keys, v1 = s->value_size ? base + q->values : 0;
    CUdeviceptr lists[2] = {seg ? base + q->lists : 0,
                            seg ? base + q->lists + (size_t)q->leaves * sizeof(mj_heads_range)
                                : 0};
    CUdeviceptr where[2] = {base + q->where, base + q->where + (size_t)tiles};
    CUdeviceptr partitions = base + q->partitions, queue = base + q->queue;
    if ((st = mj__run_clear(s, base + q->lengths, q->where + 2 * (size_t)tiles - q->lengths,
                            stream, "clearing the queue lengths")))
        return st;

    CUdeviceptr heads = 0;
    long long words = q->head_words;
    if (seg && (st = make_heads(s, g, n, q, base, stream, &heads))) return st;
    int map_out = 0; /* the queued sorts map floats at each comparison: nothing to map back */
    void *bs_plain[] = {&keys, &values, &keys, &values, &n, &map_out};
    void *bs_seg[] = {&keys, &values, &keys, &values, &n, &map_out, &heads, &words, &lists[0],
                      &where[0]};
    if ((st = mj__launch(s, MJ_K_BLOCKSORT, q->leaves, (unsigned)s->bs_nt,
                         seg ? bs_seg : bs_plain, stream)))
        return st;
    int lanes = mj_search_lanes(tiles);
    long long per_block = MJ_QP_NT / lanes - 1;
    for (int pass = 0; pass < q->passes; ++pass) {
        long long coop = mj_pass_coop(pass, runs);
        CUdeviceptr queued = base + q->lengths + (size_t)pass * sizeof(int);
        CUdeviceptr in = lists[pass & 1], out = lists[(pass & 1) ^ 1];
        CUdeviceptr w_in = where[pass & 1], w_out = where[(pass & 1) ^ 1];
        void *pp[] = {&keys, &k1, &w_in, &w_out, &n, &coop, &tiles, &in, &out,
                      &partitions, &queue, &queued, &lanes};
        void *wp[] = {&keys, &values, &k1, &v1, &w_in, &partitions, &in, &n, &coop, &tiles,
                      &queue, &queued};
        if ((st = mj__launch(s, MJ_K_QUEUE_PARTITION, (tiles + per_block - 1) / per_block,
                             MJ_QP_NT, pp, stream)) ||
            (st = mj__launch(s, MJ_K_QUEUE_WORK, tiles, (unsigned)s->nt, wp, stream)))
            return st;
    }
    if (q->passes == 0) return MJ_OK; /* one blocksort tile: sorted in place */
    CUdeviceptr w_last = where[q->passes & 1];
    void *fp[] = {&keys, &values, &k1, &v1, &w_last, &n};
    return mj__launch(s, MJ_K_QUEUE_FINISH, tiles, (unsigned)s->nt, fp, stream);
}

/* The segments' data as a run reads it, and its alignment (check_segments bounded the count). */
static mj_array segment_data(const mj_segments *g, size_t n, size_t *align) {
    mj_array a = {g ? g->data : NULL, 0, "segments->data"};
    *align = 1;
    if (!g) return a;
    switch (g->kind) {
    case MJ_SEGMENTS_FLAGS: a.bytes = n; break;
    case MJ_SEGMENTS_FLAG_BITS: a.bytes = (n + 31) / 32 * 4, *align = 4; break;
    default: a.bytes = g->count * g->index_size, *align = g->index_size; break;
    }
    return a;
}

static mj_status run(mj_sorter *s, void *keys, void *values, size_t n, const mj_segments *g,
                     void *temp, size_t temp_bytes, void *stream) {
    mj_status st;
    if (s->primitive == MJ_SEGMENTED_SORT && (st = check_segments(s, g, n))) return st;
    queued_layout q;
    if ((st = layout(s, n, &q)) || (st = mj__run_check_temp(s, q.total, temp, temp_bytes)))
        return st;
    size_t seg_align;
    /* layout checked the products; values are given exactly when there are values. */
    const mj_array a[] = {{keys, n * s->key_size, "keys"},
                          {values, n * s->value_size, "values"},
                          segment_data(g, n, &seg_align)};
    const size_t align[] = {s->key_align, s->value_align, seg_align};
    mj_run rn;
    st = mj__run_open(s, a, align, 3, n ? MJ_RUN_TEMP : MJ_RUN_ENTER, q.total, temp, stream, &rn);
    if (!st && n)
        st = schedule(s, DPTR(keys), DPTR(values), g, (long long)n, &q, rn.base, rn.stream);
    return mj__run_close(s, &rn, st);
}

mj_status mj__locality_sort(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                            size_t temp_bytes, void *stream) {
    return run(s, keys, values, n, NULL, temp, temp_bytes, stream);
}

mj_status mj_sorter_segmented_sort(mj_sorter *s, void *keys, void *values, size_t n,
                                   const mj_segments *segments, void *temp, size_t temp_bytes,
                                   void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SEGMENTED_SORT, "mj_sorter_segmented_sort");
    if (st || (st = mj__check_values(s, values, n))) return st;
    return run(s, keys, values, n, segments, temp, temp_bytes, stream);
}
