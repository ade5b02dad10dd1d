/* SPDX-License-Identifier: Apache-2.0 */
/* Interval move on the GPU against a CPU reference: neither gather nor scatter, gather only,
 * scatter only, both; i32 and i64 offsets; 1-, 4-, 8-, 12- and 64-byte elements; sizes 0, 1,
 * the tile edges, many tiles and 10^7 (not with MJ_TEST_SMALL); one interval owning every
 * item, long runs of empty intervals, all counts 1, random counts; in every other run, "wild"
 * entries: intervals partly or wholly before or after in or out, and entries at the index
 * type's extremes (whose sums overflow it), all skipped item by item. out lies between guard
 * elements that must come back untouched. Scatter layouts never write one element twice (that
 * result is unspecified). Also a caller's temporary buffer reused across sizes, a stream that
 * is not the default one, and the one-call function. One assertion a run. Skips (exit 77)
 * where there is no GPU. MJ_TEST_SMALL=1 runs smaller sizes (for compute-sanitizer). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/devmem.h"
#include "gpu_primitives_support.h"
#include "gpu_lbs_support.h"
#include "test_support.h"

typedef enum mode { NEITHER, GATHER, SCATTER, BOTH, MODE_COUNT } mode;
static const char *const mode_names[] = {"copy", "gather", "scatter", "move"};

#define GUARD 64 /* elements on each side of out */

/* A move's description on the host: offsets (objects of them), gather and scatter entries
 * (NULL when the mode has none) and the element counts of in and out. */
typedef struct desc {
    int64_t *off, *gat, *sca;
    size_t objects, items, in_count, out_count;
} desc;

static size_t count_of(const desc *d, size_t j) {
    return (size_t)((j + 1 < d->objects ? d->off[j + 1] : (int64_t)d->items) - d->off[j]);
}

/* An entry no item of an interval of c items can use, or one whose sum leaves the index type:
 * wholly before or after [0, n), or the type's extremes. */
static int64_t wild_entry(size_t c, size_t n, size_t ks, uint64_t *rng) {
    int64_t top = ks == 4 ? INT32_MAX : INT64_MAX, bottom = ks == 4 ? INT32_MIN : INT64_MIN;
    switch (mjt_rand(rng) % 4) {
    case 0: return -(int64_t)c - 1 - (int64_t)(mjt_rand(rng) % 10);
    case 1: return (int64_t)n + (int64_t)(mjt_rand(rng) % 10);
    case 2: return top - (int64_t)(mjt_rand(rng) % 3);
    default: return bottom + (int64_t)(mjt_rand(rng) % 3);
    }
}

/* Gather: random sources within in (intervals may read the same elements); wild runs put
 * every fifth interval across an end of in or out of it altogether. Scatter: the intervals
 * in a random order with gaps of 0 to 2, so no element is written twice; wild runs start the
 * first one before out, end out inside the last one and put every fifth of the others wholly
 * outside (or at an extreme). Without gather or scatter, wild runs shorten in and out. */
static desc describe(pattern p, size_t items, mode m, int wild, size_t ks, uint64_t seed) {
    desc d = {0};
    d.items = items;
    d.off = make_offsets(p, items, &d.objects, seed);
    size_t n = d.objects;
    uint64_t rng = seed * 3 + 1;
    d.in_count = m == GATHER || m == BOTH || !wild ? items + 1000 : items - items / 3;
    d.out_count = wild ? items - items / 4 : items;
    if (m == GATHER || m == BOTH) {
        d.gat = malloc(sizeof *d.gat * (n + 1));
        ck_assert_ptr_nonnull(d.gat);
        for (size_t j = 0; j < n; ++j) {
            size_t c = count_of(&d, j);
            d.gat[j] = (int64_t)(mjt_rand(&rng) % (d.in_count - c + 1));
            if (wild && j % 5 == 2) {
                uint64_t how = mjt_rand(&rng) % 3;
                d.gat[j] = how == 0   ? -(int64_t)(c / 2)
                           : how == 1 ? (int64_t)(d.in_count - c / 2)
                                      : wild_entry(c, d.in_count, ks, &rng);
            }
        }
    }
    if (m == SCATTER || m == BOTH) {
        size_t *perm = malloc(sizeof *perm * (n + 1));
        d.sca = malloc(sizeof *d.sca * (n + 1));
        ck_assert(perm && d.sca);
        for (size_t t = 0; t < n; ++t) perm[t] = t;
        for (size_t t = n; t > 1; --t) {
            size_t u = (size_t)(mjt_rand(&rng) % t), x = perm[t - 1];
            perm[t - 1] = perm[u];
            perm[u] = x;
        }
        int64_t pos = 0;
        size_t last = 0;
        for (size_t t = 0; t < n; ++t) {
            size_t j = perm[t], c = count_of(&d, j);
            if (t == 0 && wild) pos = -(int64_t)(c / 2);
            d.sca[j] = pos;
            pos += (int64_t)c + (int64_t)(mjt_rand(&rng) % 3);
            last = c;
        }
        d.out_count = (size_t)(pos > 0 ? pos : 0);
        if (wild) {
            d.out_count = d.out_count > last / 2 ? d.out_count - last / 2 : 0;
            for (size_t t = 1; t + 1 < n; ++t)
                if (perm[t] % 5 == 2)
                    d.sca[perm[t]] = wild_entry(count_of(&d, perm[t]), d.out_count, ks, &rng);
        }
        free(perm);
    }
    return d;
}

static void desc_free(desc *d) {
    free(d->off);
    free(d->gat);
    free(d->sca);
}

/* out (with its guards, as bytes) after the move, on the CPU: exact sums, skipping items
 * whose source or destination is outside. */
static void reference(const desc *d, size_t vs, const unsigned char *in, unsigned char *out) {
    for (size_t j = 0; j < d->objects; ++j)
        for (size_t r = 0, c = count_of(d, j); r < c; ++r) {
            __int128 i = d->off[j] + (int64_t)r;
            __int128 src = d->gat ? (__int128)d->gat[j] + (int64_t)r : i;
            __int128 dst = d->sca ? (__int128)d->sca[j] + (int64_t)r : i;
            if (src >= 0 && src < (__int128)d->in_count && dst >= 0 &&
                dst < (__int128)d->out_count)
                memcpy(out + ((size_t)dst + GUARD) * vs, in + (size_t)src * vs, vs);
        }
}

static void *dev_entries(const int64_t *e, size_t n, size_t ks) {
    return e ? dev_offsets(e, n, ks) : NULL;
}

typedef struct run_opts {
    void *temp;
    size_t temp_bytes;
    void *stream;
} run_opts;

static void check(mj_sorter *s, size_t ks, size_t vs, pattern p, size_t items, mode m, int wild,
                  const run_opts *o, uint64_t seed) {
    desc d = describe(p, items, m, wild, ks, seed);
    char what[200];
    snprintf(what, sizeof what, "%s of %s, %zu items, %zu intervals, in %zu, out %zu, %zu-byte "
             "offsets, %zu-byte elements%s%s%s", mode_names[m], pattern_names[p], items,
             d.objects, d.in_count, d.out_count, ks, vs, wild ? ", wild entries" : "",
             o && o->temp ? ", caller's temp" : "", o && o->stream ? ", own stream" : "");
    say(what);
    size_t in_bytes = d.in_count * vs, out_bytes = (d.out_count + 2 * GUARD) * vs;
    unsigned char *in = malloc(in_bytes + 8), *want = malloc(out_bytes);
    ck_assert(in && want);
    uint64_t rng = seed * 7 + 5;
    for (size_t b = 0; b < in_bytes; b += 8) {
        uint64_t x = mjt_rand(&rng);
        memcpy(in + b, &x, 8);
    }
    memset(want, 0xA5, out_bytes);
    void *d_off = dev_offsets(d.off, d.objects, ks), *d_in = dev_copy(in, in_bytes);
    void *d_gat = dev_entries(d.gat, d.objects, ks), *d_sca = dev_entries(d.sca, d.objects, ks);
    unsigned char *d_out = dev_copy(want, out_bytes);
    void *temp = o ? o->temp : NULL, *stream = o ? o->stream : NULL;
    mj_status st = mj_sorter_interval_move(s, d_off, d.objects, items, d_gat, d_sca, d_in,
                                           d.in_count, d_out + GUARD * vs, d.out_count, temp,
                                           o ? o->temp_bytes : 0, stream);
    if (st == MJ_OK) st = mj__dev_sync(ctx, stream);
    unsigned char *got = st == MJ_OK ? host_copy(d_out, out_bytes) : NULL;
    reference(&d, vs, in, want);
    size_t first = 0, bad = 0;
    for (size_t b = 0; got && b < out_bytes; ++b)
        if (got[b] != want[b] && bad++ == 0) first = b;
    /* One assertion a run: a passing Check assertion writes a record. */
    ck_assert_msg(st == MJ_OK && bad == 0, "%s: %s%s%s: %zu bytes wrong, the first in element "
                  "%lld of out (%s)", what, mj_status_name(st), st ? ": " : "",
                  st ? mj_context_last_error(ctx) : "", bad,
                  (long long)(first / vs) - GUARD,
                  first / vs < GUARD || first / vs >= GUARD + d.out_count ? "a guard" : "inside");
    free(got);
    free(in);
    free(want);
    mj__dev_free(ctx, d_off);
    mj__dev_free(ctx, d_in);
    mj__dev_free(ctx, d_out);
    if (d_gat) mj__dev_free(ctx, d_gat);
    if (d_sca) mj__dev_free(ctx, d_sca);
    desc_free(&d);
}

static const mj_key_kind keys[] = {MJ_KEY_I32, MJ_KEY_I64};
static const size_t vsizes[] = {1, 4, 8, 12, 64};

/* Every mode, pattern and size for one index type and element size (with MJ_TEST_SMALL, for
 * the sanitizers, one mode a pattern and size, in turn); wild entries in every other run.
 * 10^7 elements of 12 or 64 bytes are large: one pattern, moved, is enough. */
START_TEST(test_move)
{
    size_t vs = vsizes[_i / 2], ks = mj_key_kind_size(keys[_i % 2]);
    mj_sorter *s = make_sorter(MJ_INTERVAL_MOVE, keys[_i % 2], vs);
    size_t sizes[16], count = tile_edge_sizes(s, sizes);
    for (size_t k = 0; k < count; ++k)
        for (int p = 0; p < PATTERN_COUNT; ++p)
            for (int m = 0; m < MODE_COUNT; ++m) {
                if (k + 1 == count && vs > 8 && (p != RANDOM || m != BOTH)) continue;
                if (small && (size_t)m != (k + (size_t)p) % MODE_COUNT) continue;
                check(s, ks, vs, (pattern)p, sizes[k], (mode)m, (int)((k + (size_t)m) % 2), NULL,
                      17u * k + 5u * (unsigned)p + (unsigned)m);
            }
    mj_sorter_destroy(s);
}
END_TEST

/* One caller's buffer for runs of several sizes, largest first. */
START_TEST(test_reused_temp)
{
    mj_sorter *s = make_sorter(MJ_INTERVAL_MOVE, MJ_KEY_I64, 4);
    size_t sizes[16], count = tile_edge_sizes(s, sizes), bytes = 0;
    ck_assert_int_eq(mj_sorter_temp_size(s, sizes[count - 1] * 2 + 1, 0, &bytes), MJ_OK);
    run_opts o = {dev_buffer(bytes), bytes, NULL};
    for (size_t k = count; k-- > 0;) check(s, 8, 4, RANDOM, sizes[k], BOTH, (int)k % 2, &o, 3u + k);
    mj__dev_free(ctx, o.temp);
    mj_sorter_destroy(s);
}
END_TEST

/* Streams come from the CUDA runtime, as in an application. */
START_TEST(test_own_stream)
{
    mjt_cudart rt;
    ck_assert_int_eq(mjt_cudart_load(&rt), 0);
    void *stream = NULL;
    ck_assert_int_eq(rt.stream_create(&stream), 0);
    mj_sorter *s = make_sorter(MJ_INTERVAL_MOVE, MJ_KEY_I32, 8);
    run_opts o = {NULL, 0, stream};
    check(s, 4, 8, EMPTY_RUNS, small ? 100000 : 3000000, BOTH, 1, &o, 41u);
    mj_sorter_destroy(s);
    rt.stream_destroy(stream);
}
END_TEST

/* mj_interval_move builds its sorter and storage itself; nothing to move is a valid call. */
START_TEST(test_one_call)
{
    desc d = describe(RANDOM, 123457, GATHER, 0, 8, 9u);
    size_t bytes = d.in_count * 8;
    uint64_t *in = malloc(bytes), *got;
    ck_assert_ptr_nonnull(in);
    for (size_t e = 0; e < d.in_count; ++e) in[e] = e * 0x9E3779B97F4A7C15ull;
    void *d_off = dev_offsets(d.off, d.objects, 8), *d_gat = dev_offsets(d.gat, d.objects, 8);
    void *d_in = dev_copy(in, bytes), *d_out = dev_buffer(d.items * 8);
    mj_sort_desc sd;
    mj_sort_desc_init(&sd, MJ_KEY_I64, MJ_ASCENDING);
    mj_status st = mj_interval_move(ctx, &sd, d_off, d.objects, d.items, d_gat, NULL, d_in,
                                    d.in_count, d_out, d.items, 8, NULL);
    if (st == MJ_OK)
        st = mj_interval_move(ctx, &sd, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0, 8, NULL);
    if (st == MJ_OK) st = mj__dev_sync(ctx, NULL);
    got = st == MJ_OK ? host_copy(d_out, d.items * 8) : NULL;
    size_t bad = 0;
    for (size_t j = 0, i = 0; got && j < d.objects; ++j)
        for (size_t r = 0, c = count_of(&d, j); r < c; ++r, ++i)
            bad += got[i] != in[(size_t)d.gat[j] + r];
    ck_assert_msg(st == MJ_OK && bad == 0, "mj_interval_move: %s, %zu items wrong",
                  mj_status_name(st), bad);
    free(got);
    free(in);
    mj__dev_free(ctx, d_off);
    mj__dev_free(ctx, d_gat);
    mj__dev_free(ctx, d_in);
    mj__dev_free(ctx, d_out);
    desc_free(&d);
}
END_TEST

int main(void) {
    Suite *s = suite_create("gpu_move");
    TCase *tc = tcase_create("primitives");
    tcase_set_timeout(tc, 1800);
    tcase_add_loop_test(tc, test_move, 0, 10);
    tcase_add_test(tc, test_reused_temp);
    tcase_add_test(tc, test_own_stream);
    tcase_add_test(tc, test_one_call);
    suite_add_tcase(s, tc);
    return run_gpu_suite("test_gpu_move", s);
}
