/* SPDX-License-Identifier: Apache-2.0 */
/* The host side of sorted search (kernel_search.cuh): argument checks, then for each pass the
 * merge partitions (merge.c) and one block per tile. A pass merges a and b with a first on ties
 * (a's lower bound) or b first (its upper bound); a_counts come from the lower bound's pass
 * (the b keys from a key's lower bound on that equal it: kernel_search.cuh), so asked for
 * with upper bounds they take a pass of each. Every check comes before the first launch. */
#include <stdint.h>

#include "core/context.h"
#include "gen.h"
#include "primitives/merge.h"
#include "primitives/run.h"
#include "primitives/search.h"
#include "shared/merge_frame.h"
#include "shared/sorted_search.h"

#define FN "mj_sorter_sorted_search"

/* The arrays of a call, inputs first, with their sizes in bytes. */
enum { A, B, A_INDICES, A_MATCHES, A_COUNTS, B_INDICES, B_MATCHES, MATCH_COUNTS, ARRAYS };
static const char *const array_names[ARRAYS] = {
    "a", "b", "a_indices", "a_matches", "a_counts", "b_indices", "b_matches", "match_counts",
};

/* Checks what does not need the device: the outputs asked for, their sizes, and overlaps;
 * fills arrays (an output not asked for has no bytes) for the pointer checks. */
static mj_status check_call(mj_sorter *s, const void *a, size_t a_count, const void *b,
                            size_t b_count, const mj_search_outputs *o, mj_array *arrays) {
    mj_context *ctx = s->ctx;
    if (!o) return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": out is NULL");
    if (o->bound != MJ_BOUND_LOWER && o->bound != MJ_BOUND_UPPER)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": unknown bound %d", (int)o->bound);
    if (o->index_size != 4 && o->index_size != 8)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": index_size must be 4 or 8, not %zu",
                        o->index_size);
    const void *p[ARRAYS] = {a, b, o->a_indices, o->a_matches, o->a_counts, o->b_indices,
                             o->b_matches, o->match_counts};
    int wanted = 0;
    for (int i = A_INDICES; i < ARRAYS; ++i) wanted |= p[i] != NULL;
    if (!wanted)
        return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": every output in out is NULL");
    size_t n;
    if (__builtin_add_overflow(a_count, b_count, &n) || n > (size_t)INT64_MAX)
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, FN ": a_count + b_count overflows");
    int indices = o->a_indices || o->a_counts || o->b_indices;
    if (indices && o->index_size == 4 && (a_count > UINT32_MAX || b_count > UINT32_MAX))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, FN ": %zu and %zu keys do not fit 4-byte indices "
                        "(index_size 8 does)", a_count, b_count);
    size_t bytes[ARRAYS] = {0};
    if (__builtin_mul_overflow(a_count, s->key_size, &bytes[A]) ||
        __builtin_mul_overflow(b_count, s->key_size, &bytes[B]) ||
        __builtin_mul_overflow(a_count, o->index_size, &bytes[A_INDICES]) ||
        __builtin_mul_overflow(b_count, o->index_size, &bytes[B_INDICES]))
        return mj__fail(ctx, MJ_ERR_TOO_LARGE, FN ": the arrays do not fit in memory");
    bytes[A_COUNTS] = bytes[A_INDICES];
    bytes[A_MATCHES] = a_count;
    bytes[B_MATCHES] = b_count;
    bytes[MATCH_COUNTS] = 2 * sizeof(uint64_t);
    for (int i = A; i <= B; ++i)
        if (bytes[i] && !p[i])
            return mj__fail(ctx, MJ_ERR_INVALID_ARGUMENT, FN ": %s is NULL", array_names[i]);
    for (int i = A; i < ARRAYS; ++i)
        arrays[i] = (mj_array){p[i], p[i] ? bytes[i] : 0, array_names[i]};
    return mj__check_overlaps(s, FN, arrays, A_INDICES, ARRAYS);
}

/* One pass: the merge of a and b with ties to a (lower) or to b (upper), a's outputs in
 * a_side and b's in b_side. */
static mj_status pass(mj_sorter *s, mj_bound bound, const void *a, size_t a_count, const void *b,
                      size_t b_count, mj_search_side a_side, mj_search_side b_side, int flags,
                      CUdeviceptr partitions, CUstream stream) {
    int upper = bound == MJ_BOUND_UPPER;
    CUdeviceptr first = DPTR(upper ? b : a), second = DPTR(upper ? a : b);
    long long first_count = (long long)(upper ? b_count : a_count);
    long long second_count = (long long)(upper ? a_count : b_count);
    mj_search_side first_side = upper ? b_side : a_side, second_side = upper ? a_side : b_side;
    if (a_side.matches || a_side.matched || b_side.matches || b_side.matched)
        flags |= MJ_SEARCH_MATCHES;
    long long tiles = mj_tile_count(first_count + second_count, (long long)s->nt * s->vt);
    void *params[] = {&first, &first_count, &second, &second_count, &partitions, &first_side,
                      &second_side, &flags};
    mj_status st = mj__merge_partition_launch(s, first, first_count, second, second_count, tiles,
                                              partitions, stream);
    return st ? st : mj__launch_overlapped(s, MJ_K_SEARCH, tiles, (unsigned)s->nt, params, stream);
}

mj_status mj__search_passes(mj_sorter *s, const void *a, size_t a_count, const void *b,
                            size_t b_count, const mj_search_outputs *out, CUdeviceptr partitions,
                            CUstream stream) {
    int wide = out->index_size == 8 ? MJ_SEARCH_WIDE : 0, upper = out->bound == MJ_BOUND_UPPER;
    mj_status st = MJ_OK;
    unsigned long long *matched = out->match_counts;
    /* The counts go with the lower bound's pass: the bound's own, or one of their own. */
    mj_search_side a_side = {out->a_indices, out->a_matches, upper ? NULL : out->a_counts,
                             matched};
    mj_search_side b_side = {out->b_indices, out->b_matches, NULL, matched ? matched + 1 : NULL};
    mj_search_side none = {NULL, NULL, NULL, NULL};
    mj_search_side counts_only = {NULL, NULL, out->a_counts, NULL};
    int more = out->a_indices || out->a_matches || out->b_indices || out->b_matches || matched;
    if (out->a_counts && upper)
        st = pass(s, MJ_BOUND_LOWER, a, a_count, b, b_count, counts_only, none, wide, partitions,
                  stream);
    if (!st && (more || !upper))
        st = pass(s, out->bound, a, a_count, b, b_count, a_side, b_side, wide, partitions, stream);
    return st;
}

mj_status mj_sorter_sorted_search(mj_sorter *s, const void *a, size_t a_count, const void *b,
                                  size_t b_count, const mj_search_outputs *out, void *temp,
                                  size_t temp_bytes, void *stream) {
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = mj__sorter_expect(s, 1u << MJ_SORTED_SEARCH, FN);
    mj_array arrays[ARRAYS];
    if (st || (st = check_call(s, a, a_count, b, b_count, out, arrays))) return st;
    size_t n = a_count + b_count, need = 0;
    if ((st = mj__merge_temp(s, n, &need)) || (st = mj__run_check_temp(s, need, temp, temp_bytes)))
        return st;
    /* Those that will be read or written must be reachable and aligned. */
    size_t is = out->index_size;
    const size_t align[ARRAYS] = {s->key_align, s->key_align, is, 1, is, is, 1, sizeof(uint64_t)};
    /* The match counts are cleared, even with no keys, before the temporary storage is taken. */
    unsigned long long *matched = out->match_counts;
    mj_run rn;
    st = mj__run_open(s, arrays, align, ARRAYS, MJ_RUN_CHECK, 0, temp, stream, &rn);
    if (!st && matched)
        st = mj__run_clear(s, DPTR(matched), 2 * sizeof *matched, rn.stream,
                           "clearing match_counts");
    if (!st && n && !(st = mj__run_begin(s, need, temp, stream, &rn)))
        st = mj__search_passes(s, a, a_count, b, b_count, out, rn.base, rn.stream);
    return mj__run_close(s, &rn, st);
}
