/* SPDX-License-Identifier: Apache-2.0 */
/* One-call functions: build (or find) the sorter, run it with library-allocated storage. */
#include "core/context.h"

/* The sorter for desc with the call's value size (and primitive, unless `primitive` is
 * MJ_PRIMITIVE_COUNT: then desc's). */
static mj_status make(mj_context *ctx, const mj_sort_desc *desc, mj_primitive primitive,
                      size_t value_size, mj_sorter **s) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "desc is NULL");
    mj_sort_desc d = *desc;
    d.value_size = value_size;
    if (primitive != MJ_PRIMITIVE_COUNT) d.primitive = primitive;
    return mj_sorter_create(ctx, &d, s);
}

static mj_status sort(mj_context *ctx, const mj_sort_desc *desc, size_t value_size, void *keys,
                      void *values, size_t n, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_PRIMITIVE_COUNT, value_size, &s);
    if (st) return st;
    st = mj_sorter_sort(s, keys, values, n, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_sort_keys(mj_context *ctx, const mj_sort_desc *desc, void *keys, size_t n,
                       void *stream) {
    return sort(ctx, desc, 0, keys, NULL, n, stream);
}

mj_status mj_sort_pairs(mj_context *ctx, const mj_sort_desc *desc, void *keys, void *values,
                        size_t n, size_t value_size, void *stream) {
    if (ctx && value_size == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sort_pairs needs value_size > 0");
    return sort(ctx, desc, value_size, keys, values, n, stream);
}

mj_status mj_sort_indices(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                          void *indices, size_t n, size_t index_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_MERGESORT, index_size, &s);
    if (st) return st;
    st = mj_sorter_sort_indices(s, keys, indices, n, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

static mj_status merge(mj_context *ctx, const mj_sort_desc *desc, size_t value_size,
                       const void *ak, const void *av, size_t a_count, const void *bk,
                       const void *bv, size_t b_count, void *ok, void *ov, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_MERGE, value_size, &s);
    if (st) return st;
    st = mj_sorter_merge(s, ak, av, a_count, bk, bv, b_count, ok, ov, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_merge_keys(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                        size_t a_count, const void *b_keys, size_t b_count, void *out_keys,
                        void *stream) {
    return merge(ctx, desc, 0, a_keys, NULL, a_count, b_keys, NULL, b_count, out_keys, NULL,
                 stream);
}

mj_status mj_merge_pairs(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                         const void *a_values, size_t a_count, const void *b_keys,
                         const void *b_values, size_t b_count, void *out_keys,
                         void *out_values, size_t value_size, void *stream) {
    if (ctx && value_size == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_merge_pairs needs value_size > 0");
    return merge(ctx, desc, value_size, a_keys, a_values, a_count, b_keys, b_values, b_count,
                 out_keys, out_values, stream);
}

static mj_status segsort(mj_context *ctx, const mj_sort_desc *desc, size_t value_size,
                         void *keys, void *values, size_t n, const mj_segments *segments,
                         void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SEGMENTED_SORT, value_size, &s);
    if (st) return st;
    st = mj_sorter_segmented_sort(s, keys, values, n, segments, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_segmented_sort_keys(mj_context *ctx, const mj_sort_desc *desc, void *keys,
                                 size_t n, const mj_segments *segments, void *stream) {
    return segsort(ctx, desc, 0, keys, NULL, n, segments, stream);
}

mj_status mj_segmented_sort_pairs(mj_context *ctx, const mj_sort_desc *desc, void *keys,
                                  void *values, size_t n, const mj_segments *segments,
                                  size_t value_size, void *stream) {
    if (ctx && value_size == 0)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT,
                        "mj_segmented_sort_pairs needs value_size > 0");
    return segsort(ctx, desc, value_size, keys, values, n, segments, stream);
}

mj_status mj_reduce(mj_context *ctx, const mj_sort_desc *desc, const void *in, size_t n,
                    void *out, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_REDUCE, 0, &s);
    if (st) return st;
    st = mj_sorter_reduce(s, in, n, out, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_scan(mj_context *ctx, const mj_sort_desc *desc, const void *in, size_t n,
                  void *out, mj_scan_kind kind, void *total, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SCAN, 0, &s);
    if (st) return st;
    st = mj_sorter_scan(s, in, n, out, kind, total, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_load_balance(mj_context *ctx, const mj_sort_desc *desc, const void *offsets,
                          size_t num_objects, size_t num_items, void *objects, void *ranks,
                          void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_LOAD_BALANCE, 0, &s);
    if (st) return st;
    st = mj_sorter_load_balance(s, offsets, num_objects, num_items, objects, ranks, NULL, 0,
                                stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_interval_expand(mj_context *ctx, const mj_sort_desc *desc, const void *offsets,
                             size_t num_objects, size_t num_items, const void *values,
                             void *out, size_t value_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_INTERVAL_EXPAND, value_size, &s);
    if (st) return st;
    st = mj_sorter_interval_expand(s, offsets, num_objects, num_items, values, out, NULL, 0,
                                   stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_sorted_search(mj_context *ctx, const mj_sort_desc *desc, const void *a,
                           size_t a_count, const void *b, size_t b_count,
                           const mj_search_outputs *out, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SORTED_SEARCH, 0, &s);
    if (st) return st;
    st = mj_sorter_sorted_search(s, a, a_count, b, b_count, out, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_bulk_remove(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                         const void *values, size_t n, const void *indices, size_t num_indices,
                         size_t index_size, void *out_keys, void *out_values,
                         size_t value_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_BULK_REMOVE, value_size, &s);
    if (st) return st;
    st = mj_sorter_bulk_remove(s, keys, values, n, indices, num_indices, index_size, out_keys,
                               out_values, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_bulk_insert(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                         const void *a_values, const void *positions, size_t a_count,
                         size_t index_size, const void *b_keys, const void *b_values,
                         size_t b_count, void *out_keys, void *out_values, size_t value_size,
                         void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_BULK_INSERT, value_size, &s);
    if (st) return st;
    st = mj_sorter_bulk_insert(s, a_keys, a_values, positions, a_count, index_size, b_keys,
                               b_values, b_count, out_keys, out_values, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_interval_move(mj_context *ctx, const mj_sort_desc *desc, const void *offsets,
                           size_t num_intervals, size_t num_items, const void *gather,
                           const void *scatter, const void *in, size_t in_count, void *out,
                           size_t out_count, size_t value_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_INTERVAL_MOVE, value_size, &s);
    if (st) return st;
    st = mj_sorter_interval_move(s, offsets, num_intervals, num_items, gather, scatter, in,
                                 in_count, out, out_count, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_join(mj_context *ctx, const mj_sort_desc *desc, mj_join_kind kind, const void *a,
                  size_t a_count, const void *b, size_t b_count, size_t index_size, void *a_rows,
                  void *b_rows, size_t capacity, void *out_count, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_JOIN, 0, &s);
    if (st) return st;
    st = mj_sorter_join(s, kind, a, a_count, b, b_count, index_size, a_rows, b_rows, capacity,
                        out_count, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_set_op_run(mj_context *ctx, const mj_sort_desc *desc, mj_set_op op,
                        const void *a_keys, const void *a_values, size_t a_count,
                        const void *b_keys, const void *b_values, size_t b_count,
                        void *out_keys, void *out_values, void *out_count, size_t value_size,
                        void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SET_OPS, value_size, &s);
    if (st) return st;
    st = mj_sorter_set_op(s, op, a_keys, a_values, a_count, b_keys, b_values, b_count, out_keys,
                          out_values, out_count, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_select(mj_context *ctx, const mj_sort_desc *desc, mj_select_kind kind,
                    const void *keys, const void *values, size_t n, void *out_keys,
                    void *out_values, void *out_count, size_t value_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SELECT, value_size, &s);
    if (st) return st;
    st = mj_sorter_select(s, kind, keys, values, n, out_keys, out_values, out_count, NULL, 0,
                          stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_segmented_reduce(mj_context *ctx, const mj_sort_desc *desc, const void *in,
                              size_t n, const mj_segments *segments, void *out, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_SEGMENTED_REDUCE, 0, &s);
    if (st) return st;
    st = mj_sorter_segmented_reduce(s, in, n, segments, out, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_reduce_by_key(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                           const void *values, size_t n, void *out_keys, void *out_values,
                           void *out_count, size_t value_size, void *stream) {
    mj_sorter *s;
    mj_status st = make(ctx, desc, MJ_REDUCE_BY_KEY, value_size, &s);
    if (st) return st;
    st = mj_sorter_reduce_by_key(s, keys, values, n, out_keys, out_values, out_count, NULL, 0,
                                 stream);
    mj_sorter_destroy(s);
    return st;
}
