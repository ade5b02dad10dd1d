/* SPDX-License-Identifier: Apache-2.0 */
/* A mergesort's passes (public: mergejit.h): the plan of a sort, a sort timed pass by pass
 * with events between the passes, and the passes in a few characters and their bandwidth for
 * people. */
#include <stdarg.h>
#include <stdio.h>

#include "core/context.h"
#include "mergejit.h"
#include "primitives/mergesort.h"
#include "primitives/run.h"

/* More than a sort can have: the blocksort and a merge pass per doubling of at most 2^31
 * tiles (the layout refuses more), plus the event before the first pass. */
#define MAX_MARKS 64

/* Profiles are of mergesort sorters only. */
static mj_status profiled_kind(const mj_sorter *s, const char *fn) {
    if (s->primitive == MJ_MERGESORT) return MJ_OK;
    if (s->primitive == MJ_LOCALITY_SORT)
        return mj__fail(s->ctx, MJ_ERR_UNSUPPORTED,
                        "%s: locality sorts' passes are not profiled, only mergesorts'", fn);
    return mj__sorter_expect(s, 1u << MJ_MERGESORT, fn);
}

/* The arguments that describe the passes: count required; passes with capacity > 0. */
static mj_status check_room(const mj_sorter *s, const char *fn, const mj_sort_pass *passes,
                            int capacity, const int *count) {
    if (!count) return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: count is NULL", fn);
    if (capacity < 0)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: capacity is negative (%d)", fn,
                        capacity);
    if (capacity > 0 && !passes)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: passes is NULL with capacity %d", fn, capacity);
    return MJ_OK;
}

mj_status mj_sorter_sort_passes(const mj_sorter *s, size_t n, mj_sort_pass *passes,
                                int capacity, int *count) {
    static const char fn[] = "mj_sorter_sort_passes";
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    mj_status st = profiled_kind(s, fn);
    if (!st) st = check_room(s, fn, passes, capacity, count);
    if (!st) st = mj__mergesort_passes(s, n, passes, capacity, count);
    return st;
}

static void destroy_marks(mj_context *ctx, CUevent *marks, int count) {
    for (int i = 0; i < count; ++i) ctx->cu->event_destroy(marks[i]);
}

/* The sort with count + 1 events (inside the context), then each pass's time. */
static mj_status sort_timed(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                            size_t temp_bytes, void *stream, mj_sort_pass *passes, int count) {
    mj_context *ctx = s->ctx;
    const mj_cuda_api *cu = ctx->cu;
    CUevent marks[MAX_MARKS];
    int made = 0;
    CUresult r = CUDA_SUCCESS;
    while (made < count + 1 && (r = cu->event_create(&marks[made], CU_EVENT_DEFAULT)) ==
                                   CUDA_SUCCESS)
        ++made;
    if (r != CUDA_SUCCESS) {
        destroy_marks(ctx, marks, made);
        return mj__fail_cuda(ctx, r, "creating the passes' events");
    }
    mj_status st = mj__mergesort_sort(s, keys, values, n, temp, temp_bytes, stream, marks);
    if (!st && (r = cu->stream_sync((CUstream)stream)) != CUDA_SUCCESS)
        st = mj__fail_cuda(ctx, r, "waiting for the profiled sort");
    for (int i = 0; !st && i < count; ++i) {
        float ms = 0;
        if ((r = cu->event_elapsed(&ms, marks[i], marks[i + 1])) != CUDA_SUCCESS)
            st = mj__fail_cuda(ctx, r, "reading a pass's time");
        passes[i].ms = ms;
    }
    destroy_marks(ctx, marks, made);
    return st;
}

mj_status mj_sorter_sort_profiled(mj_sorter *s, void *keys, void *values, size_t n, void *temp,
                                  size_t temp_bytes, void *stream, mj_sort_pass *passes,
                                  int capacity, int *count) {
    static const char fn[] = "mj_sorter_sort_profiled";
    if (!s) return MJ_ERR_INVALID_ARGUMENT;
    int need = 0;
    mj_status st = profiled_kind(s, fn);
    if (!st) st = check_room(s, fn, passes, capacity, count);
    if (!st) st = mj__check_values(s, values, n);
    if (!st) st = mj__mergesort_passes(s, n, NULL, 0, &need);
    if (st) return st;
    *count = need;
    if (need > capacity)
        return mj__fail(s->ctx, MJ_ERR_INVALID_ARGUMENT,
                        "%s: a sort of %zu elements runs %d passes, passes has room for %d "
                        "(mj_sorter_sort_passes gives the count)", fn, n, need, capacity);
    if (need + 1 > MAX_MARKS)
        return mj__fail(s->ctx, MJ_ERR_TOO_LARGE, "%s: %d passes are more than it can time", fn,
                        need);
    (void)mj__mergesort_passes(s, n, passes, capacity, &need); /* as above: cannot fail */
    if (need == 0) /* nothing to time: the plain sort's checks and result */
        return mj__mergesort_sort(s, keys, values, n, temp, temp_bytes, stream, NULL);
    if ((st = mj__ctx_enter(s->ctx))) return st;
    st = sort_timed(s, keys, values, n, temp, temp_bytes, stream, passes, need);
    mj__ctx_leave(s->ctx);
    return st;
}

/* snprintf at offset len of text (cap bytes; past its end only counted); the new length. */
static int append(char *text, size_t cap, int len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int append(char *text, size_t cap, int len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t at = (size_t)len;
    int add = vsnprintf(at < cap ? text + at : NULL, at < cap ? cap - at : 0, fmt, ap);
    va_end(ap);
    return add < 0 ? len : len + add;
}

int mj_sort_passes_text(const mj_sort_pass *passes, int count, char *text, size_t cap) {
    int len = 0;
    if (cap) text[0] = '\0';
    if (!passes || count <= 0) return append(text, cap, 0, "none");
    for (int i = 0; i < count;) {
        const char *sep = len ? "+" : "";
        mj_pass_kind kind = passes[i].kind;
        if (kind == MJ_PASS_BLOCKSORT) {
            len = append(text, cap, len, "%sbs", sep);
            ++i;
            continue;
        }
        int run = 1;
        while (i + run < count && passes[i + run].kind == kind) ++run;
        len = append(text, cap, len, "%s%dx%s", sep, run,
                     kind == MJ_PASS_MERGE4 ? "4" : kind == MJ_PASS_MERGE2 ? "2" : "?");
        i += run;
    }
    return len;
}

double mj_sort_passes_gbs(const mj_sort_pass *passes, int count, mj_pass_kind kind) {
    double bytes = 0, ms = 0;
    for (int i = 0; passes && i < count; ++i)
        if (passes[i].kind == kind) {
            bytes += (double)passes[i].bytes;
            ms += passes[i].ms;
        }
    return ms > 0 ? bytes / (ms * 1e6) : -1;
}
